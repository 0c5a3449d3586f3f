"""Values far outside any field's range, on a real server over loopback: a number longer than
Python converts (4,300 digits), one too large for a float, infinities, a 20,000-character voice.
Each is a client mistake with its documented code, not `internal`, and the error quotes at
most a short excerpt of what was sent."""

from __future__ import annotations

import json
import re

import pytest
from websockets.asyncio.client import connect

from tests.support.one_shot import post
from tests.support.ws_frames import controls, is_type, read_until, send

pytestmark = [pytest.mark.model, pytest.mark.replayable]

HUGE = "9" * 5000  # past Python's integer-conversion limit: json.loads alone raises on it
BIG = "9" * 401  # converts to an int, but not to a float
LONG_VOICE = "a" * 20_000

NUMBERS = {"5000-digits": HUGE, "-5000-digits": "-" + HUGE, "401-digits": BIG}
NUMBERS |= {"1e999": "1e999", "-1e999": "-1e999"}

# (field, what, JSON literal of its value, code): every numeric field of `start`, and voice.
START_FIELDS = [
    *[
        (name, what, value, "bad_parameter")
        for name in ("speed", "pause_scale", "sample_rate", "frame_ms", "request_id")
        for what, value in NUMBERS.items()
    ],
    ("voice", "20000-chars", json.dumps(LONG_VOICE), "bad_parameter"),
]
TEXT_FIELDS = [
    *[("speed", what, value, "bad_parameter") for what, value in NUMBERS.items()],
    ("text", "5000-digits", HUGE, "missing_text"),
    ("voice", "20000-chars", json.dumps(LONG_VOICE), "bad_parameter"),
]


def start_frame(name: str, literal: str) -> str:
    return f'{{"type": "start", "{name}": {literal}}}'


def text_frame(name: str, literal: str) -> str:
    fields = {"text": '"Hello."', name: literal}
    return "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + ', "type": "text"}'


def assert_short(message: str) -> None:
    # A clear message that names the problem, quoting no more than an excerpt of the value.
    assert message and len(message) <= 200, message[:300]
    assert not re.search(r"9{100}|a{100}", message)


BAD_FRAMES = [
    *[pytest.param(start_frame(n, v), c, id=f"start-{n}-{w}") for n, w, v, c in START_FIELDS],
    *[pytest.param(text_frame(n, v), c, id=f"text-{n}-{w}") for n, w, v, c in TEXT_FIELDS],
    pytest.param('{"type": ' + json.dumps(LONG_VOICE) + "}", "unknown_type", id="type-20000"),
]


@pytest.mark.parametrize(("frame", "code"), BAD_FRAMES)
async def test_session_refuses_huge_values_and_goes_on(server, frame, code):
    async with connect(server.ws, max_size=None) as ws:
        await ws.send(frame)
        frames = await read_until(ws, is_type("error"), timeout=10)
        await send(ws, {"text": "Still here."})
        after = await read_until(ws, is_type("flushed"))
    error = controls(frames)[-1]
    assert (error["code"], error["fatal"]) == (code, False), error["message"][:300]
    assert_short(error["message"])
    assert [c["text"] for c in controls(after) if c["type"] == "sentence_start"] == ["Still here."]


ONE_SHOT_BODIES = [
    *[
        (f'{{"text": "Hello.", "{n}": {v}}}', code)
        for n, _, v, code in START_FIELDS
        if n != "frame_ms"  # refused on this route whatever its value
    ],
    ('{"text": ' + HUGE + "}", "missing_text"),
]


def test_one_shot_refuses_huge_values_with_400(server):
    for body, code in ONE_SHOT_BODIES:
        response = post(server, body)
        assert response.status_code == 400, (body[:60], response.text[:300])
        error = response.json()["error"]
        assert error["code"] == code, (body[:60], error)
        assert_short(error["message"])
    assert post(server, {"text": "Still here."}).status_code == 200
