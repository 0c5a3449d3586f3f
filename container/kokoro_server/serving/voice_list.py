"""The voice list: GET /voices, and `{"list": "voices"}` on POST /invocations (SageMaker
reaches only /invocations). Both answer the same body."""

from __future__ import annotations

from typing import Any

from kokoro_server.engine.model import KokoroEngine
from kokoro_server.model_facts import BLEND_SYNTAX, MAX_BLEND_VOICES
from kokoro_server.serving.protocol import ProtocolError, excerpt
from kokoro_server.text.languages import LANGUAGES

LISTS = ("voices",)  # what `{"list": ...}` can ask for
_GENDERS = {"f": "female", "m": "male"}


def _voice_entry(name: str, user_file: bool) -> dict[str, Any]:
    """A voice as listed: Kokoro's names say language and gender (`af_`); `user_file`: from
    KOKORO_USER_VOICES_DIR, not the official voice file."""
    return {
        "name": name,
        "language": LANGUAGES.get(name[:1]),
        "gender": _GENDERS.get(name[1:2]),
        "user_file": user_file,
    }


def voice_list(engine: KokoroEngine) -> dict[str, Any]:
    # The tone test double (devkit/tone.py) has no user voices.
    user_voices = engine.user_voices
    return {
        "voices": [_voice_entry(name, name in user_voices) for name in engine.voice_names],
        "default": engine.default_voice,
        "max_blend": MAX_BLEND_VOICES,
        "blend_syntax": BLEND_SYNTAX,
    }


def check_list_request(body: dict[str, Any]) -> None:
    """A list request is `{"list": "voices"}` and nothing else: a text beside it would be
    ambiguous (list or speak?), so it is refused rather than half answered."""
    wanted = body["list"]
    if wanted not in LISTS:
        raise ProtocolError(
            "bad_parameter", f"list must be one of {', '.join(LISTS)}, not {excerpt(wanted)}"
        )
    others = sorted(key for key in body if key != "list")
    if others:
        raise ProtocolError(
            "bad_parameter", f"'list' takes no other fields (got {', '.join(others)})"
        )
