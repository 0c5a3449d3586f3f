"""Hypothesis strategies for session scripts: bad frames paired with the error code the
server must answer, valid steps (text deltas, utterances, flush, cancel, start), and an
oracle of what the client must hear back."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from kokoro_server.audio.encoding import FORMATS, SAMPLE_RATES
from kokoro_server.config import Settings

LIMITS = Settings()  # the defaults the fuzzed servers run with


@dataclass(frozen=True)
class Step:
    """One frame to send. `code`: the error it must provoke (None for a valid frame)."""

    payload: str | bytes
    code: str | None = None
    text: str = ""  # text this frame adds to the session (valid text/utterance frames)
    flush: bool = False  # valid flush or utterance
    cancel: bool = False
    label: str = ""

    def __repr__(self) -> str:  # keep hypothesis' falsifying examples readable
        body = self.payload if len(self.payload) < 120 else self.payload[:100]
        more = "..." if body is not self.payload else ""
        return f"Step({self.label}, code={self.code}, {body!r}{more})"


@dataclass
class Script:
    steps: list[Step]
    final_text: str
    after_close: list[bytes | str] = field(default_factory=list)

    @property
    def frames_sent(self) -> int:
        return len(self.steps) + 2 + len(self.after_close)  # + final utterance + close


def _dumps(obj: Any) -> str:
    return json.dumps(obj, allow_nan=True)


def _as_frame(data: st.DrawFn, text: str) -> str | bytes:
    """SageMaker delivers client frames as binary; browsers send text: both must work."""
    return text.encode("utf-8") if data(st.booleans()) else text


# ---- text content ------------------------------------------------------------------------

ALPHABET = st.sampled_from(
    [*"abcdefghij KLMNOP qrstu VWXYZ 0123456789 .,;:!?'\"()-\n", "。", "你好", "é", "🙂", "..."]
)
FUZZ_TEXT = st.lists(ALPHABET, min_size=1, max_size=40).map("".join)
SHORT_SENTENCES = st.sampled_from(["Yes.", "Okay then.", "Hi there.", "Right.", "Thanks."])

# ---- bad frames --------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@st.composite
def non_utf8(draw: st.DrawFn) -> Step:
    head, tail = draw(st.binary(max_size=16)), draw(st.binary(max_size=16))
    bad = draw(st.sampled_from([b"\xff", b"\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"]))
    return Step(head + bad + tail, "invalid_json", label="non-utf8")


@st.composite
def truncated_json(draw: st.DrawFn) -> Step:
    obj = draw(st.sampled_from([{"type": "text", "text": "Hello there."}, {"type": "flush"}]))
    text = json.dumps(obj)
    cut = draw(st.integers(1, len(text) - 1))
    return Step(_as_frame(draw, text[:cut]), "invalid_json", label="truncated")


@st.composite
def not_an_object(draw: st.DrawFn) -> Step:
    value = draw(JSON_VALUES.filter(lambda v: not isinstance(v, dict)))
    return Step(_as_frame(draw, json.dumps(value)), "invalid_json", label="not-object")


@st.composite
def empty_frame(draw: st.DrawFn) -> Step:
    return Step(
        _as_frame(draw, draw(st.sampled_from(["", " ", "\n"]))), "invalid_json", label="empty"
    )


@st.composite
def deep_nesting(draw: st.DrawFn) -> Step:
    # json's recursion guard trips near 1,500; 10,000 levels still fit in one 64 KiB frame
    depth = draw(st.integers(2_000, 10_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    inner = opener * depth + "1" + closer * depth
    text = '{"type":"text","text":"Hi.","x":' + inner + "}"
    return Step(_as_frame(draw, text), "invalid_json", label=f"nested-{depth}")


@st.composite
def huge_text(draw: st.DrawFn) -> Step:
    n = draw(st.integers(LIMITS.max_text_chars + 1, LIMITS.max_frame_bytes - 100))
    text = _dumps({"type": "text", "text": "a" * n})
    return Step(_as_frame(draw, text), "text_too_long", label=f"text-{n}")


@st.composite
def huge_frame(draw: st.DrawFn) -> Step:
    # Over the session's frame limit but under the WebSocket limit (4x), so the session sees it.
    n = draw(st.integers(LIMITS.max_frame_bytes + 1, LIMITS.max_frame_bytes * 3))
    text = _dumps({"type": "flush", "pad": "b" * n})
    return Step(_as_frame(draw, text), "frame_too_large", label=f"frame-{n}")


BAD_SPEEDS = (
    st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, -0.0, 1e308, 100.0, 0.01])
    | st.floats(max_value=0.0)
    | st.floats(min_value=2.5, allow_infinity=True)
    | st.text(max_size=4)
    | st.booleans()
    | st.lists(st.integers(), max_size=2)
)


@st.composite
def wrong_types(draw: st.DrawFn) -> Step:
    kind = draw(st.sampled_from(["type", "text", "speed", "voice", "format", "rate", "rid"]))
    if kind == "type":
        bad_type = draw(
            st.one_of(
                st.integers(),
                st.lists(st.text(max_size=3), max_size=2),
                st.text(max_size=10).filter(
                    lambda s: s not in ("start", "text", "flush", "cancel", "close")
                ),
                st.sampled_from(["TEXT", "Start", "text ", "utterance", "session_end"]),
            )
        )
        return Step(
            _as_frame(draw, _dumps({"type": bad_type, "text": "x"})), "unknown_type", label="type"
        )
    if kind == "text":
        obj: dict[str, Any] = {"type": "text"}
        missing = draw(st.booleans())
        if not missing:
            obj["text"] = draw(JSON_VALUES.filter(lambda v: not isinstance(v, str)))
        return Step(_as_frame(draw, _dumps(obj)), "missing_text", label="text-type")
    if kind == "speed":
        msg = draw(st.sampled_from(["start", "text"]))
        obj = {"type": msg, "speed": draw(BAD_SPEEDS)}
        if msg == "text":
            obj["text"] = "Dropped sentence."
        payload = _dumps(obj)
        return Step(_as_frame(draw, payload), "bad_parameter", label=f"speed-{msg}")
    if kind == "voice":
        voice = draw(
            st.sampled_from(["", 0, 1.5, True]) | st.lists(st.text(max_size=3), max_size=2)
        )
        return Step(
            _as_frame(draw, _dumps({"type": "start", "voice": voice})),
            "bad_parameter",
            label="voice-type",
        )
    if kind == "format":
        fmt = draw(st.text(max_size=5).filter(lambda f: f not in FORMATS) | st.integers())
        return Step(
            _as_frame(draw, _dumps({"type": "start", "format": fmt})),
            "bad_parameter",
            label="format",
        )
    if kind == "rate":
        rate = draw(
            st.integers().filter(lambda r: r not in SAMPLE_RATES)
            | st.sampled_from([True, "24000", 0, 24000.5])
        )
        return Step(
            _as_frame(draw, _dumps({"type": "start", "sample_rate": rate})),
            "bad_parameter",
            label="rate",
        )
    rid = draw(
        st.lists(st.integers(), max_size=2)
        | st.dictionaries(st.text(max_size=2), st.integers(), max_size=1)
        | st.floats()
    )
    return Step(
        _as_frame(draw, _dumps({"type": "start", "request_id": rid})),
        "bad_parameter",
        label="request-id",
    )


@st.composite
def huge_number(draw: st.DrawFn) -> Step:
    """A JSON number no sane field takes, written as raw JSON: hundreds to thousands of
    digits (past what a float holds, past Python's integer-conversion limit), or an exponent
    past any float, in a numeric field of `start` or `text`."""
    digits = draw(st.integers(min_value=129, max_value=6000))
    sign = draw(st.sampled_from(["", "-"]))
    field = draw(st.sampled_from(["speed", "pause_scale", "sample_rate", "frame_ms"]))
    shapes = [sign + "9" * digits, f"{sign}1{'0' * digits}.5", f"{sign}1e{digits}"]
    if field in ("speed", "sample_rate"):  # 0 is valid for the others (no pauses, no framing)
        shapes.append(f"{sign}0.{'0' * digits}1")
    literal = draw(st.sampled_from(shapes))
    msg = "start" if field != "speed" else draw(st.sampled_from(["start", "text"]))
    text = ', "text": "Dropped sentence."' if msg == "text" else ""
    payload = f'{{"type": "{msg}", "{field}": {literal}{text}}}'
    return Step(_as_frame(draw, payload), "bad_parameter", label=f"huge-{field}")


@st.composite
def lone_surrogate(draw: st.DrawFn) -> Step:
    code = draw(st.integers(0xD800, 0xDFFF))
    field = draw(st.sampled_from(["text", "utterance", "request_id"]))
    escaped = f"Hi \\u{code:04x} there."
    if field == "request_id":
        text = f'{{"type": "start", "request_id": "{escaped}"}}'
    elif field == "text":
        text = f'{{"type": "text", "text": "{escaped}"}}'
    else:
        text = f'{{"text": "{escaped}"}}'
    return Step(_as_frame(draw, text), "bad_parameter", label=f"surrogate-{field}")


def unknown_voice(voices: tuple[str, ...]) -> st.SearchStrategy[Step]:
    @st.composite
    def build(draw: st.DrawFn) -> Step:
        # A plain name: "+" and ":" make a blend, whose syntax has errors of its own
        # (bad_parameter; tests/container/test_voice_blends.py).
        voice = draw(
            st.text(min_size=1, max_size=20).filter(
                lambda v: v not in voices and "+" not in v and ":" not in v
            )
        )
        msg = draw(st.sampled_from(["start", "text", "utterance"]))
        obj: dict[str, Any] = {"voice": voice}
        if msg != "utterance":
            obj["type"] = msg
        if msg != "start":
            obj["text"] = "Never spoken."
        return Step(_as_frame(draw, _dumps(obj)), "unknown_voice", label=f"voice-{msg}")

    return build()


# ---- valid steps -------------------------------------------------------------------------

EXTRA_FIELDS = st.dictionaries(
    st.sampled_from(["foo", "meta", "x", "priority"]), JSON_VALUES, max_size=2
)


def valid_text(sentences: st.SearchStrategy[str], voice: str) -> st.SearchStrategy[list[Step]]:
    """A sentence cut into deltas, each a text frame (with harmless unknown fields)."""

    @st.composite
    def build(draw: st.DrawFn) -> list[Step]:
        text = draw(sentences) + draw(st.sampled_from([" ", "", "\n"]))
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        steps = []
        for piece in pieces:
            obj: dict[str, Any] = {"type": "text", "text": piece, **draw(EXTRA_FIELDS)}
            if draw(st.booleans()):
                obj.update(voice=voice, speed=1.0)  # explicit, same as the default
            steps.append(Step(_as_frame(draw, _dumps(obj)), text=piece, label="text"))
        return steps

    return build()


def utterance(sentences: st.SearchStrategy[str]) -> st.SearchStrategy[list[Step]]:
    @st.composite
    def build(draw: st.DrawFn) -> list[Step]:
        text = draw(sentences)
        return [
            Step(_as_frame(draw, _dumps({"text": text})), text=text, flush=True, label="utterance")
        ]

    return build()


@st.composite
def control(draw: st.DrawFn, allow_cancel: bool = True) -> list[Step]:
    kinds = ["flush", "start"] + (["cancel"] if allow_cancel else [])
    kind = draw(st.sampled_from(kinds))
    obj: dict[str, Any] = {"type": kind, **draw(EXTRA_FIELDS)}
    if kind == "start":
        obj.update(
            format="pcm", sample_rate=24000, request_id=draw(st.text(max_size=8) | st.integers())
        )
    return [
        Step(
            _as_frame(draw, _dumps(obj)), flush=kind == "flush", cancel=kind == "cancel", label=kind
        )
    ]


def scripts(
    voices: tuple[str, ...],
    sentences: st.SearchStrategy[str] = FUZZ_TEXT,
    max_steps: int = 12,
    max_texts: int | None = None,
) -> st.SearchStrategy[Script]:
    """Interleavings of bad frames and valid steps, ending with an utterance and `close`."""
    bad = st.one_of(
        non_utf8(),
        truncated_json(),
        not_an_object(),
        empty_frame(),
        deep_nesting(),
        huge_text(),
        huge_frame(),
        wrong_types(),
        lone_surrogate(),
        huge_number(),
        unknown_voice(voices),
    ).map(lambda s: [s])
    good_text = st.one_of(valid_text(sentences, voices[0]), utterance(sentences))

    @st.composite
    def build(draw: st.DrawFn) -> Script:
        groups = draw(
            st.lists(st.one_of(bad, bad, good_text, control()), min_size=1, max_size=max_steps)
        )
        steps = [s for g in groups for s in g]
        if max_texts is not None:  # real model: cap the sentences to synthesize
            texts = 0
            kept = []
            for s in steps:
                texts += bool(s.text)
                if not s.text or texts <= max_texts:
                    kept.append(s)
            steps = kept
        after = draw(st.lists(st.sampled_from(list(LATE_FRAMES)), max_size=2))
        return Script(steps, draw(sentences.filter(lambda t: squash_nonempty(t))), after)

    return build()


# Frames sent after `close`, with the error each gets if the server reads it before its
# `session_end` (it reads until then: only `cancel` is taken after close).
LATE_FRAMES: dict[bytes | str, str] = {
    b"\xff": "invalid_json",
    "{": "invalid_json",
    '{"type":"text","text":"late."}': "session_closing",
}


def squash_nonempty(text: str) -> bool:
    return bool("".join(text.split()))
