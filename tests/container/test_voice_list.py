"""`{"list": "voices"}` on POST /invocations: the voice list where SageMaker reaches only
/invocations, on the real Kokoro-82M model over real HTTP.

It answers GET /voices' body; anything else beside or instead of "voices" is refused, and,
being a read of what is loaded with no synthesis, it is never refused as busy nor counted
as a session.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from websockets.asyncio.client import connect

from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.one_shot import post
from tests.support.servers import ThreadedServer

LIST = {"list": "voices"}


def _wait_until(check, what: str, timeout: float = 10.0) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, f"never: {what}"
        time.sleep(0.01)


def test_the_list_request_answers_the_body_of_get_voices(server, service):
    listed = post(server, LIST)
    assert listed.status_code == 200
    assert listed.headers["content-type"] == "application/json"
    body = listed.json()
    assert body == httpx.get(f"{server.http}/voices", timeout=5).json()
    assert [v["name"] for v in body["voices"]] == service.engine.voice_names
    assert body["default"] == service.engine.default_voice


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"list": "voice"}, "list must be one of voices, not 'voice'"),
        ({"list": ["voices"]}, "not ['voices']"),
        ({"list": None}, "not None"),
        ({"list": "voices", "text": "Hello there."}, "no other fields (got text)"),
        ({"list": "voices", "voice": "jf_alpha", "format": "mp3"}, "(got format, voice)"),
    ],
)
def test_any_other_list_or_a_list_with_other_fields_is_a_bad_parameter(server, body, words):
    response = post(server, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_parameter"
    assert words in error["message"]


def test_the_list_request_is_503_until_the_model_is_loaded(tmp_path):
    # An empty weights directory: the model never loads (loading, then failed).
    settings = Settings(host="127.0.0.1", model_dir=str(tmp_path))
    service = SynthesisService(settings)
    server = ThreadedServer(settings, service).start()
    try:
        response = post(server, LIST)
        bad = post(server, {"list": "nothing"})
    finally:
        server.stop()
        service.shutdown()
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "not_ready"
    assert bad.status_code == 400  # a malformed request is refused as such, loaded or not


async def test_listing_voices_takes_no_slot_and_is_never_busy(make_server):
    srv = make_server(max_sessions=1)
    async with connect(srv.ws):  # the one session the server takes
        await asyncio.to_thread(_wait_until, lambda: srv.active_sessions() == 1, "admitted")
        speak = await asyncio.to_thread(post, srv, {"text": "Hello there."})
        assert speak.status_code == 503 and speak.json()["error"]["code"] == "busy"
        listed = await asyncio.to_thread(post, srv, LIST)
        assert listed.status_code == 200 and listed.json()["voices"]
        assert srv.active_sessions() == 1
        srv.call(lambda: setattr(srv.app.state, "draining", True))
        assert (await asyncio.to_thread(post, srv, LIST)).status_code == 200
