"""Server settings, read once from environment variables (SageMaker passes the model's env).

Each field of `Settings` declares its variable, its meaning and its valid values once, with
`setting(...)`: `Settings.from_env` reads every variable from that declaration, and
`env_table()` renders the table in docs/container.md from it, so names, defaults, checks and
docs cannot drift apart.

    python -m kokoro_server.config   # prints the docs table (tests/container/test_settings_env.py)
"""

from __future__ import annotations

import dataclasses
import math
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Synthesis scheduling policies (serving/scheduler.py): by playback deadline, or first come.
POLICIES = ("deadline", "fifo")
PROVIDERS = ("auto", "cuda", "cpu")
# The values ONNX Runtime's CUDA provider accepts for cudnn_conv_algo_search.
CONV_ALGO_SEARCHES = ("HEURISTIC", "EXHAUSTIVE", "DEFAULT")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Env:
    """One setting's environment variable, its one-line meaning and its valid values."""

    name: str
    doc: str
    ge: float | None = None  # bounds: >=, >, <=, < (None: unbounded)
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[str, ...] = ()

    def allows(self, value: object) -> bool:
        if self.choices:
            return value in self.choices
        if isinstance(value, bool) or not isinstance(value, int | float):
            return True  # strings and flags have no range
        # Written so that NaN fails every bound; infinity is no useful limit or timeout.
        return math.isfinite(value) and all(
            (
                self.ge is None or value >= self.ge,
                self.gt is None or value > self.gt,
                self.le is None or value <= self.le,
                self.lt is None or value < self.lt,
            )
        )

    def rule(self) -> str:
        """The valid values in words: `>= 1`, `in (0, 100]`, `one of auto, cuda`; "" if any."""
        if self.choices:
            return f"one of {', '.join(self.choices)}"
        low, low_mark = (self.ge, "[") if self.gt is None else (self.gt, "(")
        high, high_mark = (self.le, "]") if self.lt is None else (self.lt, ")")
        if low is not None and high is not None:
            return f"in {low_mark}{_number(low)}, {_number(high)}{high_mark}"
        if low is not None:
            return f"{'>=' if low_mark == '[' else '>'} {_number(low)}"
        if high is not None:
            return f"{'<=' if high_mark == ']' else '<'} {_number(high)}"
        return ""

    def check(self, label: str, value: object, shown: str) -> None:
        if not self.allows(value):
            # A field with no declared rule fails only as NaN or infinity.
            raise ValueError(f"{label} must be {self.rule() or 'finite'}, got {shown}")


def setting[T](
    default: T,
    env: str,
    doc: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    choices: tuple[str, ...] = (),
) -> T:
    """A `Settings` field read from `env`; `doc` and the bounds also make its docs row."""
    spec = Env(env, doc, ge, gt, le, lt, choices)
    return field(default=default, metadata={"env": spec})


def _number(value: float) -> str:
    return f"{value:g}"


def _parse(name: str, raw: str, kind: object) -> object:
    """The variable's text as the field's type; a ValueError names the variable."""
    if kind is bool:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(f"{name} must be 1 or 0 (true or false), got {raw!r}")
    if kind is int or kind is float:
        try:
            return int(raw) if kind is int else float(raw)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ValueError(f"{name} must be {what}, got {raw!r}") from None
    return raw


