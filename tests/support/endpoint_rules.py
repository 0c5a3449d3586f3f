"""Evaluates the endpoint rules shipped in aws-sdk-sagemaker-runtime-http2 (the service
model's `smithy.rules#endpointBdd` trait), so tests compare the agent's endpoint with the
service's own rules instead of with a literal.

The trait is a binary decision diagram: `conditions`, `results` (the implicit "no match" is
result 0, so the trait's list starts at result 1), and `nodes`, base64 big-endian int32
triples (condition index, high ref, low ref). A ref is 1 (true) / -1 (false), a result
(100_000_000 + result index), or a node (n -> node n-1; negative = complemented).
Only the functions this service's rules use are implemented; any other one fails loudly.
"""

from __future__ import annotations

import base64
import re
import struct
from types import MappingProxyType
from typing import Any

from aws_sdk_sagemaker_runtime_http2._private import schemas
from kokoro_stream.sagemaker_client import aws_partition
from smithy_core.shapes import ShapeID

_RESULT_BASE = 100_000_000
_SERVICE = ShapeID("com.amazonaws.sagemakerruntimehttp2#AmazonSageMakerRuntimeHttp2")
_BDD = ShapeID("smithy.rules#endpointBdd")


def _plain(value: Any) -> Any:
    if isinstance(value, MappingProxyType | dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def shipped_rules() -> dict[str, Any]:
    service = next(s for s in vars(schemas).values() if getattr(s, "id", None) == _SERVICE)
    return _plain(service.traits[_BDD].document_value)


def _eval(expr: Any, scope: dict[str, Any]) -> Any:
    if not isinstance(expr, dict):
        return expr
    if "ref" in expr:
        return scope.get(expr["ref"])
    args = [_eval(a, scope) for a in expr["argv"]]
    match expr["fn"]:
        case "isSet":
            return args[0] is not None
        case "booleanEquals" | "stringEquals":
            return args[0] == args[1]
        case "getAttr":
            return None if args[0] is None else args[0].get(args[1])
        case "aws.partition":
            return None if args[0] is None else aws_partition(args[0])
        case fn:
            raise NotImplementedError(f"endpoint rules function {fn!r}")


def resolve(
    region: str | None, *, use_fips: bool = False, use_dual_stack: bool = False
) -> dict[str, Any]:
    """{'url': ...} or {'error': ...}, as the service's rules decide for these parameters."""
    rules = shipped_rules()
    scope: dict[str, Any] = {"Region": region, "UseFIPS": use_fips, "UseDualStack": use_dual_stack}
    raw = base64.b64decode(rules["nodes"])
    nodes = [struct.unpack(">iii", raw[i : i + 12]) for i in range(0, len(raw), 12)]
    ref = rules["root"]
    while True:
        if ref >= _RESULT_BASE:
            result = rules["results"][ref - _RESULT_BASE - 1]
            break
        if ref in (1, -1):
            raise AssertionError("endpoint rules ended in a terminal without a result")
        complemented = ref < 0
        condition_index, high, low = nodes[abs(ref) - 1]
        condition = rules["conditions"][condition_index]
        value = _eval(condition, scope)
        if "assign" in condition:
            scope[condition["assign"]] = value
        truth = value is not None and value is not False
        ref = high if truth != complemented else low
    if result["type"] == "error":
        return {"error": result["error"]}
    url = result["endpoint"]["url"]
    if isinstance(url, dict):
        return {"url": _eval(url, scope)}

    def fill(match: re.Match[str]) -> str:
        name, _, attr = match.group(1).partition("#")
        value = scope[name]
        return str(value[attr] if attr else value)

    return {"url": re.sub(r"\{([^}]+)\}", fill, url)}
