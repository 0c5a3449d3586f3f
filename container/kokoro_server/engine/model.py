"""Kokoro-82M inference with ONNX Runtime: words -> tokens -> 24 kHz float audio (+ word times).

Runs on the CUDA execution provider when the GPU build of ONNX Runtime sees a device, on the
CPU otherwise. Calls are blocking and thread-safe: the server runs them in worker threads,
never on the event loop.

When the session is built, the model's internal per-token durations are added as a second
output (durations.py), so every call can also say when each word is spoken (word_times.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

from kokoro_server.config import Settings
from kokoro_server.engine.durations import DurationsNotFound, expose_durations
from kokoro_server.engine.model_calls import CLAUSE_ENDS, ModelCall, plan_calls
from kokoro_server.engine.model_files import ModelFiles
from kokoro_server.engine.stop import Stopped, StopSignal
from kokoro_server.engine.user_voices import load_user_voices
from kokoro_server.engine.voices import VoiceBank
from kokoro_server.engine.word_times import SAMPLES_PER_UNIT, WordTiming, word_timings
from kokoro_server.model_facts import MAX_SPEED, MIN_SPEED
from kokoro_server.spoken import Phonemized

log = logging.getLogger("kokoro.engine")


def choose_providers(settings: Settings) -> list[str | tuple[str, dict[str, str]]]:
    """CUDA first when asked for (or on auto when present), always with the CPU fallback."""
    available = ort.get_available_providers()
    want_cuda = settings.provider in ("auto", "cuda") and "CUDAExecutionProvider" in available
    if settings.provider == "cuda" and not want_cuda:
        raise RuntimeError(f"KOKORO_PROVIDER=cuda but ONNX Runtime offers only {available}")
    if want_cuda:
        cuda_options = {"cudnn_conv_algo_search": settings.cudnn_conv_algo_search}
        return [("CUDAExecutionProvider", cuda_options), "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def require_provider(settings: Settings, in_use: list[str]) -> None:
    """KOKORO_PROVIDER=cuda: refuse a session that ONNX Runtime put on the CPU.

    When the CUDA provider is registered but cannot start (a CUDA or cuDNN library missing or
    too new for the driver), ONNX Runtime logs an error and builds the session on the CPU
    provider alone; the server would then answer /ping and serve many times slower. Only
    KOKORO_PROVIDER=auto allows that fallback."""
    if settings.provider == "cuda" and (not in_use or in_use[0] != "CUDAExecutionProvider"):
        raise RuntimeError(
            f"KOKORO_PROVIDER=cuda but ONNX Runtime built the session on {in_use}: the CUDA "
            "provider did not start (see ONNX Runtime's error above: CUDA/cuDNN libraries vs "
            "the driver); set KOKORO_PROVIDER=auto to allow the CPU fallback"
        )


@dataclass(frozen=True)
class Speech:
    audio: np.ndarray  # float32 mono at 24 kHz
    words: tuple[WordTiming, ...] | None  # None: this model gives no durations
    # Samples of each model call's audio, in order (empty: one call), and what ended each
    # call but the last ("clause" after punctuation, else "hard"), so pacing.py can trim
    # the silence the model puts around every call.
    call_samples: tuple[int, ...] = ()
    joins: tuple[str, ...] = ()


def load_with_durations(path: Path) -> tuple[bytes | str, str | None, str | None]:
    """The model for ONNX Runtime (bytes with the durations output, or the path without),
    the durations output's name, and why there is none."""
    try:
        model = onnx.load(str(path))
        tensor = expose_durations(model)
        return model.SerializeToString(), tensor.name, None
    except DurationsNotFound as exc:
        return str(path), None, str(exc)
    except Exception as exc:  # onnx cannot read it: ONNX Runtime may still run it as before
        return str(path), None, f"cannot read the graph with onnx: {type(exc).__name__}: {exc}"


def _load_voices(
    settings: Settings, files: ModelFiles
) -> tuple[dict[str, np.ndarray], frozenset[str]]:
    """The official voice file's voices, then a deployment's own (engine/user_voices.py):
    blends and sessions use them alike. Also the names of the latter."""
    with np.load(files.voices) as npz:
        voices: dict[str, np.ndarray] = {k: np.asarray(npz[k]) for k in npz.files}
    if not voices:
        raise RuntimeError(f"voice file {files.voices} holds no voices")
    user = load_user_voices(settings.user_voices_dir, voices)
    voices.update(user)
    return voices, frozenset(user)


def _inference_session(settings: Settings, model: str | bytes) -> ort.InferenceSession:
    options = ort.SessionOptions()
    if settings.intra_op_threads > 0:
        options.intra_op_num_threads = settings.intra_op_threads
    options.log_severity_level = settings.ort_log_level
    return ort.InferenceSession(model, sess_options=options, providers=choose_providers(settings))


