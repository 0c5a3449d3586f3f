"""Session protocol v1: parsing and validating client frames, building server messages.

Pure functions with no I/O, so every rule is testable on its own. See docs/protocol.md.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from kokoro_server.audio import g711
from kokoro_server.audio.encoding import DEFAULT_RATES, FORMATS, RATES, SAMPLE_RATES
from kokoro_server.engine.pacing import MAX_PAUSE_SCALE, MIN_PAUSE_SCALE
from kokoro_server.model_facts import MAX_SPEED, MIN_SPEED
from kokoro_server.serving.messages import ClientType, ServerType
from kokoro_server.text.emoji_speech import EMOJI_MODES, EmojiMode

CLIENT_TYPES = tuple(ClientType)
UTTERANCE = "utterance"  # the parsed type of a frame with `text` and no `type`
# No field takes a longer integer (request_id keeps 128 characters). Longer ones are read as an
# infinity of their sign, which every field's check refuses, so the error names the field;
# converting them costs time quadratic in their length, and past Python's limit (4,300 digits)
# raises ValueError inside json.loads.
MAX_INT_DIGITS = 128
# Kokoro's voice names have about 10 characters; a blend of 4 with weights fits in 128
# (`bf_isabella:0.3333+...` takes 75).
MAX_VOICE_CHARS = 128
EXCERPT_CHARS = 80  # the most of a client's own value an error message quotes back


class ProtocolError(Exception):
    """A client mistake: reported as an `error` message, never fatal to the server."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Options:
    """Synthesis options; None means "inherit the session default"."""

    voice: str | None = None
    speed: float | None = None
    format: str | None = None
    sample_rate: int | None = None
    frame_ms: int | None = None  # G.711 only; 0 turns framing off


@dataclass(frozen=True)
class ClientMessage:
    type: str  # a ClientType, or UTTERANCE (a bare {"text": ...} frame)
    text: str = ""
    options: Options = Options()
    request_id: str | None = None
    lexicon: dict[str, str] | None = None  # `start` only: word -> phonemes for the session
    word_timestamps: bool | None = None  # v1.1, `start` only
    emoji: EmojiMode | None = None  # `start` only: "drop" or "name" (text/emoji_speech.py)
    pause_scale: float | None = None  # `start` only: scales the pauses between pieces


def excerpt(value: object) -> str:
    """`value` as an error message quotes it: its repr, cut to EXCERPT_CHARS."""
    shown = repr(value)
    return shown if len(shown) <= EXCERPT_CHARS else shown[: EXCERPT_CHARS - 3] + "..."


def _bounded_int(digits: str) -> int | float:
    if len(digits.lstrip("-")) <= MAX_INT_DIGITS:
        return int(digits)
    return -math.inf if digits.startswith("-") else math.inf


def decode_frame(payload: str | bytes, max_bytes: int) -> dict[str, Any]:
    """Text or binary frame -> JSON object. SageMaker delivers client payloads as binary."""
    size = len(payload.encode("utf-8")) if isinstance(payload, str) else len(payload)
    if size > max_bytes:
        raise ProtocolError("frame_too_large", f"frame of {size} bytes exceeds {max_bytes}")
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError("invalid_json", f"binary frame is not UTF-8: {exc}") from exc
    try:
        obj = json.loads(payload, parse_int=_bounded_int)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError("invalid_json", f"frame is not valid JSON: {exc}") from exc
    except ValueError as exc:  # a number json itself cannot convert: not the client's JSON
        raise ProtocolError("bad_parameter", f"frame holds a number out of range: {exc}") from exc
    if not isinstance(obj, dict):
        raise ProtocolError("invalid_json", "frame must be a JSON object")
    return obj


def _voice(obj: dict[str, Any]) -> str | None:
    voice = obj.get("voice")
    if voice is None:
        return None
    if not isinstance(voice, str) or not voice:
        raise ProtocolError("bad_parameter", "voice must be a non-empty string")
    if len(voice) > MAX_VOICE_CHARS:
        raise ProtocolError(  # not a name at all, like a voice that is not a string
            "bad_parameter",
            f"voice must be a name or blend of at most {MAX_VOICE_CHARS} characters, not "
            f"{excerpt(voice)} ({len(voice)} characters)",
        )
    return voice


