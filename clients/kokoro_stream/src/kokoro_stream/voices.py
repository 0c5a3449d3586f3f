"""The server's voice list (`GET /voices`, or `{"list": "voices"}` on POST /invocations), typed.

Both routes answer the same JSON (docs/protocol.md, Voices and blends):
`{"voices": [{"name", "language", "gender", "user_file"}, ...], "default", "max_blend",
"blend_syntax"}`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# The one-shot body that asks for the list where only /invocations is reachable (SageMaker).
LIST_VOICES_BODY = {"list": "voices"}


class VoiceListError(ValueError):
    """The server's answer is not a voice list."""


@dataclass(frozen=True)
class VoiceInfo:
    name: str
    language: str | None  # from the name's first letter; None if it names no language
    gender: str | None  # "female" / "male" from the second letter
    user_file: bool  # a deployment's own voice, not the official voice file's

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VoiceList:
    voices: tuple[VoiceInfo, ...]
    default: str
    max_blend: int
    blend_syntax: str

    @classmethod
    def from_json(cls, body: Any) -> VoiceList:
        """The list the server answered, or VoiceListError naming what is wrong with it."""
        if not isinstance(body, dict) or not isinstance(body.get("voices"), list):
            raise VoiceListError(f"not a voice list: {str(body)[:120]}")
        default, max_blend, syntax = (body.get(k) for k in ("default", "max_blend", "blend_syntax"))
        if not isinstance(default, str) or not isinstance(syntax, str):
            raise VoiceListError("a voice list needs a string 'default' and 'blend_syntax'")
        if not isinstance(max_blend, int) or isinstance(max_blend, bool):
            raise VoiceListError("a voice list needs an integer 'max_blend'")
        return cls(tuple(_voice(v) for v in body["voices"]), default, max_blend, syntax)

    def as_dict(self) -> dict[str, Any]:
        """The server's JSON form again (what the agent passes on)."""
        return {
            "voices": [v.as_dict() for v in self.voices],
            "default": self.default,
            "max_blend": self.max_blend,
            "blend_syntax": self.blend_syntax,
        }

    def names(self) -> list[str]:
        return [v.name for v in self.voices]


def _voice(item: Any) -> VoiceInfo:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise VoiceListError(f"a voice needs a name: {str(item)[:120]}")
    language, gender = item.get("language"), item.get("gender")
    return VoiceInfo(
        item["name"],
        language if isinstance(language, str) else None,
        gender if isinstance(gender, str) else None,
        item.get("user_file") is True,
    )
