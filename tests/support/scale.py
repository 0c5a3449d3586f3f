"""How much volume the live-server fuzz tests and the hypothesis property tests run:
`KOKORO_TEST_SCALE` times a base count.

The base counts keep `make test` on a 2-core machine within its budget; CI raises the scale
(`.ci/run` sets 3, the volumes these tests ran at before they were sized). A scale below 1
is refused rather than quietly running nothing.
"""

from __future__ import annotations

import os

ENV = "KOKORO_TEST_SCALE"


def scale() -> float:
    raw = os.environ.get(ENV, "1")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{ENV}={raw!r} is not a number") from None
    if value < 1:
        raise ValueError(f"{ENV}={raw!r}: the scale is at least 1")
    return value


def examples(base: int) -> int:
    """`base` examples at scale 1, proportionally more above it."""
    return max(1, round(base * scale()))
