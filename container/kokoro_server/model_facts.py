"""Facts about Kokoro-82M that every layer shares (text, audio, engine, serving).

Kept apart from the engine so that the text and audio layers can name them without
importing ONNX Runtime, and so no layer imports upwards.
"""

from __future__ import annotations

SAMPLE_RATE = 24_000  # the model's output rate
MIN_SPEED, MAX_SPEED = 0.5, 2.0  # the speed range the model was trained for


class UnknownVoiceError(ValueError):
    def __init__(self, voice: str, known: list[str]) -> None:
        super().__init__(f"unknown voice {voice!r}; available: {', '.join(known)}")
        self.voice = voice


# A voice blend names up to this many voices: `af_bella:2+af_sky:1` (engine/voices.py).
MAX_BLEND_VOICES = 4
BLEND_SYNTAX = "name:weight+name:weight"


class VoiceSpecError(ValueError):
    """A `voice` that is neither a voice name nor a valid blend: the message says why."""
