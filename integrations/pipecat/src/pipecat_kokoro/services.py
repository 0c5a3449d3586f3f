"""The two Kokoro TTS services: a SageMaker endpoint, or the same server as a local container."""

from __future__ import annotations

from typing import Any

from smithy_http.aio.interfaces import HTTPClient

from .connection import WebSocketConnector
from .sagemaker import SageMakerConnector
from .service import KokoroTTSService


class KokoroSageMakerTTSService(KokoroTTSService):
    """Kokoro on a SageMaker real-time endpoint with bidirectional streaming.

    One long-lived bidirectional stream per service (per bot), opened when the pipeline
    starts, signed with botocore's credential chain (environment, profile, SSO, container
    and instance role credentials), on port 8443.

    Example::

        tts = KokoroSageMakerTTSService(
            endpoint_name="kokoro-tts", region="us-east-1", voice="af_heart"
        )
    """

    def __init__(
        self,
        *,
        endpoint_name: str,
        region: str | None = None,
        http_transport: HTTPClient | None = None,
        **kwargs: Any,
    ) -> None:
        """
        Args:
            endpoint_name: the SageMaker endpoint's name.
            region: its region; None reads AWS_REGION, AWS_DEFAULT_REGION, then the profile.
            http_transport: replaces the SDK's HTTP transport (tests only).
            **kwargs: `KokoroTTSService` arguments (voice, speed, sample_rate, ...).
        """
        connector = SageMakerConnector(endpoint_name, region, transport=http_transport)
        super().__init__(connector=connector, **kwargs)
        self.endpoint_name = connector.endpoint_name
        self.region = connector.region


class KokoroWebsocketTTSService(KokoroTTSService):
    """Kokoro in a local container (or any reachable one) over its WebSocket route.

    Example::

        tts = KokoroWebsocketTTSService(url="ws://127.0.0.1:8080", voice="jf_alpha")
    """

    def __init__(self, *, url: str = "ws://127.0.0.1:8080", **kwargs: Any) -> None:
        """
        Args:
            url: the server's base URL or its full `/invocations-bidirectional-stream` URL.
            **kwargs: `KokoroTTSService` arguments (voice, speed, sample_rate, ...).
        """
        connector = WebSocketConnector(url)
        super().__init__(connector=connector, **kwargs)
        self.url = connector.url
