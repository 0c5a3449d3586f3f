"""Runs kokoro-onnx in its own virtual environment for speech_judge/peer.py.

    PEER_PYTHON speech_judge/peer_worker.py MODEL VOICES VOICE OUT_DIR < commands

Standard library, numpy and kokoro-onnx only (run by the peer's interpreter, not this
project's).
Loads the model once, then for every line on stdin (the text to speak, JSON-encoded) runs
`Kokoro.create_stream` with kokoro-onnx's defaults (en-us, speed 1.0, trimming on) and
prints one JSON line: seconds to its first chunk, to its last, and the path of the 16-bit
PCM it produced (24 kHz mono).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


async def speak(kokoro: Any, text: str, voice: str) -> tuple[bytes, dict[str, Any]]:
    started = time.perf_counter()
    first: float | None = None
    chunks: list[bytes] = []
    rate = 24000
    async for samples, chunk_rate in kokoro.create_stream(text, voice=voice, lang="en-us"):
        first = first if first is not None else time.perf_counter() - started
        rate = chunk_rate
        chunks.append((np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes())
    total = time.perf_counter() - started
    return b"".join(chunks), {"first_byte_s": first, "total_s": total, "sample_rate": rate}


def main() -> None:
    from kokoro_onnx import Kokoro

    model, voices, voice, out_dir = sys.argv[1:5]
    kokoro = Kokoro(model, voices)
    for number, line in enumerate(sys.stdin):
        text = json.loads(line)
        pcm, result = asyncio.run(speak(kokoro, text, voice))
        path = Path(out_dir) / f"peer-{number}.pcm"
        path.write_bytes(pcm)
        print(json.dumps({**result, "pcm": str(path)}), flush=True)


if __name__ == "__main__":
    main()
