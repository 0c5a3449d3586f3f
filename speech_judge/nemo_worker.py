"""NVIDIA NeMo text processing's English normalizer on sentences, run by the interpreter of
its own virtual environment (speech_judge/speech_diff.py creates it).

    NEMO_PYTHON speech_judge/nemo_worker.py GRAMMAR_DIR < sentences.jsonl > spoken.jsonl

One JSON string per input line; per line, one JSON object {"written", "spoken"} out, in
order and flushed at once (the caller streams). `Normalizer(input_case="cased", lang="en")`,
deterministic, with NeMo's own punctuation pre- and post-processing. The grammars compile
into GRAMMAR_DIR on first use (minutes) and load from there afterwards (seconds). Progress
goes to stderr. Standard library and NeMo only.
"""

from __future__ import annotations

import json
import logging
import sys
import time

PROGRESS_EVERY = 200


def main() -> None:
    grammars = sys.argv[1]
    started = time.monotonic()
    print(
        f"nemo: loading the grammars from {grammars} (the first time compiles them: minutes)",
        file=sys.stderr,
        flush=True,
    )
    from nemo_text_processing.text_normalization.normalize import Normalizer

    # NeMo logs every sentence it post-processes at INFO, and sets that level on each call.
    logging.getLogger("NeMo-text-processing").addFilter(lambda r: r.levelno >= logging.WARNING)

    normalizer = Normalizer(input_case="cased", lang="en", deterministic=True, cache_dir=grammars)
    print(
        f"nemo: grammars ready in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True
    )
    started = time.monotonic()
    done = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        written = json.loads(line)
        spoken = normalizer.normalize(written, punct_pre_process=True, punct_post_process=True)
        print(json.dumps({"written": written, "spoken": spoken}, ensure_ascii=False), flush=True)
        done += 1
        if done % PROGRESS_EVERY == 0:
            rate = done / max(time.monotonic() - started, 1e-9)
            print(f"nemo: {done} sentences ({rate:.1f}/s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
