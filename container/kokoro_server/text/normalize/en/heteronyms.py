"""English heteronyms: the sense a spelling has in this sentence, read from its neighbours.

No part-of-speech model: spaCy's English models are not on the package index (only
third-party re-uploads), so misaki's tagger cannot run here. These are rules of our own over
the words around the heteronym (a determiner before it makes a noun, "to" or a modal a verb,
past-time words a past tense...). Each sense carries its American English phonemes in
espeak-ng's notation, which replace espeak-ng's own guess for that word only. A word whose
context says nothing keeps espeak-ng's reading (espeak-ng has rules of its own for some).
See docs/speech.md for the measurement against espeak-ng alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from kokoro_server.text.normalize.core import word_set

DETERMINERS = {
    "the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "its",
    "our", "their", "every", "each", "any", "some", "no", "another", "whose", "one",
}  # fmt: skip
NUMBER_WORDS = {
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    "hundred", "thousand", "million", "billion", "half", "a", "an",
}  # fmt: skip
PREPOSITIONS = {"of", "in", "on", "at", "for", "with", "from", "by", "about", "into", "as"}
VERB_BEFORE = {
    "to", "will", "would", "can", "could", "should", "must", "may", "might", "shall", "do",
    "does", "did", "don't", "doesn't", "didn't", "won't", "can't", "cannot", "couldn't",
    "wouldn't", "shouldn't", "please", "let's", "i", "you", "we", "they", "he", "she", "who",
    "never", "always", "usually", "often", "also", "i'll", "you'll", "we'll", "they'll",
    "she'll", "he'll", "i'd", "you'd", "we'd", "they'd", "not", "just", "and", "or",
}  # fmt: skip
PAST_WORDS = re.compile(
    r"\b(yesterday|ago|last (?:week|night|month|year|time|summer|winter)|earlier|already"
    r"|in (?:1[0-9]|20)\d\d|once)\b",
    re.IGNORECASE,
)

# word: sense -> American English phonemes (espeak-ng notation, stress marks included)
SENSES: dict[str, dict[str, str]] = {
    "bass": {"fish": "bˈæs", "music": "bˈeɪs"},
    "wound": {"injury": "wˈuːnd", "past": "wˈaʊnd"},
    "minute": {"adjective": "maɪnˈuːt", "noun": "mˈɪnɪt"},
    "read": {"past": "ɹˈɛd", "present": "ɹˈiːd"},
    "lead": {"metal": "lˈɛd", "verb": "lˈiːd"},
    "live": {"adjective": "lˈaɪv", "verb": "lˈɪv"},
    "tear": {"noun": "tˈɪɹ", "verb": "tˈɛɹ"},
    "close": {"adjective": "klˈoʊs", "verb": "klˈoʊz"},
    "object": {"noun": "ˈɑːbdʒɛkt", "verb": "əbdʒˈɛkt"},
    "record": {"noun": "ɹˈɛkɚd", "verb": "ɹᵻkˈɔːɹd"},
    "present": {"noun": "pɹˈɛzənt", "verb": "pɹɪzˈɛnt"},
    "content": {"noun": "kˈɑːntɛnt", "adjective": "kəntˈɛnt"},
    "desert": {"noun": "dˈɛzɚt", "verb": "dᵻzˈɜːt"},
    "invalid": {"adjective": "ɪnvˈælɪd", "noun": "ˈɪnvəlɪd"},
    "polish": {"verb": "pˈɑːlɪʃ", "nationality": "pˈoʊlɪʃ"},
    "wind": {"noun": "wˈɪnd", "verb": "wˈaɪnd"},
    "bow": {"bend": "bˈaʊ", "ribbon": "bˈoʊ"},
    "row": {"line": "ɹˈoʊ", "quarrel": "ɹˈaʊ"},
    "use": {"noun": "jˈuːs", "verb": "jˈuːz"},
    "produce": {"noun": "pɹˈoʊduːs", "verb": "pɹədˈuːs"},
    "refuse": {"noun": "ɹˈɛfjuːs", "verb": "ɹᵻfjˈuːz"},
    "permit": {"noun": "pˈɜːmɪt", "verb": "pɚmˈɪt"},
    "does": {"deer": "dˈoʊz", "verb": "dˈʌz"},
    "dove": {"bird": "dˈʌv", "past": "dˈoʊv"},
    "estimate": {"noun": "ˈɛstᵻmɪt", "verb": "ˈɛstᵻmˌeɪt"},
    "project": {"noun": "pɹˈɑːdʒɛkt", "verb": "pɹədʒˈɛkt"},
    "separate": {"adjective": "sˈɛpɹət", "verb": "sˈɛpɚɹˌeɪt"},
    "resume": {"noun": "ɹˈɛzəmˌeɪ", "verb": "ɹᵻzˈuːm"},
    "contract": {"noun": "kˈɑːntɹækt", "verb": "kəntɹˈækt"},
    "increase": {"noun": "ˈɪŋkɹiːs", "verb": "ɪŋkɹˈiːs"},
    "decrease": {"noun": "dˈiːkɹiːs", "verb": "dᵻkɹˈiːs"},
    "conduct": {"noun": "kˈɑːndʌkt", "verb": "kəndˈʌkt"},
    "conflict": {"noun": "kˈɑːnflɪkt", "verb": "kənflˈɪkt"},
    "convert": {"noun": "kˈɑːnvɜːt", "verb": "kənvˈɜːt"},
    "insult": {"noun": "ˈɪnsʌlt", "verb": "ɪnsˈʌlt"},
    "progress": {"noun": "pɹˈɑːɡɹɛs", "verb": "pɹəɡɹˈɛs"},
    "protest": {"noun": "pɹˈoʊtɛst", "verb": "pɹətˈɛst"},
    "survey": {"noun": "sˈɜːveɪ", "verb": "sɚvˈeɪ"},
    "suspect": {"noun": "sˈʌspɛkt", "verb": "səspˈɛkt"},
    "export": {"noun": "ˈɛkspɔːɹt", "verb": "ɛkspˈɔːɹt"},
    "house": {"noun": "hˈaʊs", "verb": "hˈaʊz"},
    "abuse": {"noun": "ɐbjˈuːs", "verb": "ɐbjˈuːz"},
    "excuse": {"noun": "ɛkskjˈuːs", "verb": "ɛkskjˈuːz"},
    "rebel": {"noun": "ɹˈɛbəl", "verb": "ɹᵻbˈɛl"},
}


class Context:
    """The words of the sentence around one heteronym, lower-cased."""

    def __init__(self, words: list[str], index: int, sentence: str) -> None:
        self.word = words[index]
        self.prev = words[index - 1] if index > 0 else ""
        self.prev2 = words[index - 2] if index > 1 else ""
        self.next = words[index + 1] if index + 1 < len(words) else ""
        # A clause after a colon starts like a sentence ("Option B: use a managed database").
        self.first = index == 0 or self.prev in (":", ";")
        self.sentence = sentence

    @property
    def after_determiner(self) -> bool:
        return (
            self.prev in DETERMINERS
            or self.prev.endswith(("'s", "’s"))
            or (self.prev2 in DETERMINERS and self.prev not in VERB_BEFORE)
        )

    @property
    def verb_position(self) -> bool:
        if self.prev in VERB_BEFORE and self.prev not in ("and", "or", "not", "just"):
            return True
        # "and record any changes": a verb when coordinated and followed by its object.
        if self.prev in ("and", "or") and self.next in DETERMINERS:
            return True
        # Imperative at the start: "Separate the egg whites", "Polish the silver".
        objects = DETERMINERS | NUMBER_WORDS | {"it", "them"}
        return (self.first or self.prev == "please") and self.next in objects


Chooser = Callable[[Context], "str | None"]


def _noun_or_verb(noun: str = "noun", verb: str = "verb") -> Chooser:
    def choose(c: Context) -> str | None:
        if c.after_determiner or c.prev in PREPOSITIONS:
            return noun
        if c.verb_position:
            return verb
        # "Muscles contract when ...": after a plural subject, before a conjunction.
        if c.next in ("when", "if", "as", "quickly", "slowly", "automatically") and c.prev.endswith(
            "s"
        ):
            return verb
        return None

    return choose


def _bass(c: Context) -> str | None:
    fish = (
        r"\b(caught|catch|catching|fish|fishing|pound|lake|river|striped|largemouth"
        r"|smallmouth|sea|grilled|fillet)\b"
    )
    return "fish" if re.search(fish, c.sentence, re.IGNORECASE) else "music"


def _wound(c: Context) -> str | None:
    if c.after_determiner or c.prev in word_set("clean dress treat bandage open deep the"):
        return "injury"
    if c.next in word_set("up down around the it tight tightly back through its his her their a"):
        return "past"
    return "injury"


def _minute(c: Context) -> str | None:
    if c.prev in word_set("are is was were so very too most quite extremely be"):
        return "adjective"
    if c.next in word_set("details differences amount amounts traces particles changes quantities"):
        return "adjective"
    return "noun"


def _read(c: Context) -> str | None:
    if c.prev in VERB_BEFORE - word_set(
        "i you we they he she who and or just also never always often"
    ):
        return "present"
    if c.prev in word_set(
        "have has had i've you've we've they've was were been being is already well"
    ):
        return "past"
    if c.prev in {"usually", "always", "often", "never", "sometimes"}:
        return "present"
    return "past" if PAST_WORDS.search(c.sentence) else "present"


def _lead(c: Context) -> str | None:
    metal_next = word_set(
        "paint pipes pipe poisoning levels level exposure content shot weights "
        "apron bullets -based -free"
    )
    if c.next in metal_next or c.prev in word_set("contain contains contained unleaded of with in"):
        return "metal"
    return "verb"


def _live(c: Context) -> str | None:
    if c.prev in VERB_BEFORE - {"and", "or", "not", "just"} or c.prev in word_set(
        "people families still"
    ):
        return "verb"
    adjective_next = word_set(
        "wire music stream event show broadcast performance audio video updates "
        "coverage feed demo chat from on at in tv concert recording"
    )
    if (
        c.after_determiner
        or c.next in adjective_next
        or c.prev
        in word_set("watched watch streamed went go goes going is are was were be being it's")
    ):
        return "adjective"
    return None


def _tear(c: Context) -> str | None:
    if c.verb_position or c.next in word_set("up apart down off open out through into"):
        return "verb"
    if c.after_determiner or c.next in word_set("rolled fell ran streamed drop drops gas duct"):
        return "noun"
    return None


def _close(c: Context) -> str | None:
    if c.next in {"to", "by", "call", "friend", "friends", "together", "enough", "attention"}:
        return "adjective"
    if c.prev in word_set("is are was were so very too be get getting stay come up"):
        return "adjective"
    if c.verb_position or c.next in word_set(
        "the it your this that all any a an out down them my our"
    ):
        return "verb"
    return None


def _content(c: Context) -> str | None:
    if c.prev in word_set(
        "i'm am is are was were be feel feels seem seems remain stay perfectly quite"
    ) and c.next in {"with", "to", ",", "", "."}:
        return "adjective"
    return "noun" if c.after_determiner else None


def _invalid(c: Context) -> str | None:
    return (
        "noun" if c.prev in ("an", "the") and c.next in PREPOSITIONS | {"", "who"} else "adjective"
    )


def _wind(c: Context) -> str | None:
    if c.verb_position and not c.after_determiner:
        return "verb"
    if c.next in {"up", "down", "back"} and not c.after_determiner:
        return "verb"
    return "noun"


def _bow(c: Context) -> str | None:
    if (
        c.prev2 in {"took", "take", "takes", "taking", "made", "make"}
        or c.next in {"down", "to", "before", "out", "your", "his", "her"}
        or c.verb_position
    ):
        return "bend"
    return "ribbon"


def _row(c: Context) -> str | None:
    quarrel = word_set("had have has having blazing big huge another a")  # "had a row about"
    if c.prev2 in quarrel and c.next in {"about", "over", "with", "between"}:
        return "quarrel"
    return "line"


def _does(c: Context) -> str | None:
    numbers = {"two", "three", "four", "five", "several", "many", "some", "the", "few", "of"}
    if c.prev in numbers and c.next in {"were", "are", "and", "grazing", "in", "."}:
        return "deer"
    return "verb"


def _dove(c: Context) -> str | None:
    if c.prev in {"she", "he", "they", "we", "i", "you", "it", "who"} or c.next in word_set(
        "into in under off for headfirst deep right"
    ):
        return "past"
    return "bird"


def _noun_after(words: Collection[str]) -> Chooser:
    """A noun after a determiner or one of `words` ("fresh produce"), a verb otherwise."""

    def choose(c: Context) -> str | None:
        return "noun" if c.after_determiner or c.prev in words else "verb"

    return choose


_produce = _noun_after({"fresh", "local", "organic", "seasonal", "sells", "sell", "buy", "buys"})
_refuse = _noun_after({"collects", "collect", "collected", "household", "garbage", "of"})
_resume = _noun_after(PREPOSITIONS)


def _separate(c: Context) -> str | None:
    if (
        c.after_determiner
        or c.prev in PREPOSITIONS | {"two", "three", "into"}
        or (c.next.endswith("s") and not c.first)
    ):
        return "adjective"
    if c.verb_position:
        return "verb"
    return None


def _estimate(c: Context) -> str | None:
    if c.after_determiner or c.prev in {"rough", "good", "best", "initial", "quick", "ballpark"}:
        return "noun"
    if c.verb_position:
        return "verb"
    return None


def _contract(c: Context) -> str | None:
    return _noun_or_verb()(c)


CHOOSERS: dict[str, Chooser] = {
    "bass": _bass,
    "wound": _wound,
    "minute": _minute,
    "read": _read,
    "lead": _lead,
    "live": _live,
    "tear": _tear,
    "close": _close,
    "content": _content,
    "invalid": _invalid,
    "wind": _wind,
    "bow": _bow,
    "row": _row,
    "does": _does,
    "dove": _dove,
    "produce": _produce,
    "refuse": _refuse,
    "resume": _resume,
    "separate": _separate,
    "estimate": _estimate,
    "contract": _contract,
}
_GENERIC = _noun_or_verb()
_NUMBER_START = "$€£¥₹0123456789¼½¾⅓⅔⅛⅜⅝⅞"
_WORDS = re.compile(r"[A-Za-z'’-]+|[$€£¥₹]?[\d¼½¾⅓⅔⅛⅜⅝⅞][\d.,/]*|[.,;:!?]")


def readings(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, phonemes) for each heteronym whose sense the sentence decides."""
    tokens = [(m.start(), m.end(), m[0]) for m in _WORDS.finditer(sentence)]
    # A number counts as a determiner ("Use 1/4 of it": a verb before its object).
    words = ["one" if t[2][0] in _NUMBER_START else t[2].lower().replace("’", "'") for t in tokens]
    found = []
    for index, (start, end, written) in enumerate(tokens):
        word = words[index]
        senses = SENSES.get(word)
        if senses is None:
            continue
        context = Context(words, index, sentence)
        sense = (
            _polish_sense(written, context)
            if word == "polish"
            else CHOOSERS.get(word, _GENERIC)(context)
        )
        if sense is not None and sense in senses:
            found.append((start, end, senses[sense]))
    return found


def _polish_sense(written: str, c: Context) -> str:
    if written == "polish" or c.verb_position:
        return "verb"
    return "nationality"
