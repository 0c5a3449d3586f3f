"""boto3 session set-up, the caller's identity, and how AWS errors are classified."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
)

from teardown.config import ConfigError

# Error codes AWS services use when the caller lacks a permission (`make smoke` classifies
# its failures by these too).
ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "UnauthorizedException",
        "AuthorizationError",
        "Forbidden",
    }
)
# Error codes that mean the credentials themselves are bad (not a missing permission).
BAD_CREDENTIAL_CODES = frozenset(
    {
        "InvalidClientTokenId",
        "ExpiredToken",
        "ExpiredTokenException",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "InvalidSignatureException",
        "InvalidAccessKeyId",
        "MissingAuthenticationTokenException",
    }
)

# Standard retry mode with a few attempts: throttling on big accounts is normal.
CLIENT_CONFIG = Config(retries={"mode": "standard", "max_attempts": 5})


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def is_access_denied(exc: ClientError) -> bool:
    return error_code(exc) in ACCESS_DENIED_CODES


def make_session(profile: str | None) -> boto3.Session:
    """A boto3 session for ``profile`` (None: the default credential chain)."""
    try:
        return boto3.Session(profile_name=profile)
    except ProfileNotFound as exc:
        raise ConfigError(f"AWS profile {profile!r} not found in your AWS config files") from exc


def known_regions(session: boto3.Session) -> set[str]:
    regions: set[str] = set()
    for partition in session.get_available_partitions():
        regions.update(session.get_available_regions("sts", partition_name=partition))
    return regions


# Region variables, in the order the CDK CLI reads them to pick the region `cdk deploy` uses.
# botocore itself reads only AWS_DEFAULT_REGION (then the profile), so AWS_REGION, which
# Lambda, CodeBuild and many shells set alone, is read here.
REGION_ENV_VARS = ("AWS_REGION", "AWS_DEFAULT_REGION")


def resolve_region(
    session: boto3.Session, explicit: str | None, environ: Mapping[str, str] = os.environ
) -> str:
    """--region, else AWS_REGION, else AWS_DEFAULT_REGION, else the profile's region; validated."""
    from_env = (environ.get(name, "").strip() for name in REGION_ENV_VARS)
    region = explicit or next((r for r in from_env if r), None) or session.region_name
    if not region:
        raise ConfigError(
            "no AWS region: pass --region, or set AWS_REGION (or AWS_DEFAULT_REGION), "
            "or give your AWS profile a region (aws configure set region REGION)"
        )
    if region not in known_regions(session):
        raise ConfigError(
            f"invalid AWS region {region!r}: not a region this SDK knows "
            "(e.g. us-east-1, eu-west-1, ap-northeast-1)"
        )
    return region


class Clients:
    """The one place the cleanup creates AWS clients: one per service, cached, all from the
    same session, for the resolved region, with the same retry settings."""

    def __init__(self, session: boto3.Session, region: str) -> None:
        self._session = session
        self.region = region
        self._cache: dict[str, object] = {}

    def get(self, service: str) -> Any:
        if service not in self._cache:
            self._cache[service] = self._session.client(
                service, region_name=self.region, config=CLIENT_CONFIG
            )
        return self._cache[service]


class CredentialsError(Exception):
    """No usable credentials; the CLI prints it and exits 2."""


def caller_account(clients: Clients) -> str:
    """The account id of the credentials in use; fails clearly before any scan starts."""
    region = clients.region
    try:
        return str(clients.get("sts").get_caller_identity()["Account"])
    except (NoCredentialsError, PartialCredentialsError) as exc:
        raise CredentialsError(
            "no AWS credentials found: configure them (aws configure, aws sso login, "
            "AWS_PROFILE or --profile, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)"
        ) from exc
    except ClientError as exc:
        if error_code(exc) in BAD_CREDENTIAL_CODES:
            raise CredentialsError(
                f"AWS rejected the credentials ({error_code(exc)}): refresh or fix them"
            ) from exc
        raise CredentialsError(f"cannot verify the AWS identity: {exc}") from exc
    except EndpointConnectionError as exc:
        raise ConfigError(f"cannot reach AWS STS in region {region!r}: {exc}") from exc
    except (NoRegionError, BotoCoreError) as exc:
        raise CredentialsError(f"cannot verify the AWS identity: {exc}") from exc
