"""A voice and a lexicon checked against the loaded model, failing as the protocol's errors
(the same codes on the session and the one-shot route)."""

from __future__ import annotations

from kokoro_server.engine.model import KokoroEngine
from kokoro_server.model_facts import UnknownVoiceError, VoiceSpecError
from kokoro_server.serving.protocol import ProtocolError
from kokoro_server.text.pronunciation import Lexicon, PronunciationError


def check_voice(engine: KokoroEngine, voice: str) -> None:
    try:
        engine.check_voice(voice)
    except UnknownVoiceError as exc:
        raise ProtocolError("unknown_voice", str(exc)) from exc
    except VoiceSpecError as exc:  # a malformed blend
        raise ProtocolError("bad_parameter", str(exc)) from exc


def lexicon_of(engine: KokoroEngine, entries: dict[str, str]) -> Lexicon:
    """A request's own lexicon (`lexicon` of `start`), its phonemes checked against the
    model's vocabulary."""
    try:
        return Lexicon(entries, engine.vocab, "lexicon")
    except PronunciationError as exc:
        raise ProtocolError("bad_parameter", str(exc)) from exc
