"""What the settings name, built: the TTS transport (kokoro_stream's WebSocket or SageMaker).

Kept out of `settings` (plain data) so the import direction is one way: the app's wiring ->
settings and kokoro_stream. The SageMaker transport (AWS SDK, awscrt, botocore) is imported
only when the settings name an endpoint.
"""

from __future__ import annotations

from kokoro_stream.base import TtsTransport

from .settings import AgentSettings


def tts_transport(settings: AgentSettings) -> TtsTransport:
    """TTS_URL selects the WebSocket transport, else TTS_ENDPOINT_NAME selects SageMaker."""
    if settings.tts_url:
        from kokoro_stream.websocket import WebSocketTts

        return WebSocketTts(settings.tts_url)
    if settings.tts_endpoint_name:
        from kokoro_stream.sagemaker import SageMakerBidiTts

        return SageMakerBidiTts(settings.tts_endpoint_name, region=settings.region)
    raise ValueError("set TTS_URL (local container) or TTS_ENDPOINT_NAME (SageMaker)")