def _finite(value: object) -> float | None:
    """A JSON number as a finite float, else None (not a number, infinite, NaN, or an
    integer too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _number_field(obj: dict[str, Any], key: str, low: float, high: float) -> float | None:
    """`obj[key]`: None when it is absent, else a finite number in [low, high]."""
    value = obj.get(key)
    if value is None:
        return None
    number = _finite(value)
    if number is None or not low <= number <= high:
        raise ProtocolError("bad_parameter", f"{key} must be a number between {low} and {high}")
    return number


def _speed(obj: dict[str, Any]) -> float | None:
    return _number_field(obj, "speed", MIN_SPEED, MAX_SPEED)


def _format(obj: dict[str, Any]) -> str | None:
    fmt = obj.get("format")
    if fmt is None:
        return None
    if fmt not in FORMATS:
        raise ProtocolError("bad_parameter", f"format must be one of {', '.join(FORMATS)}")
    return str(fmt)


def _int_of(obj: dict[str, Any], key: str, allowed: tuple[int, ...], shown: str) -> int | None:
    """An optional field that must be one of a few integers (a bool is not one, though
    Python compares True == 1)."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or value not in allowed:
        raise ProtocolError("bad_parameter", f"{key} must be one of {shown}")
    return int(value)


def _sample_rate(obj: dict[str, Any]) -> int | None:
    return _int_of(obj, "sample_rate", SAMPLE_RATES, ", ".join(str(r) for r in SAMPLE_RATES))


def _frame_ms(obj: dict[str, Any]) -> int | None:
    allowed = ", ".join(str(ms) for ms in g711.FRAME_MS)
    return _int_of(obj, "frame_ms", (0, *g711.FRAME_MS), f"{allowed} (or 0: unframed)")


def _emoji(obj: dict[str, Any]) -> EmojiMode | None:
    mode = obj.get("emoji")
    if mode is None:
        return None
    for known in EMOJI_MODES:
        if mode == known:
            return known
    raise ProtocolError("bad_parameter", f"emoji must be one of {', '.join(EMOJI_MODES)}")


def check_combination(options: Options) -> None:
    """Format, sample rate and framing that only work together (after merging defaults)."""
    fmt = options.format or "pcm"
    rate = options.sample_rate
    if rate is not None and rate not in RATES[fmt]:
        allowed = " or ".join(str(r) for r in RATES[fmt])
        raise ProtocolError(
            "bad_parameter", f"format {fmt} needs sample_rate {allowed}, not {rate}"
        )
    if options.frame_ms and fmt not in g711.LAWS:
        raise ProtocolError(
            "bad_parameter", f"frame_ms applies to ulaw and alaw only, not {fmt} (send frame_ms 0)"
        )


def effective_rate(options: Options) -> int:
    """The sample rate audio is sent at: the one asked for, else the format's default."""
    fmt = options.format or "pcm"
    return options.sample_rate or DEFAULT_RATES[fmt]


def pause_scale_field(obj: dict[str, Any]) -> float | None:
    """`pause_scale`: every pause the server adds between pieces, times this (0: none)."""
    return _number_field(obj, "pause_scale", MIN_PAUSE_SCALE, MAX_PAUSE_SCALE)


def lexicon_field(obj: dict[str, Any]) -> dict[str, str] | None:
    """The shape of `lexicon`; its phonemes are checked against the model's vocabulary later."""
    lexicon = obj.get("lexicon")
    if lexicon is None:
        return None
    if not isinstance(lexicon, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in lexicon.items()
    ):
        raise ProtocolError("bad_parameter", "lexicon must be an object of word -> phonemes")
    return {
        _encodable(k, "lexicon word"): _encodable(v, "lexicon phonemes") for k, v in lexicon.items()
    }


