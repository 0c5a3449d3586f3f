"""Written text to spoken words, per language: `normalize(text, language) -> [Written]`.

One module per language (English is a package: tables, verbalizers, rules, heteronyms; es,
fr, it and pt-br each give their words as a `Locale` for the rules they share); each returns
the sentence as its written words, each with what is said for it, so captions and word
timestamps keep the written form. Languages without a module are left as written.
"""

from __future__ import annotations

from collections.abc import Callable

from kokoro_server.text.normalize import en, es, fr, hi, it, ja, locale_rules, pt, zh
from kokoro_server.text.normalize.core import Written, spoken_text
from kokoro_server.text.normalize.locale_numbers import Locale

Normalizer = Callable[[str], list[Written]]


def _in(locale: Locale) -> Normalizer:
    """The shared rules (locale_rules.py) read with one language's words."""
    return lambda text: locale_rules.normalize(text, locale)


NORMALIZERS: dict[str, Normalizer] = {
    "en-us": en.normalize,
    "en-gb": lambda text: en.normalize(text, british=True),
    "es": _in(es.SPANISH),
    "fr-fr": _in(fr.FRENCH),
    "it": _in(it.ITALIAN),
    "pt-br": _in(pt.PORTUGUESE),
    "hi": hi.normalize,
    "ja": ja.normalize,
    "zh": zh.normalize,
}


def normalize(text: str, language: str) -> list[Written]:
    """`language` as text/languages.py names it ("en-us", "fr-fr", "ja"...)."""
    return NORMALIZERS[language](text)


def say(text: str, language: str) -> str:
    """The whole sentence as it is said (the `normalized` field of the phonemes format)."""
    return spoken_text(normalize(text, language))


__all__ = ["NORMALIZERS", "Written", "normalize", "say"]
