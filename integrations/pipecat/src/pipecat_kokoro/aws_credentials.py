"""botocore's credential chain as a smithy identity resolver, for the HTTP/2 SageMaker SDK.

The SDK's default chain (smithy-aws-core) stops at environment variables, profile files and
credential_process; a bot on ECS, EKS, EC2, Lambda or AgentCore gets role credentials from a
container or instance metadata endpoint, which botocore's chain covers (and SSO, assume-role,
web identity). botocore is synchronous: loading and refreshing run in a worker thread.

One stream must be signed with one key from its request to its last event (the event
signatures chain from the request's), so `signing_as` pins the identity for a stream even if
a refresh happens meanwhile. The same design as the project's voice agent
(agent/voice_agent/aws_credentials.py); this package must install without the agent.
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

_PINNED: ContextVar[AWSCredentialsIdentity | None] = ContextVar(
    "kokoro_pinned_identity", default=None
)


class AwsCredentialsError(SmithyIdentityError):
    """botocore's chain found no credentials, or failed; the cause is botocore's error."""


@contextlib.contextmanager
def signing_as(identity: AWSCredentialsIdentity | None) -> Iterator[None]:
    """Within this block (and tasks started in it) the resolver answers `identity`."""
    token = _PINNED.set(identity)
    try:
        yield
    finally:
        _PINNED.reset(token)


class BotocoreCredentialsResolver(IdentityResolver[AWSCredentialsIdentity, AWSIdentityProperties]):
    def __init__(self, region: str | None = None, session: Session | None = None) -> None:
        self._region = region
        self._session = session
        self._credentials: Credentials | None = None
        self._identity: AWSCredentialsIdentity | None = None
        self._lock = asyncio.Lock()

    def __deepcopy__(self, memo: dict[int, Any]) -> BotocoreCredentialsResolver:
        return self  # the SDK deep-copies its config; the credential cache stays shared

    async def get_identity(self, *, properties: AWSIdentityProperties) -> AWSCredentialsIdentity:
        pinned = _PINNED.get()
        if pinned is not None:
            return pinned
        async with self._lock:
            if not self._fresh():
                self._identity = await asyncio.to_thread(self._load_identity)
            assert self._identity is not None
            return self._identity

    def _fresh(self) -> bool:
        credentials = self._credentials
        if self._identity is None or credentials is None:
            return False
        # botocore's advisory window: refresh 15 minutes before temporary credentials expire.
        return not (
            isinstance(credentials, RefreshableCredentials) and credentials.refresh_needed()
        )

    def _load_identity(self) -> AWSCredentialsIdentity:
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
        )

    def _load_credentials(self) -> Credentials:
        session = self._session or Session()
        if self._region and self._session is None:
            session.set_config_variable("region", self._region)
        credentials = session.get_credentials()
        if credentials is None:
            raise AwsCredentialsError(
                "no AWS credentials: botocore's chain looked at environment variables, the "
                "shared config and credentials files, the container credentials endpoint "
                "and instance metadata"
            )
        return credentials