def _text(obj: dict[str, Any], max_chars: int) -> str:
    if "text" not in obj:
        raise ProtocolError("missing_text", "a text message needs a 'text' field")
    text = obj["text"]
    if not isinstance(text, str):
        raise ProtocolError("missing_text", "'text' must be a string")
    if len(text) > max_chars:
        raise ProtocolError("text_too_long", f"text of {len(text)} chars exceeds {max_chars}")
    return _encodable(text, "text")


def _encodable(value: str, name: str) -> str:
    """JSON escapes can carry unpaired surrogates (\\ud800) that no UTF-8 frame can echo."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProtocolError(
            "bad_parameter", f"{name} holds an unpaired surrogate at character {exc.start}"
        ) from None
    return value


def parse_message(obj: dict[str, Any], max_text_chars: int) -> ClientMessage:
    """Validate a decoded frame. Raises ProtocolError with the documented error codes
    (docs/protocol.md)."""
    kind = obj.get("type")
    if kind is None:
        if "text" not in obj:
            raise ProtocolError("unknown_type", "frame has neither 'type' nor 'text'")
        kind = UTTERANCE
    elif not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {excerpt(kind)}")

    if kind == ClientType.START:
        request_id = obj.get("request_id")
        if request_id is not None and not isinstance(request_id, str | int):
            raise ProtocolError("bad_parameter", "request_id must be a string")
        options = Options(_voice(obj), _speed(obj), _format(obj), _sample_rate(obj), _frame_ms(obj))
        rid = None if request_id is None else _encodable(str(request_id)[:128], "request_id")
        word_timestamps = obj.get("word_timestamps")
        if word_timestamps is not None and not isinstance(word_timestamps, bool):
            raise ProtocolError("bad_parameter", "word_timestamps must be true or false")
        return ClientMessage(
            ClientType.START,
            options=options,
            request_id=rid,
            lexicon=lexicon_field(obj),
            word_timestamps=word_timestamps,
            emoji=_emoji(obj),
            pause_scale=pause_scale_field(obj),
        )
    if kind in (ClientType.TEXT, UTTERANCE):
        text = _text(obj, max_text_chars)
        return ClientMessage(kind, text=text, options=Options(_voice(obj), _speed(obj)))
    return ClientMessage(kind)


def message(kind: ServerType, **fields: Any) -> str:
    """A server control message as the JSON text of one text frame."""
    return json.dumps({"type": kind, **fields}, ensure_ascii=False, separators=(",", ":"))


# One builder per server message type: the fields each one carries on the wire.


def sentence_start(index: int, text: str, audio_format: str, sample_rate: int) -> str:
    return message(
        ServerType.SENTENCE_START,
        index=index,
        text=text,
        format=audio_format,
        sample_rate=sample_rate,
    )


def words(index: int, timed: list[dict[str, Any]]) -> str:
    """v1.1: each word of sentence `index` with its start_ms and end_ms in the audio."""
    return message(ServerType.WORDS, index=index, words=timed)


def synthesis_complete(index: int, audio_bytes: int, duration_s: float, synth_ms: float) -> str:
    return message(
        ServerType.SYNTHESIS_COMPLETE,
        index=index,
        audio_bytes=audio_bytes,
        duration_s=duration_s,
        synth_ms=synth_ms,
    )


def flushed() -> str:
    return message(ServerType.FLUSHED)


def cancelled(dropped: int) -> str:
    return message(ServerType.CANCELLED, dropped=dropped)


def error(
    code: str, text: str, fatal: bool = False, *, index: int | None = None, sentence: str = ""
) -> str:
    """An error; one about a sentence that was not spoken names its `index` and `text`."""
    if index is None and not sentence:
        return message(ServerType.ERROR, code=code, message=text, fatal=fatal)
    extra: dict[str, Any] = (
        {"text": sentence} if index is None else {"index": index, "text": sentence}
    )
    return message(ServerType.ERROR, code=code, message=text, fatal=fatal, **extra)


def session_end(sentences: int, audio_s: float) -> str:
    return message(ServerType.SESSION_END, sentences=sentences, audio_s=audio_s)
