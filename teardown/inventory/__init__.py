"""Runs every per-service finder and records which services could not be checked."""

from __future__ import annotations

from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError

from teardown.aws import error_code, is_access_denied
from teardown.inventory import agentcore, cloudformation, ecr, logs, s3, sagemaker
from teardown.model import Finding, Inventory, ServiceCheck
from teardown.scope import Scope

Finder = Callable[[Scope, ServiceCheck, list[Finding]], list[Finding]]

# (service, finder) in scan order; the log finder gets the earlier findings so it can match
# log groups of endpoints and runtimes found by name.
FINDERS: tuple[tuple[str, Finder], ...] = (
    ("cloudformation", cloudformation.find),
    ("sagemaker", sagemaker.find),
    ("bedrock-agentcore", agentcore.find),
    ("s3", s3.find),
    ("ecr", ecr.find),
    ("logs", logs.find),
)


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, ClientError):
        op = exc.operation_name
        if is_access_denied(exc):
            return f"access denied ({error_code(exc)} on {op}): grant the read permission"
        return f"{error_code(exc) or 'error'} on {op}: {exc}"
    if isinstance(exc, EndpointConnectionError):
        return f"service endpoint not reachable in this region: {exc}"
    return f"{type(exc).__name__}: {exc}"


def run_inventory(scope: Scope) -> Inventory:
    """Scan every service; a service that fails is UNCHECKED, never reported as clean."""
    inventory = Inventory(app_name=scope.app_name, region=scope.region, account=scope.account)
    for service, finder in FINDERS:
        check = ServiceCheck(service)
        inventory.checks[service] = check
        try:
            inventory.findings.extend(finder(scope, check, list(inventory.findings)))
        except (ClientError, BotoCoreError) as exc:
            # NoCredentialsError is a BotoCoreError too, but credentials were verified before
            # the scan; losing them midway is reported like any other failure here.
            check.unchecked(describe_failure(exc))
    return inventory
