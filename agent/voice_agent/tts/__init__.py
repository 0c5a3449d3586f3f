"""Pluggable TTS transports speaking the bidirectional session protocol v1."""

from .base import (
    TtsAudio,
    TtsControl,
    TtsEvent,
    TtsFailure,
    TtsSession,
    TtsTransport,
    TtsWord,
    TtsWords,
)

__all__ = [
    "TtsAudio",
    "TtsControl",
    "TtsEvent",
    "TtsFailure",
    "TtsSession",
    "TtsTransport",
    "TtsWord",
    "TtsWords",
]
