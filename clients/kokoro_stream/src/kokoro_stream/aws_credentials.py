"""AWS credentials for the smithy-based SageMaker HTTP/2 SDK, resolved by botocore's chain.

The SDK's own default chain (smithy-aws-core 0.12) has environment variables, profile files
and credential_process only. AgentCore, ECS, Lambda and EC2 hand out role credentials through
a container or instance metadata endpoint, which only botocore's chain covers (with SSO,
assume-role and web identity too). `BotocoreCredentialsResolver` adapts that chain to the
smithy identity interface, refreshing temporary credentials before they expire.

botocore is synchronous: loading and refreshing run in a worker thread, never on the event
loop. Between refreshes the identity is served from memory.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from botocore.credentials import Credentials, RefreshableCredentials
from botocore.session import Session
from smithy_aws_core.identity import AWSCredentialsIdentity, AWSIdentityProperties
from smithy_core.aio.interfaces.identity import IdentityResolver
from smithy_core.exceptions import SmithyIdentityError

# Set while one stream is signed: its request and every event must use the same key (the
# event signature chain is seeded by the request's signature), even if a refresh happens.
_PINNED: ContextVar[AWSCredentialsIdentity | None] = ContextVar("pinned_identity", default=None)


class AwsCredentialsError(SmithyIdentityError):
    """botocore's credential chain found nothing or failed; the cause is botocore's error."""


@contextlib.contextmanager
def signing_as(identity: AWSCredentialsIdentity | None) -> Iterator[None]:
    """Within this block (in this task and tasks it creates) the resolver answers `identity`."""
    token = _PINNED.set(identity)
    try:
        yield
    finally:
        _PINNED.reset(token)


def _refresh_due(credentials: Credentials) -> bool:
    # botocore's advisory window (15 min before expiry); a pure time comparison.
    return isinstance(credentials, RefreshableCredentials) and credentials.refresh_needed()


class BotocoreCredentialsResolver(IdentityResolver[AWSCredentialsIdentity, AWSIdentityProperties]):
    """Smithy identity resolver over botocore's default credential chain."""

    def __init__(self, region: str | None = None, session: Session | None = None) -> None:
        self._region = region
        self._session = session
        self._credentials: Credentials | None = None
        self._identity: AWSCredentialsIdentity | None = None
        self._lock = asyncio.Lock()  # one load/refresh at a time

    def __deepcopy__(self, memo: dict[int, Any]) -> BotocoreCredentialsResolver:
        # The SDK deep-copies its config per client; the credential cache must stay shared.
        return self

    async def get_identity(self, *, properties: AWSIdentityProperties) -> AWSCredentialsIdentity:
        pinned = _PINNED.get()
        if pinned is not None:
            return pinned
        if self._fresh():
            assert self._identity is not None
            return self._identity
        async with self._lock:
            if not self._fresh():
                self._identity = await asyncio.to_thread(self._load_identity)
            assert self._identity is not None
            return self._identity

    def _fresh(self) -> bool:
        return (
            self._identity is not None
            and self._credentials is not None
            and not _refresh_due(self._credentials)
        )

    def _load_identity(self) -> AWSCredentialsIdentity:
        """Blocking: botocore may read files or call a metadata endpoint here."""
        try:
            if self._credentials is None:
                self._credentials = self._load_credentials()
            frozen = self._credentials.get_frozen_credentials()
        except AwsCredentialsError:
            raise
        except Exception as exc:
            raise AwsCredentialsError(
                f"botocore's credential chain failed: {type(exc).__name__}: {exc}"
            ) from exc
        return AWSCredentialsIdentity(
            access_key_id=frozen.access_key,
            secret_access_key=frozen.secret_key,
            session_token=frozen.token,
            account_id=getattr(frozen, "account_id", None),
        )

    def _load_credentials(self) -> Credentials:
        session = self._session or Session()
        if self._region and not self._session:
            session.set_config_variable("region", self._region)
        credentials = session.get_credentials()
        if credentials is None:
            raise AwsCredentialsError(
                "no AWS credentials found: botocore's chain looked at environment variables, "
                "the shared config and credentials files (profiles, SSO, assume-role, "
                "credential_process), the container credentials endpoint "
                "(AWS_CONTAINER_CREDENTIALS_FULL_URI / _RELATIVE_URI) and instance metadata"
            )
        return credentials
