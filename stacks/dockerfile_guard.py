"""Synth-time guard: the Kokoro image must declare SageMaker bidirectional streaming.

Without the LABEL, SageMaker does not route InvokeEndpointWithBidirectionalStream sessions
to the container; the endpoint would deploy and then fail at the first session. Failing the
synth is far cheaper than finding that out after a GPU endpoint came up.
"""

from __future__ import annotations

import re
from pathlib import Path

from stacks.errors import DeployCheckError

BIDI_LABEL_KEY = "com.amazonaws.sagemaker.capabilities.bidirectional-streaming"
# The key, '=', then "true" with or without quotes, as a whole token of a LABEL instruction.
_LABEL_PAIR = re.compile(re.escape(BIDI_LABEL_KEY) + r"""=("true"|'true'|true)(?=\s|$)""")


class DockerfileGuardError(DeployCheckError):
    """The Dockerfile does not carry the bidirectional-streaming label."""


def _instructions(text: str) -> list[str]:
    """Dockerfile instructions with line continuations joined and comments dropped."""
    out: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        out.append(current + line)
        current = ""
    if current:
        out.append(current)
    return out


def has_bidi_label(dockerfile_text: str) -> bool:
    """True when a LABEL instruction sets the bidirectional-streaming capability to true."""
    for instruction in _instructions(dockerfile_text):
        keyword, _, rest = instruction.partition(" ")
        if keyword.upper() == "LABEL" and _LABEL_PAIR.search(rest):
            return True
    return False


def require_bidi_label(dockerfile: Path) -> None:
    """Raise DockerfileGuardError with a fix-it message unless the label is present."""
    try:
        text = dockerfile.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DockerfileGuardError(f"Kokoro Dockerfile not found: {dockerfile}") from exc
    if not has_bidi_label(text):
        raise DockerfileGuardError(
            f"{dockerfile} does not carry `LABEL {BIDI_LABEL_KEY}=true`. SageMaker only routes "
            "bidirectional streams (InvokeEndpointWithBidirectionalStream) to images with this "
            "label; add the line to the Dockerfile and synth again."
        )
