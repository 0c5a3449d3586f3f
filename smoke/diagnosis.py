"""Plain-language diagnosis of a failed smoke check: what happened, and what to do.

Pure mapping, no I/O: exceptions (botocore, the HTTP/2 SDK), AWS error codes and messages,
TTS/agent error events and endpoint states all become one `Diagnosis`. Exceptions are matched
along their cause chain, so an error wrapped by the agent's transport (`SdkCallError`) is
still recognised: credential failures by type (botocore's, and the transport's
`AwsCredentialsError`), the rest by class name, so no HTTP/2 SDK module is imported here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from botocore.exceptions import NoCredentialsError, PartialCredentialsError
from kokoro_stream.aws_credentials import AwsCredentialsError

from teardown.aws import ACCESS_DENIED_CODES, BAD_CREDENTIAL_CODES


class Cause(StrEnum):
    CONFIGURATION = "configuration"
    NO_CREDENTIALS = "no credentials"
    BAD_CREDENTIALS = "credentials rejected"
    ACCESS_DENIED = "access denied"
    NOT_FOUND = "not found"
    NOT_IN_SERVICE = "endpoint not InService"
    NO_RESPONSE = "no response"
    NO_AUDIO = "no audio"
    UNREACHABLE = "unreachable"
    MODEL_ERROR = "model container error"
    AGENT_ERROR = "agent error"
    THROTTLED = "throttled"
    STREAM_FAILED = "stream failed"
    PROTOCOL = "protocol"
    UNEXPECTED = "unexpected error"


@dataclass(frozen=True)
class Diagnosis:
    cause: Cause
    summary: str  # what happened, one line
    advice: str  # what to check or do next


@dataclass(frozen=True)
class Call:
    """What a check attempted: the API operation, the IAM action it needs, on what."""

    operation: str  # e.g. "InvokeEndpoint"
    action: str  # e.g. "sagemaker:InvokeEndpoint"
    resource: str  # e.g. "endpoint kokoro-voice-tts"
    stream: bool = False  # the bidirectional stream (its silence has its own likely cause)


THROTTLING_CODES = frozenset(
    {
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "ServiceQuotaExceededException",
    }
)
# SageMaker says "not found" through its validation errors (InputValidationError: HTTP/2 SDK).
VALIDATION_CODES = frozenset({"ValidationError", "ValidationException", "InputValidationError"})
# "No usable credentials in botocore's chain": boto3's own errors, and the agent transport's
# (its HTTP/2 client resolves credentials through the same chain, the cause attached).
NO_CREDENTIAL_ERRORS = (NoCredentialsError, PartialCredentialsError, AwsCredentialsError)
# The same in an error's text ("Unable to locate credentials" is botocore's message).
NO_CREDENTIAL_MARKERS = (
    *(error.__name__ for error in NO_CREDENTIAL_ERRORS),
    "Unable to locate credentials",
)
# Exception class names for "could not reach the service at all".
UNREACHABLE_TYPES = frozenset(
    {"EndpointConnectionError", "ConnectionRefusedError", "gaierror", "ConnectTimeoutError"}
)
# ... and for "connected, but the answer never came".
NO_RESPONSE_TYPES = frozenset(
    {"ReadTimeoutError", "TimeoutError", "ClientTimeoutError", "ConnectionClosedError"}
)

# awscrt (the HTTP/2 SDK's transport) names its failures in the message: AWS_IO_...
_CRT_CODE = re.compile(r"\bAWS_(?:IO|ERROR)_[A-Z0-9_]+")
CRT_NO_RESPONSE = frozenset({"AWS_IO_TLS_NEGOTIATION_TIMEOUT"})  # connected, never answered
CRT_UNREACHABLE_PREFIXES = ("AWS_IO_SOCKET_", "AWS_IO_DNS_", "AWS_IO_TLS_ERROR_")

# AWS's AccessDenied wording: "User: ARN is not authorized to perform: ACTION on resource:
# RESOURCE because no identity-based policy allows ..." (or "with an explicit deny in ...").
_DENIED = re.compile(
    r"(?:User: (?P<principal>\S+) )?is not authorized to perform: (?P<action>[\w-]+:[\w*]+)"
    r"(?: on resource: (?P<resource>\S+))?(?: (?P<reason>(?:because|with an explicit) .+))?",
)
_NOT_FOUND_TEXT = re.compile(r"not found|could not find|does not exist|no such", re.IGNORECASE)
_EMBEDDED_CODE = re.compile(r"\b([A-Z][A-Za-z]+(?:Exception|Error))\b")

CREDENTIALS_ADVICE = (
    "configure AWS credentials: `aws configure`, `aws sso login` with AWS_PROFILE or "
    "--profile, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
)
BIDI_PORT_ADVICE = (
    "SageMaker serves the bidirectional API on port 8443 "
    "(https://runtime.sagemaker.<region>.amazonaws.com:8443); a client that connects to the "
    "default port 443 gets exactly this: a stream that opens and never answers. Check the "
    "transport's endpoint and port (and any AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2), then the "
    "container's log group /aws/sagemaker/Endpoints/<endpoint>"
)


@dataclass(frozen=True)
class _Message:
    """One entry of the catalogue below: a cause, what happened and what to do.

    `summary` is a `str.format` template over the call's `operation` and `resource` and the
    fields a diagnosis fills in (`detail`, `code`, `message`, ...)."""

    cause: Cause
    summary: str
    advice: str

    def about(self, call: Call, **fields: object) -> Diagnosis:
        summary = self.summary.format(operation=call.operation, resource=call.resource, **fields)
        return Diagnosis(self.cause, summary, self.advice)


# The catalogue: every fixed message a check can report (access denied and the endpoint's
# state are composed from what AWS said, in their functions below).
_BAD_CREDENTIALS = _Message(
    Cause.BAD_CREDENTIALS,
    "{operation}: AWS rejected the credentials ({code}: {message})",
    "refresh or fix the credentials (expired session? `aws sso login`), then re-run",
)
_THROTTLED = _Message(
    Cause.THROTTLED,
    "{operation} was throttled ({code}: {message})",
    "wait and re-run; if it persists, check the service quotas of the account",
)
# AWS error codes with a message of their own (fields: code, message).
_BY_CODE: dict[str, _Message] = {
    **dict.fromkeys(BAD_CREDENTIAL_CODES, _BAD_CREDENTIALS),
    **dict.fromkeys(THROTTLING_CODES, _THROTTLED),
    "ModelNotReadyException": _Message(
        Cause.NOT_IN_SERVICE,
        "{operation}: the model is not ready ({message})",
        "wait until the endpoint finished starting, then re-run",
    ),
    "ModelError": _Message(
        Cause.MODEL_ERROR,
        "{operation}: the Kokoro container answered with an error: {message}",
        "the request reached the container; read its log group "
        "/aws/sagemaker/Endpoints/<endpoint> for the cause",
    ),
    "RuntimeClientError": _Message(
        Cause.AGENT_ERROR,
        "{operation}: the agent container failed: {message}",
        "read the runtime's log group /aws/bedrock-agentcore/runtimes/<runtime id>-DEFAULT",
    ),
}
_AGENT_EVENT = _Message(
    Cause.AGENT_ERROR,
    "the agent answered with error {code}: {message}",
    "read the runtime's log group /aws/bedrock-agentcore/runtimes/<runtime id>-DEFAULT; "
    "tts_* codes mean the agent could not use the TTS endpoint",
)
_STREAM_FAILED = _Message(
    Cause.STREAM_FAILED,
    "{operation}: the stream failed ({code}: {message})",
    "read the endpoint's log group /aws/sagemaker/Endpoints/<endpoint>; a stream that "
    "ends early usually means the container stopped or restarted",
)
_CONTAINER_ERROR = _Message(
    Cause.MODEL_ERROR,
    "{operation}: the Kokoro container answered error {code}: {message}",
    "the stream works; the request was refused (a voice the deployed weights lack? "
    "see docs/protocol.md for the error codes)",
)
_NO_CREDENTIALS = _Message(
    Cause.NO_CREDENTIALS,
    "{operation}: no usable AWS credentials ({detail})",
    CREDENTIALS_ADVICE,
)
_NOT_FOUND = _Message(
    Cause.NOT_FOUND,
    "{operation}: {resource} not found ({detail})",
    "check the name/ARN and the region (--region, AWS_REGION); `npx cdk deploy --all` "
    "creates them, and the stack outputs name them",
)
_STREAM_NO_RESPONSE = _Message(
    Cause.NO_RESPONSE,
    "{operation}: the stream opened but nothing came back{within}: wrong port "
    "or no response{extra}",
    BIDI_PORT_ADVICE,
)
_NO_RESPONSE = _Message(
    Cause.NO_RESPONSE,
    "{operation}: connected, but no response{within}{extra}",
    "something accepted the connection and never answered: check endpoint overrides "
    "(AWS_ENDPOINT_URL*), proxies and the port, then the service's logs",
)
_STREAM_NOT_OPENED = _Message(
    Cause.NO_RESPONSE,
    "{operation}: the stream did not open within {timeout_s:g} s",
    "the SDK neither connected nor failed: check network access to the endpoint's host "
    "and port 8443 (VPN, proxy, firewall, AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2)",
)
_NO_AUDIO = _Message(
    Cause.NO_AUDIO,
    "{operation}: the stream answered ({seen}) but sent no audio{within}",
    "the service is reachable and accepted the request; the synthesis side is silent. "
    "Read the endpoint's log group /aws/sagemaker/Endpoints/<endpoint> (model loaded? "
    "voice known?)",
)
_UNREACHABLE = _Message(
    Cause.UNREACHABLE,
    "{operation}: could not connect ({detail})",
    "check the region, DNS and network path (VPN, proxy, firewall) to the AWS endpoint",
)
_PROTOCOL = _Message(
    Cause.PROTOCOL,
    "{operation}: {detail}",
    "the service answered, but not as the session protocol says (docs/protocol.md): "
    "check that the deployed image is this version of container/",
)
_UNEXPECTED = _Message(
    Cause.UNEXPECTED,
    "{operation} failed: {detail}",
    "not a cause this check knows; the message above is AWS's or the SDK's own",
)


def exception_chain(exc: BaseException) -> list[BaseException]:
    """exc, then its __cause__/__context__ chain (each once)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _type_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def describe_exception(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def from_exception(exc: BaseException, call: Call, timeout_s: float | None = None) -> Diagnosis:
    """Any exception a check's call raised."""
    for item in exception_chain(exc):
        if isinstance(item, NO_CREDENTIAL_ERRORS):
            return no_credentials(call, describe_exception(item))
        names = _type_names(item)
        response = getattr(item, "response", None)
        if "ClientError" in names and isinstance(response, dict):
            error = response.get("Error", {})
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            return from_aws_error(
                str(error.get("Code", "")), str(error.get("Message", "")), call, status
            )
        if names & UNREACHABLE_TYPES:
            return unreachable(call, describe_exception(item))
        if names & NO_RESPONSE_TYPES:
            return no_response(call, timeout_s, detail=describe_exception(item))
        crt = _from_crt_text(describe_exception(item), call)
        if crt is not None:
            return crt
        if {"CallError", "ServiceError"} & names and "ClientTimeoutError" not in names:
            # A modeled error of the HTTP/2 SDK: its class name is the AWS error code.
            return from_aws_error(type(item).__name__, str(getattr(item, "message", item)), call)
    return unexpected(call, describe_exception(exc))


def _from_crt_text(text: str, call: Call) -> Diagnosis | None:
    code = _CRT_CODE.search(text)
    if code and code[0] in CRT_NO_RESPONSE:
        return no_response(call, None, detail=text)  # the SDK's own timer ran out
    if code and code[0].startswith(CRT_UNREACHABLE_PREFIXES):
        return unreachable(call, text)
    return None


def from_aws_error(code: str, message: str, call: Call, status: int | None = None) -> Diagnosis:
    """An AWS error response: its code (e.g. AccessDeniedException) and message."""
    if code in ACCESS_DENIED_CODES or _DENIED.search(message):
        return access_denied(call, message)
    if code == "ResourceNotFoundException" or (
        code in VALIDATION_CODES and _NOT_FOUND_TEXT.search(message)
    ):
        return not_found(call, f"{code}: {message}")
    known = _BY_CODE.get(code)
    if known is not None:
        return known.about(call, code=code, message=message)
    shown = f"{code} (HTTP {status})" if status else code or "error"
    return unexpected(call, f"{shown}: {message}")


def from_event(code: str, message: str, call: Call) -> Diagnosis:
    """An error reported inside a stream: a TTS transport failure or an agent `error` event.

    Its message may carry the AWS error underneath (e.g. the agent's execution role denied
    sagemaker:InvokeEndpointWithBidirectionalStream); that cause wins over the wrapper's code."""
    if _DENIED.search(message) or any(c in message for c in ACCESS_DENIED_CODES):
        return access_denied(call, message)
    if any(marker in message for marker in NO_CREDENTIAL_MARKERS):
        return no_credentials(call, message)
    crt = _from_crt_text(message, call)
    if crt is not None:
        return crt
    for embedded in _EMBEDDED_CODE.findall(message):
        if embedded in BAD_CREDENTIAL_CODES | THROTTLING_CODES | {"ResourceNotFoundException"}:
            return from_aws_error(embedded, message, call)
        if embedded in VALIDATION_CODES and _NOT_FOUND_TEXT.search(message):
            return not_found(call, message)
    if call.action.startswith("bedrock-agentcore:"):
        return _AGENT_EVENT.about(call, code=code, message=message)
    return _STREAM_FAILED.about(call, code=code, message=message)


def container_error(call: Call, code: str, message: str) -> Diagnosis:
    """An `error` message of the TTS session protocol: the container refused the request."""
    return _CONTAINER_ERROR.about(call, code=code, message=message)


def access_denied(call: Call, message: str) -> Diagnosis:
    """Names the missing action: from AWS's message when it says, else the call's action."""
    found = _DENIED.search(message)
    action = found["action"] if found else call.action
    resource = (found["resource"] if found else None) or call.resource
    principal = found["principal"] if found and found["principal"] else "the caller"
    explicit = bool(found and found["reason"] and "explicit deny" in found["reason"])
    fix = (
        f"an explicit deny ({found['reason'].removeprefix('with an explicit deny ')}) "
        "blocks it: a policy or SCP must change"
        if explicit and found
        else f"allow {action} on {resource} for {principal}"
    )
    return Diagnosis(
        Cause.ACCESS_DENIED,
        f"{call.operation}: access denied, missing permission {action} on {resource}",
        f"{fix}. AWS said: {message}",
    )


def no_credentials(call: Call, detail: str) -> Diagnosis:
    return _NO_CREDENTIALS.about(call, detail=detail)


def not_found(call: Call, detail: str) -> Diagnosis:
    return _NOT_FOUND.about(call, detail=detail)


def not_in_service(endpoint: str, status: str, failure_reason: str | None) -> Diagnosis:
    """From describe_endpoint: the endpoint exists but cannot serve yet (or any more)."""
    if status in {"Creating", "Updating", "SystemUpdating", "RollingBack", "UpdateRollbackFailed"}:
        advice = (
            f"wait until it is InService: `aws sagemaker wait endpoint-in-service "
            f"--endpoint-name {endpoint}` (a first deploy takes 15-25 minutes), then re-run"
        )
    elif status == "Failed":
        advice = (
            f"it failed: {failure_reason or 'no reason given'}. Read the log group "
            f"/aws/sagemaker/Endpoints/{endpoint}, fix, and deploy again"
        )
    else:
        advice = f"an endpoint in state {status} serves no requests; deploy it again"
    reason = f" ({failure_reason})" if failure_reason else ""
    return Diagnosis(
        Cause.NOT_IN_SERVICE,
        f"endpoint {endpoint} is {status}, not InService{reason}",
        advice,
    )


def _within(timeout_s: float | None) -> str:
    return f" within {timeout_s:g} s" if timeout_s else ""


def no_response(call: Call, timeout_s: float | None, detail: str | None = None) -> Diagnosis:
    # The bidirectional stream's silence has its own likely cause: the wrong port.
    message = _STREAM_NO_RESPONSE if call.stream else _NO_RESPONSE
    extra = f" ({detail})" if detail else ""
    return message.about(call, within=_within(timeout_s), extra=extra)


def stream_not_opened(call: Call, timeout_s: float) -> Diagnosis:
    return _STREAM_NOT_OPENED.about(call, timeout_s=timeout_s)


def no_audio(call: Call, seen: str, timeout_s: float | None = None) -> Diagnosis:
    return _NO_AUDIO.about(call, seen=seen, within=_within(timeout_s))


def unreachable(call: Call, detail: str) -> Diagnosis:
    return _UNREACHABLE.about(call, detail=detail)


def protocol(call: Call, detail: str) -> Diagnosis:
    return _PROTOCOL.about(call, detail=detail)


def unexpected(call: Call, detail: str) -> Diagnosis:
    return _UNEXPECTED.about(call, detail=detail)
