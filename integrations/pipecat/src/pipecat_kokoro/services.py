"""The two Kokoro TTS services: a SageMaker endpoint, or the same server as a local container.

The SageMaker stack (aws-sdk-sagemaker-runtime-http2, awscrt, botocore) is imported when a
`KokoroSageMakerTTSService` is created, never by importing this package.
"""

from __future__ import annotations

from typing import Any

from kokoro_stream.websocket import WebSocketTts, bidi_url

from .service import KokoroStreamTTSService


class KokoroSageMakerTTSService(KokoroStreamTTSService):
    """Kokoro on a SageMaker real-time endpoint with bidirectional streaming.

    One long-lived bidirectional stream per service (per bot), opened when the pipeline
    starts, on port 8443, signed with botocore's credential chain (environment, profile, SSO,
    container and instance role credentials).

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
        **kwargs: Any,
    ) -> None:
        """
        Args:
            endpoint_name: the SageMaker endpoint's name.
            region: its region; None reads AWS_REGION, AWS_DEFAULT_REGION, then the profile.
            **kwargs: `KokoroStreamTTSService` arguments (voice, speed, sample_rate, ...).
        """
        from kokoro_stream.sagemaker import SageMakerBidiTts

        transport = SageMakerBidiTts(endpoint_name, region)
        super().__init__(transport=transport, description=transport.description, **kwargs)
        self.endpoint_name = endpoint_name
        self.region = transport.region


class KokoroWebSocketTTSService(KokoroStreamTTSService):
    """Kokoro in a local container (or any reachable one) over its WebSocket route.

    Example::

        tts = KokoroWebSocketTTSService(url="ws://127.0.0.1:8080", voice="jf_alpha")
    """

    def __init__(self, *, url: str = "ws://127.0.0.1:8080", **kwargs: Any) -> None:
        """
        Args:
            url: the server's base URL or its full `/invocations-bidirectional-stream` URL.
            **kwargs: `KokoroStreamTTSService` arguments (voice, speed, sample_rate, ...).
        """
        self.url = bidi_url(url)
        super().__init__(transport=WebSocketTts(self.url), description=self.url, **kwargs)
