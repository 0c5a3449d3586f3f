"""Pipecat text-to-speech services for streaming Kokoro-82M (this repository's TTS server).

from pipecat_kokoro import KokoroSageMakerTTSService, KokoroWebsocketTTSService
"""

from .service import KokoroErrorFrame, KokoroTTSService, KokoroTTSSettings
from .services import KokoroSageMakerTTSService, KokoroWebsocketTTSService

__all__ = [
    "KokoroErrorFrame",
    "KokoroSageMakerTTSService",
    "KokoroTTSService",
    "KokoroTTSSettings",
    "KokoroWebsocketTTSService",
]
