"""The boto3 session, region and clients every check uses, built one way.

Region precedence: --region, AWS_REGION, AWS_DEFAULT_REGION, then the profile's region.
(botocore itself reads AWS_DEFAULT_REGION and config files but not AWS_REGION, so the
region is resolved here and passed to every client explicitly.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ProfileNotFound

from smoke.diagnosis import CREDENTIALS_ADVICE, Cause, Diagnosis

# Maximum seconds to wait for a TCP connection to an AWS endpoint.
CONNECT_TIMEOUT_S = 10.0


class SetupError(Exception):
    """The smoke check cannot start (exit 2); carries what to tell the user."""

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__(diagnosis.summary)
        self.diagnosis = diagnosis


def setup_error(cause: Cause, summary: str, advice: str) -> SetupError:
    return SetupError(Diagnosis(cause, summary, advice))


@dataclass(frozen=True)
class Region:
    name: str
    source: str  # where it came from, printed so a wrong region is easy to spot


def make_session(profile: str | None) -> boto3.Session:
    try:
        return boto3.Session(profile_name=profile)
    except ProfileNotFound as exc:
        raise setup_error(
            Cause.CONFIGURATION,
            f"AWS profile {profile!r} not found in your AWS config files",
            "pass an existing profile (`aws configure list-profiles`)",
        ) from exc


def resolve_region(session: boto3.Session, explicit: str | None, env: Mapping[str, str]) -> Region:
    candidates = (
        (explicit, "--region"),
        (env.get("AWS_REGION"), "AWS_REGION"),
        (env.get("AWS_DEFAULT_REGION"), "AWS_DEFAULT_REGION"),
        # botocore's own lookup: AWS_DEFAULT_REGION (already tried), then the profile.
        (session.region_name, f"profile {session.profile_name}"),
    )
    for value, source in candidates:
        if value:
            region = Region(value.strip(), source)
            break
    else:
        raise setup_error(
            Cause.CONFIGURATION,
            "no AWS region",
            "pass --region, or set AWS_REGION (or AWS_DEFAULT_REGION), or a region in your "
            "profile: the one you deployed the stacks to",
        )
    if region.name not in known_regions(session):
        raise setup_error(
            Cause.CONFIGURATION,
            f"invalid AWS region {region.name!r} (from {region.source})",
            "use a region name such as us-east-1 or us-west-2",
        )
    return region


def known_regions(session: boto3.Session) -> set[str]:
    regions: set[str] = set()
    for partition in session.get_available_partitions():
        regions.update(session.get_available_regions("sts", partition_name=partition))
    return regions


def require_credentials(session: boto3.Session) -> None:
    """Fail before any check when boto3's whole chain (env, profile, SSO, container, instance
    role) has nothing: every check would fail the same way."""
    try:
        credentials = session.get_credentials()
    except BotoCoreError as exc:  # e.g. an expired SSO token or a failing credential_process
        raise setup_error(
            Cause.BAD_CREDENTIALS,
            f"AWS credentials could not be loaded ({type(exc).__name__}: {exc})",
            "refresh them (`aws sso login`?) or fix the profile, then re-run",
        ) from exc
    if credentials is None:
        raise setup_error(Cause.NO_CREDENTIALS, "no AWS credentials found", CREDENTIALS_ADVICE)


def client_config(timeout_s: float) -> Config:
    """One attempt, bounded waits: a smoke check reports the first failure as it is, and a
    silent service turns into a diagnosis after `timeout_s` instead of a hang."""
    return Config(
        connect_timeout=min(CONNECT_TIMEOUT_S, timeout_s),
        read_timeout=timeout_s,
        retries={"mode": "standard", "total_max_attempts": 1},
    )


def make_client(session: boto3.Session, service: str, region: str, timeout_s: float) -> Any:
    return session.client(service, region_name=region, config=client_config(timeout_s))
