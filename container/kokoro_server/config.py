"""Server settings, read once from environment variables (SageMaker passes the model's env)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# Synthesis scheduling policies (serving/scheduler.py): by playback deadline, or first come.
POLICIES = ("deadline", "fifo")


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (true or false), got {raw!r}")


def _env_str(name: str, default: str) -> str:
    return os.environ.get(name) or default


def _env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = _env_str(name, default)
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


@dataclass(frozen=True)
class Settings:
    """Everything tunable about the server. Defaults suit one SageMaker GPU instance."""

    host: str = "0.0.0.0"  # noqa: S104 - SageMaker's contract: the container listens on 0.0.0.0:8080
    port: int = 8080
    # Where the weights are: /opt/ml/model on SageMaker; empty means "find local weights".
    model_dir: str = ""
    model_file: str = ""  # an .onnx file name inside model_dir; empty picks the only/preferred one
    default_voice: str = ""  # empty: the first voice of the voice file
    # A JSON file of word -> phonemes spoken everywhere (mounted with the weights); empty: none.
    # The language is the voice's (its first letter), not a setting.
    lexicon: str = ""
    # ONNX Runtime: "auto" uses CUDA when the GPU build and a device are there.
    provider: str = "auto"
    intra_op_threads: int = 0  # 0: ONNX Runtime's default (all cores)
    cudnn_conv_algo_search: str = "HEURISTIC"  # EXHAUSTIVE re-tunes on every new input length
    ort_log_level: int = 3  # 1 (info) shows the Memcpy nodes the CUDA provider inserts
    synth_workers: int = 1  # parallel synthesis threads shared by all sessions
    # Which sentence a free worker takes: "deadline" (earliest playback deadline first) or
    # "fifo" (arrival order, for comparison). See scheduler.py.
    scheduler: str = "deadline"
    scheduler_max_overtakes: int = 32  # starvation guard: later jobs that may pass a sentence
    # Pre-emption (deadline scheduler): how often one sentence's model call may be stopped
    # and requeued for a sentence due sooner (0: never), and the audio in hand its own
    # listener must keep beyond the rerun. See scheduler.py.
    preempt_max: int = 1
    preempt_slack_s: float = 0.25
    # Protocol limits.
    max_frame_bytes: int = 64 * 1024
    max_text_chars: int = 10_000  # one text message
    max_buffered_chars: int = 20_000  # unsentenced text held per session
    max_queued_sentences: int = 64  # sentences waiting for synthesis per session
    max_sessions: int = 32  # admission control: beyond this, new sessions get `busy`
    # Admission control by load: `busy` while speaking sessions + 1 would exceed this times
    # the measured real-time capacity (capacity.py); 0: by session count only.
    max_load: float = 1.0
    # How long an admitted session that has sent no text yet counts as speaking (so a burst
    # of new sessions cannot all pass the load check before any of them speaks).
    admission_hold_s: float = 10.0
    # At most this many admitted sessions still waiting for their first audio (0: no limit).
    # With one worker, 1 keeps a burst's admitted callers within 1.5x of a solo first audio:
    # the k-th caller of a burst otherwise waits for k-1 first sentences.
    max_starting: int = 0
    # A session expires after this long with no client message and no audio accepted by the
    # client; one whose client accepts no audio for send_stall_s is aborted (a client that
    # stopped reading would otherwise hold its slot, and its sentences, forever).
    idle_timeout_s: float = 300.0
    send_stall_s: float = 10.0
    # On SIGTERM (SageMaker kills 30 s later): how long sessions may finish speaking before
    # the server closes them (serving/drain.py); 0: close at once.
    drain_s: float = 25.0
    # Connections (serving/connections.py): a request head must be complete this long after
    # the accept (or after its first byte on a kept-alive connection), or the connection is
    # closed; a kept-alive connection with no next request is closed after keep_alive_s.
    # Neither touches an upgraded WebSocket session.
    header_timeout_s: float = 10.0
    keep_alive_s: int = 75  # longer than typical load balancer idle timeouts
    audio_frame_bytes: int = 16 * 1024  # binary frame size for audio
    max_segment_chars: int = 250  # segmenter split length, well under 510 phonemes
    first_clause_min_chars: int = 20
    # Pacing (engine/pacing.py): every model call is cut to its audible span (a window of
    # trim_window_ms whose RMS reaches trim_threshold_dbfs, plus trim_lead_ms before and
    # trim_tail_ms after, and on to the last window within trim_release_ms after it that
    # reaches trim_release_dbfs: a final stop's burst, a fading fricative; with trim_fade_ms
    # ramps), then each piece gets the pause its ending calls for. pacing False: the model's
    # own silence, no pauses (to compare).
    pacing: bool = True
    trim_threshold_dbfs: float = -50.0
    trim_window_ms: float = 5.0
    trim_lead_ms: float = 15.0
    trim_tail_ms: float = 40.0
    trim_fade_ms: float = 5.0
    trim_release_dbfs: float = -70.0
    trim_release_ms: float = 200.0
    pause_sentence_ms: float = 400.0  # after . ! and the like
    pause_question_ms: float = 450.0  # after a ?
    pause_paragraph_ms: float = 600.0  # at a line break: paragraphs, list items
    pause_clause_ms: float = 200.0  # a first clause or a long sentence cut at a comma
    pause_hard_ms: float = 40.0  # a long clause cut between words: a breath
    pause_end_ms: float = 400.0  # a flushed tail without final punctuation
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            host=_env_str("KOKORO_HOST", cls.host),
            port=_env_int("KOKORO_PORT", cls.port),
            model_dir=os.environ.get("KOKORO_MODEL_DIR", ""),
            model_file=os.environ.get("KOKORO_MODEL_FILE", ""),
            default_voice=os.environ.get("KOKORO_VOICE", ""),
            lexicon=os.environ.get("KOKORO_LEXICON", ""),
            provider=_env_str("KOKORO_PROVIDER", cls.provider),
            intra_op_threads=_env_int("KOKORO_INTRA_OP_THREADS", cls.intra_op_threads),
            cudnn_conv_algo_search=_env_str(
                "KOKORO_CUDNN_CONV_ALGO_SEARCH", cls.cudnn_conv_algo_search
            ),
            ort_log_level=_env_int("KOKORO_ORT_LOG_LEVEL", cls.ort_log_level),
            synth_workers=_env_int("KOKORO_SYNTH_WORKERS", cls.synth_workers),
            scheduler=_env_choice("KOKORO_SCHEDULER", cls.scheduler, POLICIES),
            scheduler_max_overtakes=_env_int(
                "KOKORO_SCHEDULER_MAX_OVERTAKES", cls.scheduler_max_overtakes
            ),
            preempt_max=_env_int("KOKORO_PREEMPT_MAX", cls.preempt_max),
            preempt_slack_s=_env_float("KOKORO_PREEMPT_SLACK_S", cls.preempt_slack_s),
            max_frame_bytes=_env_int("KOKORO_MAX_FRAME_BYTES", cls.max_frame_bytes),
            max_text_chars=_env_int("KOKORO_MAX_TEXT_CHARS", cls.max_text_chars),
            max_buffered_chars=_env_int("KOKORO_MAX_BUFFERED_CHARS", cls.max_buffered_chars),
            max_queued_sentences=_env_int("KOKORO_MAX_QUEUED_SENTENCES", cls.max_queued_sentences),
            max_sessions=_env_int("KOKORO_MAX_SESSIONS", cls.max_sessions),
            max_load=_env_float("KOKORO_MAX_LOAD", cls.max_load),
            admission_hold_s=_env_float("KOKORO_ADMISSION_HOLD_S", cls.admission_hold_s),
            max_starting=_env_int("KOKORO_MAX_STARTING", cls.max_starting),
            idle_timeout_s=_env_float("KOKORO_IDLE_TIMEOUT_S", cls.idle_timeout_s),
            send_stall_s=_env_float("KOKORO_SEND_STALL_S", cls.send_stall_s),
            drain_s=_env_float("KOKORO_DRAIN_S", cls.drain_s),
            header_timeout_s=_env_float("KOKORO_HEADER_TIMEOUT_S", cls.header_timeout_s),
            keep_alive_s=_env_int("KOKORO_KEEP_ALIVE_S", cls.keep_alive_s),
            audio_frame_bytes=_env_int("KOKORO_AUDIO_FRAME_BYTES", cls.audio_frame_bytes),
            max_segment_chars=_env_int("KOKORO_MAX_SEGMENT_CHARS", cls.max_segment_chars),
            first_clause_min_chars=_env_int(
                "KOKORO_FIRST_CLAUSE_MIN_CHARS", cls.first_clause_min_chars
            ),
            pacing=_env_bool("KOKORO_PACING", cls.pacing),
            trim_threshold_dbfs=_env_float("KOKORO_TRIM_THRESHOLD_DBFS", cls.trim_threshold_dbfs),
            trim_window_ms=_env_float("KOKORO_TRIM_WINDOW_MS", cls.trim_window_ms),
            trim_lead_ms=_env_float("KOKORO_TRIM_LEAD_MS", cls.trim_lead_ms),
            trim_tail_ms=_env_float("KOKORO_TRIM_TAIL_MS", cls.trim_tail_ms),
            trim_fade_ms=_env_float("KOKORO_TRIM_FADE_MS", cls.trim_fade_ms),
            trim_release_dbfs=_env_float("KOKORO_TRIM_RELEASE_DBFS", cls.trim_release_dbfs),
            trim_release_ms=_env_float("KOKORO_TRIM_RELEASE_MS", cls.trim_release_ms),
            pause_sentence_ms=_env_float("KOKORO_PAUSE_SENTENCE_MS", cls.pause_sentence_ms),
            pause_question_ms=_env_float("KOKORO_PAUSE_QUESTION_MS", cls.pause_question_ms),
            pause_paragraph_ms=_env_float("KOKORO_PAUSE_PARAGRAPH_MS", cls.pause_paragraph_ms),
            pause_clause_ms=_env_float("KOKORO_PAUSE_CLAUSE_MS", cls.pause_clause_ms),
            pause_hard_ms=_env_float("KOKORO_PAUSE_HARD_MS", cls.pause_hard_ms),
            pause_end_ms=_env_float("KOKORO_PAUSE_END_MS", cls.pause_end_ms),
        )
