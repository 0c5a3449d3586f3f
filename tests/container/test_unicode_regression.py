"""Regression: JSON escapes can carry unpaired surrogates ("\\ud800") that are valid JSON but
not valid Unicode text. Before the fix the text reached synthesis, which failed with
UnicodeEncodeError: the client's mistake came back as `internal` (a server failure, with a
stack trace in the log). Now the frame is refused up front with `bad_parameter`."""

from __future__ import annotations

import asyncio

import pytest

from devkit.tone import tone_bytes
from kokoro_server.serving.protocol import ProtocolError, parse_message
from tests.support.script_runner import check, run_script
from tests.support.session_scripts import Script, Step

FRAMES = [
    '{"text": "Hi \\ud800 there."}',
    '{"type": "text", "text": "a\\udc80. "}',
    '{"type": "start", "request_id": "\\udfff"}',
]


@pytest.mark.parametrize("frame", FRAMES)
def test_unpaired_surrogate_is_a_bad_parameter_and_the_session_goes_on(tone_server, frame):
    script = Script([Step(frame, "bad_parameter", label="surrogate")], "Still spoken.")
    transcript, code = asyncio.run(run_script(tone_server.ws, script, timeout=10))
    check(script, transcript, code, tone_bytes)
    assert "unpaired surrogate" in transcript.errors[0]["message"]


def test_paired_surrogates_are_fine():
    msg = parse_message({"type": "text", "text": "smile \U0001f600."}, 100)
    assert msg.text.endswith("\U0001f600.")
    with pytest.raises(ProtocolError):
        parse_message({"type": "text", "text": "half \ud83d."}, 100)
