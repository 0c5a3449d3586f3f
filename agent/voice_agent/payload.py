"""Validation of the invocation payload {"prompt", "mode"?, "voice"?, "format"?}."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODES = ("stream", "batch")
FORMATS = ("pcm", "wav", "mp3", "ulaw", "alaw", "opus")
# Formats with one sample rate only (G.711 is 8 kHz; Ogg Opus decodes at 48 kHz): the TTS
# server refuses any other, so the agent's configured rate applies to pcm/wav/mp3 alone.
FIXED_RATES = {"ulaw": 8000, "alaw": 8000, "opus": 48000}
MAX_PROMPT_CHARS = 8000
_KNOWN = {"prompt", "mode", "voice", "format"}


class PayloadError(ValueError):
    code = "bad_request"


@dataclass(frozen=True)
class Invocation:
    prompt: str
    mode: str = "stream"
    voice: str | None = None
    format: str = "pcm"


def parse_invocation(payload: Any, default_voice: str | None = None) -> Invocation:
    """An Invocation, or PayloadError with a message naming the bad field."""
    if not isinstance(payload, dict):
        raise PayloadError(f"payload must be a JSON object, got {type(payload).__name__}")
    unknown = sorted(set(payload) - _KNOWN)
    if unknown:
        raise PayloadError(f"unknown field(s) {unknown}; allowed: {sorted(_KNOWN)}")
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise PayloadError("'prompt' is required and must be a non-empty string")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise PayloadError(f"'prompt' is {len(prompt)} characters; the limit is {MAX_PROMPT_CHARS}")
    _check_unicode("prompt", prompt)
    mode = payload.get("mode", "stream")
    if mode not in MODES:
        raise PayloadError(f"'mode' must be one of {list(MODES)}, got {mode!r}")
    voice = payload.get("voice", default_voice)
    if voice is not None and (not isinstance(voice, str) or not voice.strip()):
        raise PayloadError("'voice' must be a non-empty string")
    if voice is not None:
        _check_unicode("voice", voice)
    fmt = payload.get("format", "pcm")
    if fmt not in FORMATS:
        raise PayloadError(f"'format' must be one of {list(FORMATS)}, got {fmt!r}")
    return Invocation(prompt=prompt, mode=mode, voice=voice, format=fmt)


def _check_unicode(name: str, value: str) -> None:
    # JSON allows "\ud800"; such a string cannot be encoded to send on (the TTS WebSocket
    # would fail mid-frame), so it is a bad payload, not a TTS failure.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PayloadError(
            f"'{name}' is not valid Unicode: unpaired surrogate at position {exc.start}"
        ) from None


def tts_sample_rate(fmt: str, configured: int) -> int:
    """The sample rate to ask the TTS for in this format."""
    return FIXED_RATES.get(fmt, configured)
