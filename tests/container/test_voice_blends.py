"""Voice blends (`jf_alpha:3+jf_nezumi:1`) and GET /voices.

The blend syntax and the cache are tested as units of engine/voices.py on small arrays; what
the model speaks with, the session and one-shot errors and the voice list on the real
Kokoro-82M model over real sockets (its voice file holds five Japanese voices), and the
voice list once more on the tone test double's server.
"""

from __future__ import annotations

import re

import httpx
import numpy as np
import pytest
from websockets.asyncio.client import connect

from devkit.tone import TONE_VOICES
from kokoro_server.config import Settings
from kokoro_server.engine.voices import VoiceBank, parse_voice
from kokoro_server.model_facts import MAX_BLEND_VOICES, UnknownVoiceError, VoiceSpecError
from kokoro_server.serving.protocol import MAX_VOICE_CHARS
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.one_shot import post
from tests.support.servers import ThreadedServer
from tests.support.ws_frames import audio_by_sentence, controls, is_type, read_until, send

BLEND = "jf_alpha:3+jf_nezumi:1"  # 0.75 and 0.25: exact in WEIGHT_DIGITS
SENTENCE = "Hello there."

# Each malformed spec and the words its message must hold.
MALFORMED = [
    ("jf_alpha+", "empty part"),
    ("+jf_alpha", "empty part"),
    ("jf_alpha++jf_nezumi", "empty part"),
    ("jf_alpha::2", "more than one ':'"),
    ("jf_alpha:", "no weight"),
    (":2+jf_alpha", "names no voice"),
    ("jf_alpha:two", "not a number: 'two'"),
    ("jf_alpha:1e3", "not a number"),
    ("jf_alpha:0+jf_nezumi", "greater than 0, not 0"),
    ("jf_alpha:-1+jf_nezumi", "greater than 0, not -1"),
    ("jf_alpha:nan+jf_nezumi", "finite number, not 'nan'"),
    ("jf_alpha:inf+jf_nezumi", "finite number, not 'inf'"),
    ("jf_alpha:1" + "0" * 400 + "+jf_nezumi", "too large"),
    ("jf_alpha:0.00001+jf_nezumi", "too little to be heard"),
    ("jf_alpha:1+jf_nezumi+jf_alpha:2", "'jf_alpha' appears twice"),
    ("a+b+c+d+e", f"mixes 5 voices; a blend has at most {MAX_BLEND_VOICES}"),
]


def _packs(names: list[str]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {name: rng.standard_normal((510, 1, 256)).astype(np.float32) for name in names}


# ---- syntax and the cache (units) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("af_bella", "af_bella"),
        ("af_bella:2", "af_bella"),  # one voice is itself, whatever its weight
        ("af_bella+af_sky", "af_bella:0.5000+af_sky:0.5000"),
        ("af_sky:1+af_bella:2", "af_bella:0.6667+af_sky:0.3333"),
        ("af_bella:0.5+af_sky:.25", "af_bella:0.6667+af_sky:0.3333"),
        ("b:1+a:1+c:2", "a:0.2500+b:0.2500+c:0.5000"),
    ],
)
def test_a_spec_reads_as_its_canonical_blend(spec, key):
    assert parse_voice(spec).key == key


@pytest.mark.parametrize(("spec", "problem"), MALFORMED)
def test_a_malformed_spec_is_refused_naming_the_problem(spec, problem):
    with pytest.raises(VoiceSpecError, match=re.escape(problem)):
        parse_voice(spec)


def test_a_blend_of_two_languages_is_refused_and_an_unknown_voice_named():
    bank = VoiceBank(_packs(["af_bella", "af_sky", "bf_emma"]))
    with pytest.raises(VoiceSpecError, match=r"mixes languages: af_bella \(a\), bf_emma \(b\)"):
        bank.resolve("af_bella+bf_emma")
    with pytest.raises(UnknownVoiceError, match="unknown voice 'af_nobody'"):
        bank.resolve("af_bella:2+af_nobody")


