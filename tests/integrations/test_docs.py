"""Every Python snippet in docs/pipecat.md and docs/livekit.md runs, as a user would run it:
saved to a file and started with `python`, against the real Kokoro server on loopback
(KOKORO_URL) with no AWS account (the SageMaker snippets build their services, which needs
no network). The bots must speak: audio seconds and timed words in their output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/pipecat.md", "docs/livekit.md")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def snippets() -> list[tuple[str, int, str]]:
    found = []
    for doc in DOCS:
        for n, match in enumerate(BLOCK.finditer((ROOT / doc).read_text())):
            found.append((doc, n, match.group(1)))
    return found


SNIPPETS = snippets()


def test_each_doc_has_a_bot_and_the_sagemaker_swap() -> None:
    for doc in DOCS:
        code = [c for d, _, c in SNIPPETS if d == doc]
        assert any("asyncio.run(main())" in c for c in code), doc
        assert any("sagemaker" in c.lower() and "region=" in c for c in code), doc


@pytest.mark.model
@pytest.mark.parametrize(("doc", "n", "code"), SNIPPETS, ids=[f"{d}#{n}" for d, n, _ in SNIPPETS])
@pytest.mark.replayable
def test_snippet_runs(doc: str, n: int, code: str, server, tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = {
        **os.environ,
        "KOKORO_URL": server.ws,
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    if "asyncio.run(main())" in code:  # a bot: it spoke, with timed words
        seconds = re.search(r"([\d.]+) s of audio", result.stdout)
        assert seconds and float(seconds.group(1)) > 1.0, result.stdout
        assert re.search(r"^\s*\d+\.\d\d s\s+\S", result.stdout, re.MULTILINE), result.stdout
