"""Fuzzing the session protocol on a real server over loopback (hypothesis).

Each example is one session: a random interleaving of bad frames (non-UTF-8 bytes, truncated
JSON, non-objects, deep nesting, huge strings and frames, wrong types, NaN/inf/negative speed,
unknown voices and types) and valid steps (text deltas with unknown fields, utterances, flush,
cancel, start), then a final utterance, `close`, and a few frames after close. Invariants:
each bad frame gets its specific non-fatal `error`, valid text is heard exactly once and in
order (a prefix before each `cancel`), the session ends cleanly, and the server stays healthy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devkit.tone import TONE_VOICES, tone_bytes
from tests.support.phases import wait_released
from tests.support.scale import examples
from tests.support.script_runner import check, ping_ms, run_script
from tests.support.servers import ThreadedServer
from tests.support.session_scripts import SHORT_SENTENCES, Script, scripts

pytestmark = pytest.mark.fuzz


def fuzz(
    srv: ThreadedServer,
    sessions: st.SearchStrategy[Script],
    max_examples: int,
    timeout: float,
    audio_of: Callable[[str], bytes] | None,
    label: str,
) -> None:
    """The property against srv: each of max_examples random sessions keeps the invariants
    (`check`) and ends released, and the server still answers /ping promptly afterwards."""
    stats = {"sessions": 0, "frames": 0}

    @settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(script=sessions)
    def prop(script: Script) -> None:
        transcript, code = asyncio.run(run_script(srv.ws, script, timeout=timeout))
        check(script, transcript, code, audio_of)
        stats["sessions"] += 1
        stats["frames"] += script.frames_sent
        wait_released(srv)

    prop()
    assert ping_ms(srv.http) < 250
    print(f"\nfuzz ({label}): {stats['sessions']} sessions, {stats['frames']} frames")


def test_fuzz_with_tone_double(tone_server):
    """80 x KOKORO_TEST_SCALE examples against the tone test double (the model is too slow
    for hundreds)."""
    fuzz(tone_server, scripts(TONE_VOICES), examples(80), 20, tone_bytes, "tone double")


@pytest.mark.model
def test_fuzz_with_real_model(server, service):
    """The same property against the real Kokoro-82M model, few examples (seconds each)."""
    voices = tuple(service.engine.voice_names)
    real = scripts(voices, sentences=SHORT_SENTENCES, max_steps=6, max_texts=1)
    fuzz(server, real, examples(4), 120, None, "real model")