def test_a_blend_is_the_weighted_mean_made_once_per_canonical_spec():
    packs = _packs(["af_bella", "af_sky", "af_nova"])
    bank = VoiceBank(packs)
    blended = bank.styles("af_bella:2+af_sky:1+af_nova:1")
    expected = np.average(
        np.stack([packs["af_bella"], packs["af_sky"], packs["af_nova"]]),
        axis=0,
        weights=[2, 1, 1],
    )
    assert blended.shape == (510, 1, 256) and blended.dtype == np.float32
    np.testing.assert_allclose(blended, expected, rtol=1e-5, atol=1e-6)
    # Other spellings of the same blend reuse it; a single voice is never blended.
    assert bank.styles("af_sky:0.25+af_nova:0.25+af_bella:0.5") is blended
    assert bank.styles("af_bella") is packs["af_bella"]
    assert bank.made == 1


def test_the_cache_keeps_the_most_recently_used_blends():
    bank = VoiceBank(_packs(["af_a", "af_b", "af_c"]), cache_size=2)
    first = bank.styles("af_a+af_b")
    bank.styles("af_a+af_c")
    assert bank.styles("af_a+af_b") is first  # used again: now the most recent
    bank.styles("af_b+af_c")  # a third: the least recently used (af_a+af_c) leaves
    assert bank.cached("af_a:0.5000+af_c:0.5000") is None
    assert bank.cached("af_a:0.5000+af_b:0.5000") is first
    assert bank.made == 3
    np.testing.assert_array_equal(bank.styles("af_a+af_c"), mix_by_hand(bank, "af_a", "af_c"))
    assert bank.made == 4  # made again after it left


def mix_by_hand(bank: VoiceBank, a: str, b: str) -> np.ndarray:
    mean = (bank.voices[a].astype(np.float64) + bank.voices[b].astype(np.float64)) / 2
    return mean.astype(np.float32)


# ---- the real model -----------------------------------------------------------------------


def test_the_engine_speaks_with_the_weighted_mean_of_the_voices(service):
    engine = service.engine
    engine.check_voice(BLEND)
    style = engine.blends.styles(BLEND)
    expected = np.average(
        np.stack([engine.voices["jf_alpha"], engine.voices["jf_nezumi"]]), axis=0, weights=[3, 1]
    )
    np.testing.assert_allclose(style, expected, rtol=1e-6, atol=1e-7)
    assert engine.blends.cached("jf_alpha:0.7500+jf_nezumi:0.2500") is style


async def _session_audio(server, voices: list[str]) -> list[bytes]:
    """One session; SENTENCE spoken once with each voice (a per-message voice)."""
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "format": "pcm"})
        for voice in voices:
            await send(ws, {"type": "text", "text": SENTENCE, "voice": voice})
            await send(ws, {"type": "flush"})  # one sentence per voice
        await send(ws, {"type": "close"})
        frames = await read_until(ws, is_type("session_end"), timeout=120)
    assert not [c for c in controls(frames) if c["type"] == "error"]
    by_index = audio_by_sentence(frames)
    return [by_index[i] for i in range(len(voices))]


@pytest.mark.replayable
async def test_a_session_with_a_blend_speaks_it_the_same_every_time(server, service):
    blends = service.engine.blends
    made = blends.made
    alpha, nezumi, blend = await _session_audio(server, ["jf_alpha", "jf_nezumi", BLEND])
    assert blend and blend != alpha and blend != nezumi
    assert blends.made <= made + 1  # made at most once (another test may have made it)
    made = blends.made
    # Another session, the same blend spelled otherwise: the same style, the same audio.
    again, twice = await _session_audio(server, ["jf_nezumi:1+jf_alpha:3", BLEND])
    assert again == blend and twice == blend
    assert blends.made == made


@pytest.mark.replayable
def test_the_one_shot_route_speaks_a_blend(server):
    response = post(server, {"text": SENTENCE, "voice": BLEND, "format": "pcm"})
    assert response.status_code == 200, response.text
    assert len(response.content) > 0 and response.headers["x-sentences"] == "1"
    alone = post(server, {"text": SENTENCE, "voice": "jf_alpha", "format": "pcm"})
    assert alone.status_code == 200 and alone.content != response.content
    said = post(server, {"text": SENTENCE, "voice": BLEND, "format": "phonemes"}).json()
    assert said["language"] == "ja" and said["voice"] == BLEND


