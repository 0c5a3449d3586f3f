"""Pipecat text-to-speech services for streaming Kokoro-82M (this repository's TTS server).

    from pipecat_kokoro import KokoroSageMakerTTSService, KokoroWebSocketTTSService

Named apart from Pipecat's own `KokoroTTSService` (in-process Kokoro): these speak to a
Kokoro server over its bidirectional session protocol (the `kokoro_stream` client).
"""

from .errors import KokoroErrorFrame
from .service import KokoroStreamTTSService, KokoroTTSSettings
from .services import KokoroSageMakerTTSService, KokoroWebSocketTTSService

__all__ = [
    "KokoroErrorFrame",
    "KokoroSageMakerTTSService",
    "KokoroStreamTTSService",
    "KokoroTTSSettings",
    "KokoroWebSocketTTSService",
]
