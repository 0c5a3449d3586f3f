"""Pronunciation control on the real server: inline markup, the session's `lexicon`, the
server's KOKORO_LEXICON file, and clear errors for bad markup and unknown symbols."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.asyncio.client import connect

from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import build_frontend
from kokoro_server.text.pronunciation import Lexicon, PronunciationError, load_lexicon_file
from tests.support.phonemes_route import phonemes
from tests.support.ws_frames import audio_by_sentence, controls, errors, is_type, read_until, send

pytestmark = pytest.mark.model

VOICE = "jf_alpha"
KOKORO = "kˈOkəɹO"


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.http, timeout=30) as c:
        yield c


def test_inline_markup_sets_one_occurrence(client):
    result = phonemes(client, f"Say [Kokoro](/{KOKORO}/), then Kokoro.", voice=VOICE)
    words = result["sentences"][0]["words"]
    assert words[1] == {"text": "Kokoro,", "phonemes": f"{KOKORO}, "}
    assert KOKORO not in words[3]["phonemes"]  # the second one is left to the G2P
    assert result["normalized"] == "Say Kokoro, then Kokoro."


def test_lexicon_in_the_request_applies_to_every_occurrence_in_any_case(client):
    lexicon = {"kokoro": KOKORO, "New York": "nˈu jˈɔɹk"}
    result = phonemes(client, "Kokoro loves KOKORO in New York.", voice=VOICE, lexicon=lexicon)
    texts = [(w["text"], w["phonemes"].strip()) for w in result["sentences"][0]["words"]]
    assert texts[0] == ("Kokoro", KOKORO) and texts[2] == ("KOKORO", KOKORO)
    assert texts[-1] == ("New York.", "nˈu jˈɔɹk.")


def test_markup_wins_over_the_lexicon(client):
    result = phonemes(
        client, "[Kokoro](/kəkˈɔːɹoʊ/) and Kokoro.", voice=VOICE, lexicon={"kokoro": KOKORO}
    )
    said = [w["phonemes"].strip() for w in result["sentences"][0]["words"]]
    assert said[0] == "kəkˈɔːɹoʊ" and said[-1] == f"{KOKORO}."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Say [Kokoro](/kˈOkə§O/) now.", "symbols the model does not know: '§'"),
        ("Say [Kokoro](/ /) now.", "phonemes are empty"),
        ("Say [](/kˈOkəɹO/) now.", "word in brackets is empty"),
        ("Say [Kokoro](/kˈOkəɹO now.", "malformed pronunciation markup"),
    ],
)
def test_bad_markup_is_a_clear_bad_parameter(client, text, message):
    for fmt in ("phonemes", "wav"):
        response = client.post("/invocations", content=json.dumps({"text": text, "format": fmt}))
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "bad_parameter" and message in error["message"]


@pytest.mark.parametrize(
    "lexicon",
    [{"Kokoro": "kˈOkə§O"}, {"Kokoro": 5}, ["Kokoro"], {"": KOKORO}],
    ids=["unknown symbol", "not a string", "not an object", "empty word"],
)
def test_bad_lexicon_is_a_clear_bad_parameter(client, lexicon):
    response = client.post(
        "/invocations",
        content=json.dumps({"text": "Hi.", "format": "phonemes", "lexicon": lexicon}),
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_parameter"


async def test_session_lexicon_changes_what_is_spoken(server):
    async def spoken_seconds(start: dict) -> float:
        async with connect(server.ws) as ws:
            await send(ws, {"type": "start", "format": "pcm", **start})
            await send(ws, {"text": "Kokoro."})
            frames = await read_until(ws, is_type("flushed"))
        assert not errors(frames)
        return len(audio_by_sentence(frames)[0]) / 2 / 24000

    plain = await spoken_seconds({})
    # A deliberately long pronunciation: the audio must grow with it.
    longer = await spoken_seconds({"lexicon": {"kokoro": "kˈOkəɹO kˈOkəɹO kˈOkəɹO"}})
    assert longer > plain + 0.5  # two more "Kokoro"s: well over half a second


async def test_session_errors_are_not_fatal_and_lose_no_other_sentence(server):
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "format": "pcm", "lexicon": {"Kokoro": "kˈOkə§O"}})
        await send(ws, {"type": "text", "text": "Say [Kokoro](/kˈOkə§O/) now. "})
        await send(ws, {"type": "text", "text": "This one is fine."})
        await send(ws, {"type": "flush"})
        frames = await read_until(ws, is_type("flushed"))
    got = errors(frames)
    assert [e["code"] for e in got] == ["bad_parameter", "bad_parameter"]
    assert "lexicon entry 'Kokoro'" in got[0]["message"] and not any(e["fatal"] for e in got)
    starts = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert [s["text"] for s in starts] == ["This one is fine."]
    assert audio_by_sentence(frames)[starts[0]["index"]]


def test_server_lexicon_file_is_read_and_checked(tmp_path, service):
    vocab = service.engine.vocab
    good = tmp_path / "lexicon.json"
    good.write_text(json.dumps({"kokoro": KOKORO}), encoding="utf-8")
    frontend = build_frontend(Settings(lexicon=str(good)), vocab)
    assert frontend("I like Kokoro.", "af_heart").words[-1].phonemes == f"{KOKORO}."
    # The session's lexicon wins over the server's.
    session = Lexicon({"Kokoro": "kəkˈɔːɹoʊ"}, vocab, "lexicon")
    assert frontend("Kokoro.", "af_heart", session).phonemes == "kəkˈɔːɹoʊ."

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kokoro": "k§"}), encoding="utf-8")
    with pytest.raises(PronunciationError, match=r"KOKORO_LEXICON .*'§'"):
        load_lexicon_file(str(bad), vocab)
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    with pytest.raises(PronunciationError, match="JSON object"):
        load_lexicon_file(str(tmp_path / "list.json"), vocab)


def test_lexicon_words_in_japanese_text_need_no_spaces(service):
    vocab = service.engine.vocab
    frontend = build_frontend(Settings(), vocab)
    lexicon = Lexicon({"東京": "toːkʲoː"}, vocab, "lexicon")
    words = frontend("今日東京に行きます。", "jf_alpha", lexicon).words
    assert ("東京", "toːkʲoː ") in [(w.text, w.phonemes) for w in words]
