"""Where the page's WebSocket goes: the local agent, or a deployed AgentCore runtime.

For a deployed runtime the page server signs a short-lived wss:// URL with the user's AWS
credentials (SigV4 in the query string, as the bedrock-agentcore SDK's
`AgentCoreRuntimeClient.generate_presigned_url` builds it); the browser receives that URL
and never the credentials. The conversation is the runtime session id carried in the URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from botocore.exceptions import BotoCoreError

# AgentCore's runtimeSessionId is 33 to 256 characters (botocore's service model); the page
# makes a UUID4 (36). Letters, digits and '-' keep it safe in a URL and a log line.
SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{32,255}$")
PRESIGNED_URL_EXPIRES_S = 60  # only the connection must start in time; it may then last


class TargetError(RuntimeError):
    """The connection URL could not be made (e.g. no AWS credentials); said to the page."""


class AgentTarget(Protocol):
    @property
    def kind(self) -> str:
        """`local` or `deployed` (read only: the targets are frozen dataclasses)."""
        ...

    def describe(self) -> str: ...

    def connect_src(self) -> str:
        """The Content-Security-Policy connect-src origin of the WebSocket."""
        ...

    def connection_url(self, session_id: str) -> str: ...


@dataclass(frozen=True)
class LocalAgent:
    """The agent on loopback (`make playground` starts it): its /ws, as is."""

    ws_url: str
    kind: str = "local"

    def describe(self) -> str:
        return f"local agent at {self.ws_url}"

    def connect_src(self) -> str:
        parts = urlsplit(self.ws_url)
        return f"{parts.scheme}://{parts.netloc}"

    def connection_url(self, session_id: str) -> str:
        return self.ws_url


@dataclass
class DeployedRuntime:
    """A deployed AgentCore runtime, reached through a presigned URL per connection."""

    runtime_arn: str
    region: str
    qualifier: str | None = None
    expires_s: int = PRESIGNED_URL_EXPIRES_S
    kind: str = "deployed"
    client: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.client is None:
            from bedrock_agentcore.runtime import AgentCoreRuntimeClient

            # Builds boto3 clients only; nothing is sent until a URL is signed.
            self.client = AgentCoreRuntimeClient(region=self.region)

    def describe(self) -> str:
        qualifier = f" (endpoint {self.qualifier})" if self.qualifier else ""
        return f"AgentCore runtime {self.runtime_arn}{qualifier} in {self.region}"

    def connect_src(self) -> str:
        return f"wss://{urlsplit(self.connection_host()).netloc}"

    def connection_host(self) -> str:
        # The SDK's own resolver for the data-plane host its presigned URLs point at.
        from bedrock_agentcore._utils.endpoints import get_data_plane_endpoint

        return str(get_data_plane_endpoint(self.region))

    def connection_url(self, session_id: str) -> str:
        try:
            return str(
                self.client.generate_presigned_url(
                    self.runtime_arn,
                    session_id=session_id,
                    endpoint_name=self.qualifier,
                    expires=self.expires_s,
                )
            )
        except (RuntimeError, ValueError, BotoCoreError) as exc:  # no credentials, bad ARN
            raise TargetError(f"cannot sign a URL for {self.runtime_arn}: {exc}") from exc