@dataclass(frozen=True)
class Settings:
    """Everything tunable about the server. Defaults suit one SageMaker GPU instance.

    Out-of-range values fail here, in code as from the environment: a zero stall timeout
    would abort every session, a session limit under 1 would refuse every caller."""

    # SageMaker's contract: the container listens on 0.0.0.0:8080.
    host: str = setting(
        "0.0.0.0",  # noqa: S104
        "KOKORO_HOST",
        "bind address (the demo and tests use 127.0.0.1)",
    )
    port: int = setting(8080, "KOKORO_PORT", "listening port", ge=0, le=65535)
    model_dir: str = setting(
        "",
        "KOKORO_MODEL_DIR",
        "weights directory (`/opt/ml/model` on SageMaker); empty: the local weights package",
    )
    model_file: str = setting(
        "",
        "KOKORO_MODEL_FILE",
        "which `.onnx` file in the directory; empty: the preferred or the only one",
    )
    default_voice: str = setting(
        "",
        "KOKORO_VOICE",
        "default voice, or a blend (`af_bella:2+af_sky:1`); empty: the voice file's first",
    )
    user_voices_dir: str = setting(
        "",
        "KOKORO_USER_VOICES_DIR",
        "directory of extra voices (`.npy`, `.npz`/`.bin` packs) added to the official ones; "
        "empty: none",
    )
    # Mounted with the weights. The language is the voice's (its first letter), not a setting.
    lexicon: str = setting(
        "", "KOKORO_LEXICON", "JSON file of word -> phonemes used by every session; empty: none"
    )
    provider: str = setting(
        "auto",
        "KOKORO_PROVIDER",
        "ONNX Runtime provider: `auto` uses CUDA when the GPU build and a device are there",
        choices=PROVIDERS,
    )
    intra_op_threads: int = setting(
        0, "KOKORO_INTRA_OP_THREADS", "ONNX Runtime intra-op threads; 0: all cores", ge=0
    )
    # EXHAUSTIVE re-tunes on every new input length, which is every sentence here.
    cudnn_conv_algo_search: str = setting(
        "HEURISTIC",
        "KOKORO_CUDNN_CONV_ALGO_SEARCH",
        "cuDNN convolution algorithm search",
        choices=CONV_ALGO_SEARCHES,
    )
    ort_log_level: int = setting(
        3, "KOKORO_ORT_LOG_LEVEL", "ONNX Runtime log level (1 shows Memcpy nodes)", ge=0, le=4
    )
    synth_workers: int = setting(
        1, "KOKORO_SYNTH_WORKERS", "synthesis threads shared by all sessions", ge=1
    )
    # See serving/scheduler.py.
    scheduler: str = setting(
        "deadline",
        "KOKORO_SCHEDULER",
        "`deadline` (earliest playback deadline first) or `fifo` (arrival order, to compare)",
        choices=POLICIES,
    )
    scheduler_max_overtakes: int = setting(
        32,
        "KOKORO_SCHEDULER_MAX_OVERTAKES",
        "starvation guard: later sentences that may pass a queued one",
        ge=0,
    )
    preempt_max: int = setting(
        1,
        "KOKORO_PREEMPT_MAX",
        "pre-emption: how often one sentence's model call may be stopped and requeued for a "
        "sentence due sooner (`deadline` scheduler); 0: never",
        ge=0,
    )
    preempt_slack_s: float = setting(
        0.25,
        "KOKORO_PREEMPT_SLACK_S",
        "pre-emption: audio a stopped sentence's listener (and every other queued one's) must "
        "still have in hand when its rerun ends",
        ge=0,
    )
    # Protocol limits.
    max_frame_bytes: int = setting(
        64 * 1024, "KOKORO_MAX_FRAME_BYTES", "largest client frame", ge=1
    )
    max_text_chars: int = setting(10_000, "KOKORO_MAX_TEXT_CHARS", "largest text message", ge=1)
    max_buffered_chars: int = setting(
        20_000, "KOKORO_MAX_BUFFERED_CHARS", "unsentenced text held per session", ge=1
    )
    max_queued_sentences: int = setting(
        64, "KOKORO_MAX_QUEUED_SENTENCES", "sentences waiting for synthesis per session", ge=1
    )
    max_sessions: int = setting(
        32, "KOKORO_MAX_SESSIONS", "admission control: open sessions; beyond, `busy`", ge=1
    )
    # The capacity is measured in capacity.py.
    max_load: float = setting(
        1.0,
        "KOKORO_MAX_LOAD",
        "admission control: `busy` while speaking sessions + 1 exceed this x measured "
        "capacity; 0: by session count only",
        ge=0,
    )
    # So that a burst of new sessions cannot all pass the load check before any of them speaks.
    admission_hold_s: float = setting(
        10.0,
        "KOKORO_ADMISSION_HOLD_S",
        "admission control: how long an admitted session that has sent no text yet counts "
        "as speaking",
        ge=0,
    )
    # With one worker, the k-th caller of a burst otherwise waits for k-1 first sentences.
    max_starting: int = setting(
        0,
        "KOKORO_MAX_STARTING",
        "admission control: at most this many admitted sessions still waiting for their first "
        "audio (1 keeps a burst's admitted callers within 1.5x of a solo first audio on one "
        "worker); 0: no limit",
        ge=0,
    )
    # A client that stopped reading would otherwise hold its slot, and its sentences, forever.
    idle_timeout_s: float = setting(
        300.0,
        "KOKORO_IDLE_TIMEOUT_S",
        "a session with no client message and no audio accepted for this long ends "
        "(`idle_timeout`), text pending or not",
        gt=0,
    )
    send_stall_s: float = setting(
        10.0,
        "KOKORO_SEND_STALL_S",
        "a session whose client accepts no audio for this long is aborted and its slot freed "
        "(`session stalled`)",
        gt=0,
    )
    # SageMaker kills the container 30 s after SIGTERM. See serving/drain.py.
    drain_s: float = setting(
        25.0,
        "KOKORO_DRAIN_S",
        "on SIGTERM, how long sessions may finish speaking before they are closed; 0: at once",
        ge=0,
    )
    # Connections (serving/connections.py); neither touches an upgraded WebSocket session.
    header_timeout_s: float = setting(
        10.0,
        "KOKORO_HEADER_TIMEOUT_S",
        "an HTTP connection whose request head is not complete this long after the accept (or "
        "after its first byte on a kept-alive connection) is closed; never an open WebSocket",
        gt=0,
    )
    keep_alive_s: int = setting(
        75,
        "KOKORO_KEEP_ALIVE_S",
        "a kept-alive HTTP connection with no next request is closed after this (uvicorn "
        "`timeout_keep_alive`; longer than typical load balancer idle timeouts)",
        ge=1,
    )
    audio_frame_bytes: int = setting(
        16 * 1024, "KOKORO_AUDIO_FRAME_BYTES", "largest binary audio frame", ge=1
    )
    max_segment_chars: int = setting(
        250,
        "KOKORO_MAX_SEGMENT_CHARS",
        "segmenter's longest piece (well under the model's 510 phonemes)",
        ge=1,
    )
    first_clause_min_chars: int = setting(
        20,
        "KOKORO_FIRST_CLAUSE_MIN_CHARS",
        "a first clause is released early once it has this many characters",
        ge=0,
    )
    # Pacing (engine/pacing.py): every model call is cut to its audible span, then each piece
    # gets the pause its ending calls for. Pacing checks the release level against the
    # threshold itself (a rule between two settings).
    pacing: bool = setting(
        True,
        "KOKORO_PACING",
        "trim the model's silence and add paced pauses; 0: the model's audio as it is",
    )
    trim_threshold_dbfs: float = setting(
        -50.0,
        "KOKORO_TRIM_THRESHOLD_DBFS",
        "a window is sound when its RMS reaches this",
        ge=-120,
        lt=0,
    )
    trim_window_ms: float = setting(
        5.0, "KOKORO_TRIM_WINDOW_MS", "window length for that judgement", gt=0, le=100
    )
    trim_lead_ms: float = setting(
        15.0, "KOKORO_TRIM_LEAD_MS", "kept before the first sound window", ge=0, le=1000
    )
    trim_tail_ms: float = setting(
        40.0, "KOKORO_TRIM_TAIL_MS", "kept after the last sound window", ge=0, le=1000
    )
    trim_fade_ms: float = setting(
        5.0, "KOKORO_TRIM_FADE_MS", "linear ramp at each cut edge", ge=0, le=1000
    )
    trim_release_dbfs: float = setting(
        -70.0,
        "KOKORO_TRIM_RELEASE_DBFS",
        "the end also keeps a release (a stop's burst, a fading fricative): the last window at "
        "this level within KOKORO_TRIM_RELEASE_MS after the last sound window; at most the "
        "threshold",
        ge=-120,
        lt=0,
    )
    trim_release_ms: float = setting(
        200.0,
        "KOKORO_TRIM_RELEASE_MS",
        "how far after the last sound window a release is looked for; 0: none",
        ge=0,
        le=1000,
    )
    pause_sentence_ms: float = setting(
        400.0, "KOKORO_PAUSE_SENTENCE_MS", "pause after `.` `!` `…` `。`", ge=0, le=10_000
    )
    pause_question_ms: float = setting(
        450.0, "KOKORO_PAUSE_QUESTION_MS", "pause after `?`", ge=0, le=10_000
    )
    pause_paragraph_ms: float = setting(
        600.0,
        "KOKORO_PAUSE_PARAGRAPH_MS",
        "pause at a line break (paragraph, list item)",
        ge=0,
        le=10_000,
    )
    pause_clause_ms: float = setting(
        200.0,
        "KOKORO_PAUSE_CLAUSE_MS",
        "pause after a first clause or a cut at a clause boundary",
        ge=0,
        le=10_000,
    )
    pause_hard_ms: float = setting(
        40.0,
        "KOKORO_PAUSE_HARD_MS",
        "pause where a long clause had to be cut between words: a breath",
        ge=0,
        le=10_000,
    )
    pause_end_ms: float = setting(
        400.0,
        "KOKORO_PAUSE_END_MS",
        "pause after unterminated text released by `flush`",
        ge=0,
        le=10_000,
    )
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f, spec in env_fields():
            value = getattr(self, f.name)
            spec.check(f"{f.name} ({spec.name})", value, repr(value))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Every declared variable that is set and not empty; the rest keep their defaults."""
        environ = os.environ if environ is None else environ
        types = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f, spec in env_fields():
            raw = environ.get(spec.name)
            if raw:
                values[f.name] = _parse(spec.name, raw, types[f.name])
                spec.check(spec.name, values[f.name], repr(raw))
        return cls(**values)


def env_fields() -> list[tuple[dataclasses.Field[Any], Env]]:
    """The fields of `Settings` read from the environment, with their declarations."""
    return [(f, f.metadata["env"]) for f in dataclasses.fields(Settings) if "env" in f.metadata]


def _shown_default(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return f"`{value}`" if value else "empty"
    return str(value)


def _shown_rule(kind: object, spec: Env) -> str:
    if kind is bool:
        return "1 or 0"
    if spec.choices:
        return ", ".join(f"`{choice}`" for choice in spec.choices)
    if kind is int:
        return f"integer {spec.rule()}".strip()
    return spec.rule() or "any"


def env_table() -> str:
    """The Markdown table of every variable (docs/container.md holds it between markers)."""
    types = typing.get_type_hints(Settings)
    rows = ["| variable | default | valid | meaning |", "|---|---|---|---|"]
    for f, spec in env_fields():
        valid = _shown_rule(types[f.name], spec)
        cells = (f"`{spec.name}`", _shown_default(f.default), valid, spec.doc)
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(env_table())
