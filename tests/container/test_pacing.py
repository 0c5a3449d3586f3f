"""Trimming and pauses (engine/pacing.py) on synthetic audio, and what the segmenter says
ended each piece (the ending picks the pause). The real model: test_pacing_real_model.py."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from kokoro_server.config import Settings
from kokoro_server.engine.pacing import ENDINGS, Pacing, audible_span, pace
from kokoro_server.engine.word_times import WordTiming
from kokoro_server.text.segmenter import ENDINGS as SEGMENTER_ENDINGS
from kokoro_server.text.segmenter import Piece, SentenceSegmenter

RATE = 24_000


def burst(silence_ms: float, sound_ms: float, after_ms: float, level: float = 0.3) -> np.ndarray:
    """Silence, a 200 Hz tone, silence: an audible span known to the sample."""
    n = round(sound_ms * 24)
    tone = level * np.sin(2 * np.pi * 200 * np.arange(n) / RATE)
    return np.concatenate(
        [np.zeros(round(silence_ms * 24)), tone, np.zeros(round(after_ms * 24))]
    ).astype(np.float32)


def test_audible_span_finds_the_first_and_last_loud_window():
    audio = burst(270, 500, 700)
    start, end = audible_span(audio, -50.0, 120)
    assert start == 270 * 24 and end == 770 * 24
    assert audible_span(np.zeros(2400, np.float32), -50.0, 120) is None
    # -50 dBFS is the line: a tone whose RMS is just under it is not audible, just over is.
    quiet = 10 ** (-50.5 / 20) * math.sqrt(2)
    loud = 10 ** (-49.5 / 20) * math.sqrt(2)
    assert audible_span(burst(100, 200, 100, quiet), -50.0, 120) is None
    assert audible_span(burst(100, 200, 100, loud), -50.0, 120) is not None


def test_a_piece_is_cut_to_its_sound_plus_margins_then_gets_its_pause():
    pacing = Pacing()
    audio = burst(270, 500, 700)
    paced = pace(audio, None, pacing, "sentence")
    # 15 ms before the sound, 40 ms after it, then the 400 ms sentence pause.
    assert paced.audio.size == (15 + 500 + 40 + 400) * 24
    assert paced.lead_cut_ms == pytest.approx(255.0)
    assert paced.pause_ms == pytest.approx(400.0)
    sound = audible_span(paced.audio, -50.0, 120)
    assert sound is not None and sound[0] == 15 * 24 and sound[1] == (15 + 500) * 24
    assert not paced.audio[(15 + 500 + 40) * 24 :].any()  # the pause is silence
    # Nothing audible was cut: what was cut is far below the threshold (here: digital zero).
    assert paced.cut_peak_dbfs == -math.inf


@pytest.mark.parametrize("ending", ENDINGS)
def test_each_ending_gets_its_own_setting(ending):
    settings = Settings(**{f"pause_{ending}_ms": 123.0})
    paced = pace(burst(100, 300, 100), None, Pacing.from_settings(settings), ending)
    assert paced.pause_ms == pytest.approx(123.0, abs=1.0)


def test_pause_scale_scales_the_pause_but_not_the_margins():
    audio = burst(270, 500, 700)
    sizes = {s: pace(audio, None, Pacing(), "clause", scale=s).audio.size for s in (0, 1, 2.5)}
    assert sizes[1] == (15 + 500 + 40 + 200) * 24
    assert sizes[2.5] == (15 + 500 + 40 + 500) * 24
    assert sizes[0] == (15 + 500 + 40) * 24
    with pytest.raises(ValueError, match="pause scale"):
        pace(audio, None, Pacing(), "clause", scale=4.5)


def test_the_audio_is_a_whole_number_of_milliseconds():
    for extra in range(0, 48, 7):
        audio = np.concatenate([burst(100, 300, 100), np.zeros(extra, np.float32)])
        audio[-1 - extra // 2] = 0.2  # moves the end of the audible span by a few samples
        paced = pace(audio, None, Pacing(), "hard")
        assert paced.audio.size % 24 == 0


def voiced_closure_burst(burst_dbfs: float, closure_ms: float = 50.0) -> tuple[np.ndarray, int]:
    """A word ending in a stop: voicing, the closure's silence, a 15 ms noise burst at
    `burst_dbfs` RMS (its release), then the model's 700 ms of silence. Also: where the burst
    ends (samples)."""
    rng = np.random.default_rng(7)
    noise = rng.standard_normal(15 * 24)
    noise *= 10 ** (burst_dbfs / 20) / np.sqrt(np.mean(noise**2))
    voiced = burst(270, 300, closure_ms)
    return np.concatenate([voiced, noise, np.zeros(700 * 24)]).astype(np.float32), (
        voiced.size + noise.size
    )


# -30 dBFS: louder than the line windows are judged by; -60 dBFS: what the real model's
# final /p/ and /t/ bursts measure (bench/results/trim_audit.json), quieter than that line.
@pytest.mark.parametrize("burst_dbfs", [-30.0, -60.0])
@pytest.mark.parametrize("closure_ms", [40.0, 60.0])
def test_a_final_stops_burst_after_its_closure_is_kept(burst_dbfs, closure_ms):
    audio, burst_end = voiced_closure_burst(burst_dbfs, closure_ms)
    paced = pace(audio, None, Pacing(), "sentence")
    lead_cut = round(paced.lead_cut_ms * 24)
    kept = paced.audio[: paced.audio.size - round(paced.pause_ms * 24)]
    # The burst is there sample for sample (the fade falls after it) ...
    assert lead_cut + kept.size >= burst_end + 5 * 24
    burst_start = burst_end - 15 * 24
    assert np.array_equal(
        kept[burst_start - lead_cut : burst_end - lead_cut], audio[burst_start:burst_end]
    )
    assert paced.cut_peak_dbfs == -math.inf  # only silence was cut
    # ... and the model's long silence after it is still cut.
    assert kept.size <= (15 + 300 + closure_ms + 15 + 40) * 24


def test_what_is_below_the_release_level_or_beyond_its_reach_is_still_cut():
    # The model's own silence (about -85 dBFS) after the sound is not a release.
    audio, _ = voiced_closure_burst(-85.0)
    paced = pace(audio, None, Pacing(), "sentence")
    assert paced.audio.size == (15 + 300 + 40 + 400) * 24
    assert -95.0 < paced.cut_peak_dbfs < -70.0
    # A release 250 ms after the last sound lies beyond the 200 ms reach: cut, so a stray
    # noise cannot hold back the pause.
    late, _ = voiced_closure_burst(-60.0, closure_ms=250.0)
    paced = pace(late, None, Pacing(), "sentence")
    assert paced.audio.size == (15 + 300 + 40 + 400) * 24
    assert paced.cut_peak_dbfs > -60.0
    # The reach and the level are settings: with no reach, the tail alone is kept.
    near, _ = voiced_closure_burst(-60.0)
    assert (
        pace(near, None, Pacing(release_ms=0.0), "sentence").audio.size
        == (15 + 300 + 40 + 400) * 24
    )


def test_cut_edges_fade_and_uncut_edges_stay_as_they_were():
    loud_from_start = burst(0, 300, 0)
    paced = pace(loud_from_start, None, Pacing(pauses_ms=dict.fromkeys(ENDINGS, 0.0)), "hard")
    assert np.array_equal(paced.audio[: loud_from_start.size], loud_from_start)
    # Cut on both sides: the kept audio ramps from and to zero over the 5 ms fade.
    noisy = burst(200, 300, 200) + np.float32(1e-3)  # -60 dBFS floor: cut, but not zero
    paced = pace(noisy, None, Pacing(), "hard")
    assert abs(paced.audio[0]) < 1e-3 / 100
    assert paced.cut_peak_dbfs == pytest.approx(-60.0, abs=0.1)


def test_words_move_with_the_cut_and_stay_inside_the_audio():
    audio = burst(270, 500, 700)
    words = [
        WordTiming("early", 250, 300),  # starts in the cut silence: clamped to the start
        WordTiming("middle", 400, 600),
        WordTiming("late", 750, 900),  # runs into the cut tail: clamped to the kept end
    ]
    paced = pace(audio, words, Pacing(), "sentence")
    assert paced.words is not None
    moved = [(w.text, w.start_ms, w.end_ms) for w in paced.words]
    assert moved == [("early", 0, 45), ("middle", 145, 345), ("late", 495, 555)]
    # The pause after the piece belongs to no word.
    assert paced.words[-1].end_ms <= paced.audio.size / 24 - 400


def test_several_calls_are_trimmed_alike_and_joined_by_what_ended_each():
    first, second = burst(270, 300, 700), burst(250, 200, 650)
    audio = np.concatenate([first, second])
    offset = first.size // 24  # ms where the second call starts
    words = [WordTiming("one", 280, 560), WordTiming("two", offset + 260, offset + 440)]
    paced = pace(
        audio,
        words,
        Pacing(),
        "sentence",
        call_samples=(first.size, second.size),
        joins=("clause",),
    )
    # call 1 kept: 15 + 300 + 40; clause pause 200; call 2 kept: 15 + 200 + 40; pause 400.
    assert paced.audio.size == (355 + 200 + 255 + 400) * 24
    assert paced.words is not None
    assert [(w.start_ms, w.end_ms) for w in paced.words] == [(25, 305), (555 + 25, 555 + 205)]
    with pytest.raises(ValueError, match="joins"):
        pace(audio, None, Pacing(), "end", call_samples=(first.size, second.size))


def test_turned_off_it_gives_the_models_audio_back():
    audio = burst(270, 500, 700)
    words = [WordTiming("w", 275, 760)]
    paced = pace(audio, words, Pacing(enabled=False), "sentence")
    assert paced.audio is audio and paced.words == tuple(words) and paced.pause_ms == 0


def test_silent_audio_gives_nothing_not_even_the_pause():
    # A piece with nothing audible stays empty, so the session reports it as `nothing_to_say`
    # instead of sending a pause that stands for a sentence nobody hears.
    paced = pace(np.zeros(2400, np.float32), [WordTiming("x", 10, 20)], Pacing(), "clause")
    assert paced.audio.size == 0 and paced.pause_ms == 0
    assert paced.words == (WordTiming("x", 0, 0),)


@pytest.mark.parametrize(
    "changes",
    [
        {"threshold_dbfs": 3.0},
        {"window_ms": 0.0},
        {"lead_ms": -1.0},
        {"release_dbfs": -40.0},  # louder than the threshold
        {"release_ms": 1500.0},
        {"pauses_ms": {"sentence": 400.0}},
        {"pauses_ms": dict.fromkeys(ENDINGS, -5.0)},
    ],
)
def test_bad_settings_are_refused(changes):
    with pytest.raises(ValueError):
        Pacing(**changes)


def test_defaults_are_the_documented_settings_and_cover_every_ending():
    assert Pacing() == Pacing.from_settings(Settings())
    assert set(ENDINGS) == set(SEGMENTER_ENDINGS)
    with pytest.raises(ValueError, match="ending"):
        pace(burst(10, 10, 10), None, Pacing(), "comma")


# -- what ended each piece ---------------------------------------------------------------


def pieces(text: str, *, first_clause: bool = False, max_chars: int = 250) -> list[Piece]:
    segmenter = SentenceSegmenter(first_clause=first_clause, max_chars=max_chars)
    return segmenter.feed(text) + segmenter.flush()


def endings(text: str, **options: Any) -> list[tuple[str, str]]:
    return [(str(p), p.ending) for p in pieces(text, **options)]


def test_the_segmenter_says_how_each_sentence_ended():
    assert endings("It works. Does it? Yes! Then\nnext line. 今日は。明日？ and a tail") == [
        ("It works.", "sentence"),
        ("Does it?", "question"),
        ("Yes!", "sentence"),
        ("Then", "paragraph"),
        ("next line.", "sentence"),
        ("今日は。", "sentence"),
        ("明日？", "question"),
        ("and a tail", "end"),
    ]
    # A terminator followed by a line break ends a paragraph (or a list item).
    assert endings("First point.\n- Second point?\n\nNew paragraph") == [
        ("First point.", "paragraph"),
        ("- Second point?", "paragraph"),
        ("New paragraph", "end"),
    ]
    assert endings("Really?!") == [("Really?!", "question")]


def test_clause_releases_and_long_cuts_say_so():
    text = "Well, as I was saying before you interrupted me, the answer is yes. And more."
    assert endings(text, first_clause=True) == [
        ("Well, as I was saying before you interrupted me,", "clause"),
        ("the answer is yes.", "sentence"),
        ("And more.", "sentence"),
    ]
    long_clause = "one, " + "word " * 30 + "end."
    cut = pieces(long_clause, max_chars=40)
    assert [p.ending for p in cut[:-1]] == ["hard"] * (len(cut) - 1)
    assert cut[-1].ending == "sentence"
    commas = "alpha beta gamma delta, epsilon zeta eta theta, iota kappa lambda mu."
    assert [p.ending for p in pieces(commas, max_chars=50)] == ["clause", "sentence"]


def test_pieces_are_still_plain_strings():
    [piece] = pieces("Hello there.")
    assert piece == "Hello there." and isinstance(piece, str)
    with pytest.raises(ValueError, match="ending"):
        Piece("x", "comma")


# -- the session option -------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-0.5, 4.5, "2", True, None])
def test_pause_scale_is_checked_and_a_bad_one_is_not_fatal(tone_server, bad):
    from websockets.sync.client import connect

    start = {"type": "start", "pause_scale": bad}
    with connect(tone_server.ws) as ws:
        ws.send(json.dumps(start))
        if bad is not None:
            error = json.loads(ws.recv(timeout=10))
            assert error["type"] == "error" and error["code"] == "bad_parameter"
            assert error["fatal"] is False and "pause_scale" in error["message"]
        ws.send(json.dumps({"type": "start", "pause_scale": 1.5}))
        ws.send(json.dumps({"text": "Still here."}))
        kinds = []
        while "flushed" not in kinds:
            frame = ws.recv(timeout=10)
            kinds.append("audio" if isinstance(frame, bytes) else json.loads(frame)["type"])
    assert kinds[0] == "sentence_start" and "audio" in kinds and "error" not in kinds
