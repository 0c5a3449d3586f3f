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

import pytest
from hypothesis import HealthCheck, given, settings

from devkit.tone import TONE_VOICES, tone_bytes
from tests.support.phases import wait_released
from tests.support.scale import examples
from tests.support.script_runner import check, ping_ms, run_script
from tests.support.session_scripts import SHORT_SENTENCES, Script, scripts

pytestmark = pytest.mark.fuzz

STATS = {"tone_examples": 0, "tone_frames": 0, "real_examples": 0, "real_frames": 0}
FUZZ_SETTINGS = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


def test_fuzz_with_tone_double(tone_server):
    """80 x KOKORO_TEST_SCALE examples against the tone test double (the model is too slow
    for hundreds)."""

    @settings(max_examples=examples(80), **FUZZ_SETTINGS)
    @given(script=scripts(TONE_VOICES))
    def prop(script: Script) -> None:
        transcript, code = asyncio.run(run_script(tone_server.ws, script, timeout=20))
        check(script, transcript, code, tone_bytes)
        STATS["tone_examples"] += 1
        STATS["tone_frames"] += script.frames_sent
        wait_released(tone_server)

    prop()
    assert ping_ms(tone_server.http) < 250
    print(f"\nfuzz (tone double): {STATS['tone_examples']} sessions, {STATS['tone_frames']} frames")


@pytest.mark.model
def test_fuzz_with_real_model(server, service):
    """The same property against the real Kokoro-82M model, few examples (seconds each)."""
    voices = tuple(service.engine.voice_names)

    @settings(max_examples=examples(4), **FUZZ_SETTINGS)
    @given(script=scripts(voices, sentences=SHORT_SENTENCES, max_steps=6, max_texts=1))
    def prop(script: Script) -> None:
        transcript, code = asyncio.run(run_script(server.ws, script, timeout=120))
        check(script, transcript, code, None)
        STATS["real_examples"] += 1
        STATS["real_frames"] += script.frames_sent
        wait_released(server)

    prop()
    assert ping_ms(server.http) < 250
    print(f"\nfuzz (real model): {STATS['real_examples']} sessions, {STATS['real_frames']} frames")