class KokoroEngine:
    """Loads the model once; `synthesize` is safe to call from several threads."""

    def __init__(
        self,
        settings: Settings,
        files: ModelFiles,
        phonemize: Callable[..., Phonemized],
        word_timestamps: bool = True,  # False: the graph as exported (to measure the cost)
    ) -> None:
        self.settings = settings
        self.files = files
        self.phonemize = phonemize
        self.vocab = files.vocab
        self.voices, self.user_voices = _load_voices(settings, files)
        self.default_voice = settings.default_voice or next(iter(self.voices))
        self.blends.resolve(self.default_voice)  # a voice or a blend of loaded voices
        started = time.perf_counter()
        if word_timestamps:
            model, self.durations_output, self.durations_missing = load_with_durations(files.model)
        else:
            model, self.durations_output, self.durations_missing = (
                str(files.model),
                None,
                "turned off when the engine was built",
            )
        self.session = _inference_session(settings, model)
        del model
        self.providers: list[str] = list(self.session.get_providers())
        require_provider(settings, self.providers)
        self._audio_output = self.session.get_outputs()[0].name
        inputs = {i.name for i in self.session.get_inputs()}
        # kokoro-onnx exports call the token input "tokens", onnx-community's "input_ids".
        self._token_input = "tokens" if "tokens" in inputs else "input_ids"
        self._log_loaded(round((time.perf_counter() - started) * 1000, 1))
        if word_timestamps and self.durations_missing:
            self._no_word_timestamps(self.durations_missing)

    def _log_loaded(self, load_ms: float) -> None:
        log.info(
            "model loaded",
            extra={
                "fields": {
                    "model": str(self.files.model),
                    "source": self.files.source,
                    "providers": self.providers,
                    "provider": self.provider,
                    "voices": len(self.voices),
                    "user_voices": len(self.user_voices),
                    "durations_output": self.durations_output,
                    "load_ms": load_ms,
                }
            },
        )

    @property
    def provider(self) -> str:
        """The execution provider that runs the model (the first of the session's)."""
        return self.providers[0]

    @property
    def voice_names(self) -> list[str]:
        return sorted(self.voices)

    @cached_property
    def blends(self) -> VoiceBank:
        """The voices and the blends made of them (engine/voices.py)."""
        return VoiceBank(self.voices)

    def check_voice(self, voice: str) -> None:
        """A voice name or a blend (`af_bella:2+af_sky:1`) of loaded voices; raises
        UnknownVoiceError, or VoiceSpecError for a malformed blend."""
        self.blends.resolve(voice)
        # The text front end refuses a voice whose language it cannot speak, with the reason.
        # A blend's voices share their first letter, which is all it reads.
        check_language = getattr(self.phonemize, "check_voice", None)
        if check_language is not None:
            check_language(voice)

    def tokens(self, phonemes: str) -> list[int]:
        return [self.vocab[c] for c in phonemes if c in self.vocab]

    @property
    def word_timestamps(self) -> bool:
        return self.durations_output is not None

    def _no_word_timestamps(self, reason: str) -> None:
        self.durations_output = None
        self.durations_missing = reason
        log.warning("word timestamps unavailable", extra={"fields": {"reason": reason}})

    def synthesize(
        self, text: str, voice: str, speed: float = 1.0, **pronunciation: Any
    ) -> np.ndarray:
        """One sentence (or clause) of text -> float32 mono audio at 24 kHz.

        `pronunciation` (a session's `lexicon`) goes to the text front end as it is.
        """
        return self.synthesize_timed(text, voice, speed, **pronunciation).audio

    def synthesize_timed(
        self,
        text: str,
        voice: str,
        speed: float = 1.0,
        stop: StopSignal | None = None,
        **pronunciation: Any,
    ) -> Speech:
        """The audio and, where the model gives durations, when each written word is spoken.

        `stop`: set from another thread, it ends the model call in progress and the job
        raises Stopped (stop.py); without one the call runs to its end. It is checked before
        the text front end, after it and before every model call (`_infer`), so a job
        stopped while its text is read never reaches the model.
        """
        self.check_voice(voice)
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}")
        if stop is not None:
            stop.check()
        phonemized = self.phonemize(text, voice, **pronunciation)
        if stop is not None:
            stop.check()
        calls = plan_calls(phonemized.words, self.vocab)
        results = [self._infer(call, voice, speed, stop) for call in calls]
        parts = [audio for audio, _ in results if audio.size]
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        joins = tuple(
            "clause" if call.tokens[-1].char in CLAUSE_ENDS else "hard" for call in calls[:-1]
        )
        return Speech(
            audio,
            self._timings(phonemized, calls, results),
            tuple(part.size for part, _ in results),
            joins,
        )

    def _timings(
        self,
        phonemized: Phonemized,
        calls: list[ModelCall],
        results: list[tuple[np.ndarray, np.ndarray | None]],
    ) -> tuple[WordTiming, ...] | None:
        durations = []
        for (audio, units), call in zip(results, calls, strict=True):
            if units is None:
                return None
            if audio.size != SAMPLES_PER_UNIT * int(units.sum()):
                # The located tensor is not what the audio was built from: never guess.
                self._no_word_timestamps(
                    f"durations sum to {int(units.sum())} units but the audio has {audio.size} "
                    f"samples (expected {SAMPLES_PER_UNIT} per unit) for {len(call.tokens)} tokens"
                )
                return None
            durations.append(units)
        return word_timings(phonemized.words, calls, durations)

    def _infer(
        self, call: ModelCall, voice: str, speed: float, stop: StopSignal | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        ids = call.ids
        styles = self.blends.styles(voice)
        # A voice pack holds one style vector per input length.
        style = styles[min(len(ids), len(styles)) - 1].reshape(1, -1).astype(np.float32)
        wanted = [self._audio_output]
        durations_output = self.durations_output
        if durations_output:
            wanted.append(durations_output)
        feeds = {
            self._token_input: np.array([[0, *ids, 0]], dtype=np.int64),
            "style": style,
            "speed": np.array([speed], dtype=np.float32),
        }
        if stop is None:
            outputs = self.session.run(wanted, feeds)
        else:
            run_options = stop.begin()
            try:
                outputs = self.session.run(wanted, feeds, run_options)
            except Exception as exc:
                if stop.stopped:  # terminated on purpose: not a model failure
                    raise Stopped("model call terminated") from exc
                raise
            finally:
                stop.end(run_options)
        audio = np.asarray(outputs[0], dtype=np.float32).reshape(-1)
        if not durations_output:
            return audio, None
        return audio, np.rint(np.asarray(outputs[1])).astype(np.int64).reshape(-1)
