"""Runs one English normalizer over sentences, in whatever interpreter has it installed.

    PYTHON -m bench.normalizer_worker CANDIDATE < sentences.json > result.json

Prints {"cold_s", "outputs", "latencies_s"}: cold start is import + set-up + the first
sentence, measured from before the import; the rest is each sentence's time, `runs` times.
Standard library only here, so a candidate's own virtual environment can run it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def load(candidate: str) -> Callable[[str], str]:
    if candidate == "rules+num2words":
        # This project's own normalizer: run by the .venv interpreter, where it is installed.
        from kokoro_server.text.normalize_en import spoken_text

        return spoken_text
    if candidate == "nemo":
        from nemo_text_processing.text_normalization.normalize import Normalizer

        # Grammars compiled once into the cache (what an image build would do), then loaded.
        cache = os.environ.get("NEMO_CACHE_DIR") or str(Path(tempfile.gettempdir()) / "nemo-cache")
        normalizer = Normalizer(input_case="cased", lang="en", cache_dir=cache)
        return lambda text: normalizer.normalize(text, punct_post_process=True)
    if candidate == "gruut":
        from gruut import sentences

        def gruut_text(text: str) -> str:
            words = [w.text for s in sentences(text, lang="en-us") for w in s if w.is_spoken]
            return " ".join(words)

        return gruut_text
    raise SystemExit(f"unknown candidate {candidate!r}")


def main() -> None:
    candidate, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    sentences: list[str] = json.load(sys.stdin)
    started = time.perf_counter()
    normalize = load(candidate)
    outputs = [normalize(sentences[0])]
    cold_s = time.perf_counter() - started
    outputs += [normalize(s) for s in sentences[1:]]
    latencies = []
    for _ in range(runs):
        for sentence in sentences:
            begin = time.perf_counter()
            normalize(sentence)
            latencies.append(time.perf_counter() - begin)
    json.dump({"cold_s": cold_s, "outputs": outputs, "latencies_s": latencies}, sys.stdout)


if __name__ == "__main__":
    main()
