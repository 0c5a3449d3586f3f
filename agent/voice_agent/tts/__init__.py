"""Pluggable TTS transports speaking the bidirectional session protocol v1."""

from .base import TtsAudio, TtsControl, TtsEvent, TtsFailure, TtsSession, TtsTransport

__all__ = ["TtsAudio", "TtsControl", "TtsEvent", "TtsFailure", "TtsSession", "TtsTransport"]
