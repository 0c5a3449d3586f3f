"""What lets `replayable` tests answer repeated model calls from memory
(tests/support/model_replay.py): the real model is deterministic, a replay gives back exactly
what the model gave, only while replay is on, and the capacity meter never learns from it."""

from __future__ import annotations

import numpy as np
import pytest

from kokoro_server.serving.synthesis import SynthesisService
from tests.support import model_replay

TEXT = "Hi there."


def _session(service: SynthesisService) -> model_replay.ReplayingSession:
    assert service.engine is not None
    session = service.engine.session
    assert isinstance(session, model_replay.ReplayingSession)
    return session


def test_the_model_answers_identical_calls_with_identical_arrays(
    service: SynthesisService,
) -> None:
    assert service.engine is not None
    session = _session(service)
    replayed = session.replayed
    first = service.engine.synthesize_timed(TEXT, service.engine.default_voice)
    second = service.engine.synthesize_timed(TEXT, service.engine.default_voice)
    assert session.replayed == replayed  # replay off: both ran the model
    assert first.audio.size > 0
    assert np.array_equal(first.audio, second.audio)
    assert first.words == second.words
    with model_replay.replay(service):
        third = service.engine.synthesize_timed(TEXT, service.engine.default_voice)
    assert session.replayed == replayed + len(third.call_samples)
    assert np.array_equal(third.audio, first.audio)
    assert third.words == first.words
    third.audio[:] = 0.0  # a replay hands out copies: the memory is not changed by callers
    with model_replay.replay(service):
        fourth = service.engine.synthesize_timed(TEXT, service.engine.default_voice)
    assert np.array_equal(fourth.audio, first.audio)


def test_a_different_input_is_never_answered_from_memory(service: SynthesisService) -> None:
    assert service.engine is not None
    session = _session(service)
    voice = service.engine.default_voice
    service.engine.synthesize_timed(TEXT, voice)
    replayed = session.replayed
    with model_replay.replay(service):
        slower = service.engine.synthesize_timed(TEXT, voice, speed=0.9)
    assert session.replayed == replayed  # a new speed is a new call: the model ran
    assert slower.audio.size > 0


def test_the_capacity_meter_does_not_learn_from_replays(service: SynthesisService) -> None:
    meter = service.capacity
    before = meter.streams()
    with model_replay.replay(service):
        assert service.capacity is not meter
        service.capacity.record(audio_s=10.0, synth_s=0.001, chars=40)  # an instant replay
        assert service.capacity.streams() != before
    assert service.capacity is meter
    assert meter.streams() == before


@pytest.mark.replayable
def test_a_replayable_test_runs_with_replay_on(service: SynthesisService) -> None:
    assert _session(service).replaying


def test_any_other_test_runs_the_model(service: SynthesisService) -> None:
    assert not _session(service).replaying
