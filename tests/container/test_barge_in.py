"""Barge-in with the real model: `cancel` while a sentence is being sent and while one is
being synthesized. The test asserts ordering only (no audio of a dropped sentence after
`cancelled`, new text afterwards is spoken); the delays are printed, not asserted, because
they depend on the machine (docs/reliability.md lists measured values).

Synthesis in the worker thread cannot be interrupted: a sentence cancelled mid-synthesis
finishes in the background and its result is discarded, so text sent after the cancel waits
for it.
"""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

from devkit.tone import tone_bytes
from tests.support.barge_in import Recorder, barge_in, kind
from tests.support.transcript import Sentence, parse
from tests.support.ws_frames import send


@pytest.mark.model
def test_cancel_drops_audio_and_the_session_goes_on(make_server):
    # 256-byte audio frames (16 KiB by default): the first sentence goes out in about 470
    # writes, not 8, each one a moment for the cancel to land in. With 8, a loaded machine
    # once sent the whole sentence before this process's client thread got to send its
    # cancel; with 1 KiB (120 writes), once more with three pytest workers on two cores.
    server = make_server(audio_frame_bytes=256)
    figures = asyncio.run(barge_in(server.ws))
    print("\nbarge-in (real model): " + ", ".join(f"{k}={v:.1f}" for k, v in figures.items()))


async def cut_in_flight(url: str, text: str) -> tuple[Sentence, int]:
    async with connect(url, max_queue=None) as ws:
        rec = Recorder(ws)
        await send(ws, {"text": text})
        await rec.wait_for(lambda f: isinstance(f, bytes))
        await send(ws, {"type": "cancel"})
        await rec.wait_for(kind("cancelled"))
        mark = len(rec.frames)
        await send(ws, {"text": "After."})
        await rec.wait_for(kind("flushed"), since=mark)
        await ws.close()
        await rec.task
    transcript = parse([f for _, f in rec.frames])
    assert transcript.problems == []
    assert len(transcript.epochs) == 2
    before, after = transcript.epochs[0].sentences, transcript.epochs[1].sentences
    assert [s.text for s in after] == ["After."] and after[0].complete
    assert len(before) == 1, [s.text for s in before]
    return before[0], transcript.cancelled[0]


def test_cancel_cuts_the_sentence_in_flight(make_tone_server):
    """Tone double, regression: a cancel that arrives while a sentence's frames are being
    written stops them between frames (before the fix, writes that fit the socket buffer
    never yielded, so the whole sentence went out before the cancel was read)."""
    # 64-byte frames: ~1,400 frames for this sentence (under the 250-char split length), so
    # writing them takes far longer than the client's reaction to the first one.
    srv = make_tone_server(audio_frame_bytes=64)
    # One sentence, no clause punctuation, under the 250-char split: any segmenter keeps it
    # whole.
    text = "A long sentence of tone audio that takes many frames to send " * 3 + "and ends."
    cut, dropped = asyncio.run(cut_in_flight(srv.ws, text))
    total = len(tone_bytes(cut.text))
    print(f"\ncut in flight (tone double): {len(cut.audio)} of {total} bytes sent before the cut")
    assert cut.text == text and dropped == 1
    assert not cut.complete and len(cut.audio) < total