async def test_bad_blends_are_refused_in_a_session_and_it_goes_on(server):
    # A weight too large for a float needs more digits than the protocol lets a voice have.
    specs = [
        (spec, problem if len(spec) <= MAX_VOICE_CHARS else f"at most {MAX_VOICE_CHARS} char")
        for spec, problem in MALFORMED
    ]
    specs.append(("jf_alpha+jf_nezumi+jf_tebukuro+jf_gongitsune+jm_kumo", "mixes 5 voices"))
    async with connect(server.ws) as ws:
        found = []
        for spec, _ in specs:
            await send(ws, {"type": "start", "voice": spec})
            found += await read_until(ws, is_type("error"), timeout=10)
        await send(ws, {"type": "text", "text": SENTENCE, "voice": "jf_alpha+jf_nobody"})
        unknown = await read_until(ws, is_type("error"), timeout=10)
    errors = [c for c in found if c["type"] == "error"]
    assert [(e["code"], e["fatal"]) for e in errors] == [("bad_parameter", False)] * len(specs)
    for error, (_, problem) in zip(errors, specs, strict=True):
        assert problem in error["message"]
    assert controls(unknown)[-1]["code"] == "unknown_voice"
    assert "'jf_nobody'" in controls(unknown)[-1]["message"]


@pytest.mark.parametrize(
    ("voice", "code", "problem"),
    [
        ("jf_alpha:0+jf_nezumi", "bad_parameter", "greater than 0"),
        ("jf_alpha+jf_alpha", "bad_parameter", "appears twice"),
        ("jf_alpha+", "bad_parameter", "empty part"),
        ("jf_alpha+jf_nobody", "unknown_voice", "'jf_nobody'"),
    ],
)
def test_the_one_shot_route_refuses_a_bad_blend(server, voice, code, problem):
    response = post(server, {"text": SENTENCE, "voice": voice})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert problem in response.json()["error"]["message"]


# ---- GET /voices --------------------------------------------------------------------------


def test_the_voice_list_names_the_loaded_voices_and_the_blend_limit(server, service):
    listed = httpx.get(f"{server.http}/voices", timeout=5).json()
    engine = service.engine
    assert [v["name"] for v in listed["voices"]] == engine.voice_names
    assert {v["language"] for v in listed["voices"]} == {"ja"}
    genders = {v["name"]: v["gender"] for v in listed["voices"]}
    assert genders["jf_alpha"] == "female" and genders["jm_kumo"] == "male"
    assert not any(v["user_file"] for v in listed["voices"])
    assert listed["default"] == engine.default_voice
    # The limit it states is the one the server keeps.
    names = engine.voice_names
    limit = listed["max_blend"]
    at_limit = "+".join(names[:limit])
    assert post(server, {"text": "x", "voice": at_limit, "format": "phonemes"}).status_code == 200
    over = post(server, {"text": "x", "voice": "+".join(names[: limit + 1])})
    assert over.status_code == 400 and "at most" in over.json()["error"]["message"]
    assert listed["blend_syntax"] == "name:weight+name:weight"


def test_the_tone_double_server_lists_its_voices(tone_server):
    listed = httpx.get(f"{tone_server.http}/voices", timeout=5).json()
    assert [v["name"] for v in listed["voices"]] == list(TONE_VOICES)
    assert all(v["language"] is None and v["gender"] is None for v in listed["voices"])
    assert listed["default"] == TONE_VOICES[0]


def test_the_voice_list_is_503_until_the_model_is_loaded(tmp_path):
    # An empty weights directory: the model never loads (loading, then failed).
    settings = Settings(host="127.0.0.1", model_dir=str(tmp_path))
    service = SynthesisService(settings)
    server = ThreadedServer(settings, service).start()
    try:
        response = httpx.get(f"{server.http}/voices", timeout=5)
    finally:
        server.stop()
        service.shutdown()
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "not_ready"
