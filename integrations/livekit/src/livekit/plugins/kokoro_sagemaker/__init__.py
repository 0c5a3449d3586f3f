"""Kokoro-82M text-to-speech for LiveKit Agents, over the Kokoro server's bidirectional
session: a SageMaker endpoint (HTTP/2 bidirectional stream) or a local container (WebSocket).

    from livekit.plugins import kokoro_sagemaker
    tts = kokoro_sagemaker.TTS.websocket("ws://127.0.0.1:8080", voice="jf_alpha")
    tts = kokoro_sagemaker.TTS.sagemaker("kokoro-tts", region="us-east-1", voice="af_heart")
"""

from livekit.agents import Plugin

from .log import logger
from .tts import TTS, ChunkedStream, SynthesizeStream
from .version import __version__

__all__ = ["TTS", "ChunkedStream", "SynthesizeStream", "__version__"]


class KokoroSageMakerPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__(__name__, __version__, __package__, logger)


Plugin.register_plugin(KokoroSageMakerPlugin())
