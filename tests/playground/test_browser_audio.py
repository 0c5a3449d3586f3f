"""The playground in a real Chromium against the real local stack: the answer is heard while
it streams, through the page's worklet, exactly as it arrived.

Checked inside the page (tests/support/playground_page.py): the output tap's recording is
non-silent and is the received audio sample for sample (nothing lost, repeated or inserted
where the audio was on time), the worklet played as many frames as the agent sent, and the
page shows time to first text and first audio; with a slow text source, the first audio comes
while the text is still streaming."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.playground import Playground, serve_playground
from tests.support.playground_page import PlaygroundPage
from tests.support.servers import ThreadedServer

pytestmark = pytest.mark.browser
ANSWER = "Your order shipped this morning. It should arrive on Thursday."
# A short first sentence, then a long tail written slowly (about ten seconds of text).
SLOW_ANSWER = (
    "Sure. Let me look that up for you while we talk, because the warehouse sent two "
    "parcels this week and one of them went out a day later than the other."
)
SAMPLE_RATE = 24000


@pytest.fixture(scope="module")
def stack(server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Playground]:
    yield from serve_playground(server.ws, [ANSWER], tmp_path_factory)


@pytest.fixture(scope="module")
def slow_stack(
    server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Playground]:
    yield from serve_playground(server.ws, [SLOW_ANSWER], tmp_path_factory, 3.0)


@pytest.mark.replayable
def test_answer_is_heard_as_received(stack: Playground, page: PlaygroundPage) -> None:
    page.open(stack.url)
    page.start_recording()
    page.send("Where is my order?")
    turn = page.wait_turn(1, ("done",), timeout_s=120)
    page.sleep(0.2)  # a little silence after the end is recorded too
    page.stop_recording()
    out = page.compare_output(1)

    assert turn["errors"] == [] and page.page_errors == []
    assert turn["text"].strip() == ANSWER
    assert out["received"] == turn["receivedFrames"] > SAMPLE_RATE  # over a second of speech
    assert turn["metrics"]["audio_bytes"] == 2 * turn["receivedFrames"]
    assert turn["playedFrames"] == turn["receivedFrames"]  # the worklet played all of it
    # What went to the speakers: audible, and the received audio sample for sample. A gap in
    # the recording's frames (the browser's audio thread skipped a quantum: twice in one
    # answer, once, in a full run on two cores) moves no sample: the walk below still has to
    # find every one, in order. More than a couple would be a recording not worth comparing.
    assert out["gapsInRecording"] <= 2
    assert out["rms"] > 0.01 and out["peak"] > 0.1
    assert out["unplayed"] == 0 and out["after"] == 0
    if turn["underruns"] == 0:
        assert out["matched"] == out["received"] and out["changed"] == out["inserted"] == 0
    else:  # the audio came late (a busy machine): only the fades around each gap differ
        assert out["changed"] <= 2 * 48 * turn["underruns"]
    # The timings the page shows.
    metrics = page.page.locator(".turn .metrics").first
    ttft, ttfa = metrics.get_attribute("data-ttft"), metrics.get_attribute("data-ttfa")
    assert ttft is not None and ttfa is not None, "the page shows both timings"
    assert 0 < float(ttft) <= float(ttfa)
    assert "first audio" in metrics.inner_text()


def test_first_audio_comes_while_the_text_still_streams(
    slow_stack: Playground, page: PlaygroundPage
) -> None:
    page.open(slow_stack.url)
    page.send("Where is my order?")
    turn = page.wait_turn(1, ("done",), timeout_s=120)
    assert turn["errors"] == []
    assert turn["firstAudioAt"] < turn["lastTextAt"]
    assert turn["textAtFirstAudio"] < len(turn["text"].strip()) == len(SLOW_ANSWER)
    text = page.page.locator(".turn .metrics").first.inner_text()
    assert "% of the text written at first audio" in text


def test_page_loads_nothing_but_the_page_server_and_the_agent(
    stack: Playground, page: PlaygroundPage
) -> None:
    page.open(stack.url)
    assert page.requests
    allowed = (stack.url, stack.agent_ws)
    assert [u for u in page.requests if not u.startswith(allowed)] == []
    assert page.page_errors == []


@pytest.mark.replayable
def test_speed_control_speeds_the_voice_up(stack: Playground, page: PlaygroundPage) -> None:
    page.open(stack.url)
    page.send("Where is my order?")
    normal = page.wait_turn(1, ("done",), timeout_s=120)
    page.evaluate(
        "() => { const s = document.getElementById('speed'); s.value = s.max;"
        " s.dispatchEvent(new Event('input')); }"
    )
    assert page.page.locator("#speed-value").inner_text() == "2.0×"
    page.send("Where is my order?")
    fast = page.wait_turn(2, ("done",), timeout_s=120)
    sent = page.evaluate("() => window.playground.connection.sent")
    assert [m.get("speed") for m in sent if "prompt" in m] == [None, 2]
    assert fast["text"] == normal["text"]
    assert fast["receivedFrames"] < 0.7 * normal["receivedFrames"]
