"""Validation of the invocation payload
{"prompt", "mode"?, "voice"?, "format"?, "speed"?, "session_id"?, "interrupted"?: {"played_ms"}},
and of the one other request, `{"list": "voices"}`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kokoro_stream.messages import SPEED_RANGE

MODES = ("stream", "batch")
FORMATS = ("pcm", "wav", "mp3", "ulaw", "alaw", "opus")
# Formats with one sample rate only (G.711 is 8 kHz; Ogg Opus decodes at 48 kHz): the TTS
# server refuses any other, so the agent's configured rate applies to pcm/wav/mp3 alone.
FIXED_RATES = {"ulaw": 8000, "alaw": 8000, "opus": 48000}
MAX_PROMPT_CHARS = 8000
MAX_SESSION_ID_CHARS = 256  # AgentCore's own limit for runtimeSessionId
MAX_VOICE_CHARS = 128  # the TTS server's limit: four voices of a blend with their weights
EXCERPT_CHARS = 80  # the most of a caller's own value an error message quotes back
# No field takes an integer this long; longer ones decode as an infinity of their sign (see
# bounded_int), which every numeric check refuses by field name.
MAX_INT_DIGITS = 32
_KNOWN = {"prompt", "mode", "voice", "format", "speed", "session_id", "interrupted"}
# Not an invocation: asks for the voices a caller can name (voice_list.py).
VOICE_LIST_REQUEST = {"list": "voices"}


class PayloadError(ValueError):
    code = "bad_request"


def excerpt(value: object) -> str:
    """`value` as an error message quotes it: its repr, cut to EXCERPT_CHARS."""
    shown = repr(value)
    return shown if len(shown) <= EXCERPT_CHARS else shown[: EXCERPT_CHARS - 3] + "..."


def bounded_int(digits: str) -> int | float:
    """`parse_int` for json.loads: converting a very long integer costs time quadratic in its
    length and, past Python's 4,300 digits, raises ValueError; no field needs one."""
    if len(digits.lstrip("-")) <= MAX_INT_DIGITS:
        return int(digits)
    return -math.inf if digits.startswith("-") else math.inf


@dataclass(frozen=True)
class Invocation:
    prompt: str
    mode: str = "stream"
    voice: str | None = None
    format: str = "pcm"
    speed: float | None = None  # the TTS's speaking rate; unset: the server's default (1.0)
    session_id: str | None = None  # names a conversation (with the runtime session id)
    interrupted_ms: float | None = None  # the caller heard this much of the previous answer


def wants_voice_list(payload: Any) -> bool:
    """Whether the payload is the voice-list request `{"list": "voices"}`. A `list` of any
    other value is PayloadError; one beside invocation fields is an unknown field of that
    invocation (parse_invocation names it)."""
    if not isinstance(payload, dict) or set(payload) != {"list"}:
        return False
    if payload != VOICE_LIST_REQUEST:
        raise PayloadError(f"'list' must be 'voices', got {excerpt(payload['list'])}")
    return True


def parse_invocation(payload: Any, default_voice: str | None = None) -> Invocation:
    """An Invocation, or PayloadError with a message naming the bad field."""
    if not isinstance(payload, dict):
        raise PayloadError(f"payload must be a JSON object, got {type(payload).__name__}")
    unknown = sorted(set(payload) - _KNOWN)
    if unknown:
        raise PayloadError(f"unknown field(s) {excerpt(unknown)}; allowed: {sorted(_KNOWN)}")
    # In this order: the first bad field is the one named.
    prompt = _prompt(payload.get("prompt"))
    mode = payload.get("mode", "stream")
    if mode not in MODES:
        raise PayloadError(f"'mode' must be one of {list(MODES)}, got {excerpt(mode)}")
    voice = _voice(payload.get("voice", default_voice))
    fmt = payload.get("format", "pcm")
    if fmt not in FORMATS:
        raise PayloadError(f"'format' must be one of {list(FORMATS)}, got {excerpt(fmt)}")
    return Invocation(
        prompt=prompt,
        mode=mode,
        voice=voice,
        format=fmt,
        speed=_speed(payload.get("speed")),
        session_id=_session_id(payload.get("session_id")),
        interrupted_ms=_interrupted_ms(payload.get("interrupted")),
    )


def _prompt(prompt: Any) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise PayloadError("'prompt' is required and must be a non-empty string")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise PayloadError(f"'prompt' is {len(prompt)} characters; the limit is {MAX_PROMPT_CHARS}")
    _check_unicode("prompt", prompt)
    return prompt


def _voice(voice: Any) -> str | None:
    if voice is None:
        return None
    if not isinstance(voice, str) or not voice.strip():
        raise PayloadError("'voice' must be a non-empty string")
    if len(voice) > MAX_VOICE_CHARS:
        raise PayloadError(
            f"'voice' is {len(voice)} characters; a voice or a blend has at most {MAX_VOICE_CHARS}"
        )
    _check_unicode("voice", voice)
    return voice


def _session_id(session_id: Any) -> str | None:
    if session_id is None:
        return None
    if not isinstance(session_id, str) or not 0 < len(session_id) <= MAX_SESSION_ID_CHARS:
        raise PayloadError(f"'session_id' must be a string of 1-{MAX_SESSION_ID_CHARS} characters")
    _check_unicode("session_id", session_id)
    return session_id


def _interrupted_ms(interrupted: Any) -> float | None:
    if interrupted is None:
        return None
    if not isinstance(interrupted, dict) or set(interrupted) != {"played_ms"}:
        raise PayloadError("'interrupted' must be an object with only 'played_ms'")
    return played_ms(interrupted["played_ms"], "interrupted.played_ms")


def _speed(value: Any) -> float | None:
    if value is None:
        return None
    low, high = SPEED_RANGE
    problem = PayloadError(f"'speed' must be a number from {low} to {high}, got {excerpt(value)}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise problem
    try:
        speed = float(value)  # a JSON integer has no bound: 1e400 as an int overflows here
    except OverflowError:
        raise problem from None
    if not low <= speed <= high:  # also false for NaN
        raise problem
    return speed


def played_ms(value: Any, name: str = "played_ms") -> float:
    """Milliseconds of an answer's audio the caller played: a finite number >= 0."""
    problem = PayloadError(f"'{name}' must be a number of milliseconds >= 0, got {excerpt(value)}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise problem
    try:
        ms = float(value)  # JSON integers have no bound: 1e400 as an int overflows here
    except OverflowError:
        raise problem from None
    if not math.isfinite(ms) or ms < 0:
        raise problem
    return ms


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
