"""How a transcript is scored against the words the corpus says a listener should hear.

Both sides go through Whisper's own English normalizer (whisper-normalizer's
EnglishTextNormalizer: case, punctuation, contractions, British spellings, spelled numbers
to digits), with four folds around it, each for a difference of writing, not of speech:
- before it, an address (`www.python.org`, `a@b.co.uk`, `https://x.com/v2`) has its
  punctuation read as the corpus reads it ("dot", "slash", "at", "dash"): Whisper writes an
  address it hears as an address, the normalizer would drop its punctuation;
- after it, runs of one-letter words and runs of bare numbers are joined ("U S" and "u.s."
  both give "us"; "10:30", which the normalizer makes "10 30", and "ten thirty", which it
  makes "1030", both "1030"); a reference's run starting with "a" or "i" is also tried with
  that word apart ("a P h D" is "a phd", "U S A" stays "usa");
- a lone "one", the one number word the normalizer leaves in words (it may be a pronoun),
  is "1" on both sides;
- the "+" that the normalizer glues to the word after a spoken "plus" ("c +and") goes.

- WER: word edits (substitutions, deletions, insertions) over the reference's words, pooled
  over the sentences of a class (not the mean of per-sentence rates).
- The reference of a sentence is the accepted reading nearest to what was heard (fewest
  edits; the first reading on a tie): a corpus row may accept several readings, and each
  engine is judged against the one it came closest to.
- A word missing at a start (end): the reference's first (last) word is not among the
  hypothesis' first (last) EDGE_WINDOW words, which allows one inserted word there.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import median

from devkit.speech_corpus import distance

EDGE_WINDOW = 2

Normalizer = Callable[[str], str]


def english_normalizer() -> Normalizer:
    """Whisper's English normalizer (the one its English WER figures are measured with)."""
    from whisper_normalizer.english import EnglishTextNormalizer

    normalize: Normalizer = EnglishTextNormalizer()
    return normalize


_ADDRESS = re.compile(r"(?:[A-Za-z]+://)?[\w-]+(?:[.@/][\w-]+)+/?")
_ADDRESS_PART = re.compile(r"\.[A-Za-z]{2,}")  # ".org", ".co": not "p.m." or "4.2"
_SPOKEN_PUNCTUATION = {".": " dot ", "/": " slash ", "@": " at ", "-": " dash ", ":": " "}


def spell_addresses(text: str) -> str:
    """'mail a@b.co.uk' -> 'mail a at b dot co dot uk'; '2 p.m.' and '4.2' stay."""

    def spell(match: re.Match[str]) -> str:
        found = match[0]
        if "@" not in found and "://" not in found and not _ADDRESS_PART.search(found):
            return found
        return "".join(_SPOKEN_PUNCTUATION.get(c, c) for c in found)

    return _ADDRESS.sub(spell, text)


def _kind(token: str) -> str:
    if len(token) == 1 and token.isalpha():
        return "letter"
    return "number" if token.isdigit() else ""


def join_spelled(tokens: Sequence[str], article_apart: bool = False) -> list[str]:
    """Consecutive one-letter words as one word, and consecutive bare numbers as one:
    ["p", "m"] -> ["pm"], ["10", "30"] -> ["1030"]; a lone "a" stays. With article_apart a
    run of three or more letters that starts with "a" or "i" keeps that word apart."""
    runs: list[list[str]] = []
    kinds: list[str] = []
    for token in tokens:
        kind = _kind(token)
        if kind and kinds and kinds[-1] == kind:
            runs[-1].append(token)
        else:
            runs.append([token])
            kinds.append(kind)
    out: list[str] = []
    for run, kind in zip(runs, kinds, strict=True):
        if article_apart and kind == "letter" and len(run) >= 3 and run[0] in ("a", "i"):
            out += [run[0], "".join(run[1:])]
        else:
            out.append("".join(run))
    return out


def _tokens(text: str, normalize: Normalizer) -> list[str]:
    tokens = [t.replace("+", "") for t in normalize(spell_addresses(text)).split()]
    return ["1" if t == "one" else t for t in tokens if t]


def words(text: str, normalize: Normalizer) -> list[str]:
    return join_spelled(_tokens(text, normalize))


def reference_words(reading: str, normalize: Normalizer) -> list[list[str]]:
    """The reading's words, and where a spelled run may start with "a" or "i", that too."""
    tokens = _tokens(reading, normalize)
    joined, apart = join_spelled(tokens), join_spelled(tokens, article_apart=True)
    return [joined] if apart == joined else [joined, apart]


def edit_count(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Word-level Levenshtein distance."""
    return distance(reference, hypothesis)


def start_missing(reference: Sequence[str], hypothesis: Sequence[str]) -> bool:
    return bool(reference) and reference[0] not in hypothesis[:EDGE_WINDOW]


def end_missing(reference: Sequence[str], hypothesis: Sequence[str]) -> bool:
    return bool(reference) and reference[-1] not in hypothesis[-EDGE_WINDOW:]


@dataclass(frozen=True)
class Score:
    reference: tuple[str, ...]  # the accepted reading judged against, normalized
    hypothesis: tuple[str, ...]
    edits: int
    start_missing: bool
    end_missing: bool

    @property
    def wer(self) -> float:
        return self.edits / max(len(self.reference), 1)


def score(readings: Iterable[str], transcript: str, normalize: Normalizer) -> Score:
    """The transcript against the nearest accepted reading."""
    heard = words(transcript, normalize)
    candidates = [ref for reading in readings for ref in reference_words(reading, normalize)]
    if not candidates:
        raise ValueError("a sentence needs at least one accepted reading")
    best = min(candidates, key=lambda ref: edit_count(ref, heard))
    return Score(
        tuple(best),
        tuple(heard),
        edit_count(best, heard),
        start_missing(best, heard),
        end_missing(best, heard),
    )


@dataclass
class Tally:
    """One engine's scores over a set of sentences (one class, or all), over every run."""

    sentences: int = 0
    words: int = 0
    edits: int = 0
    start_missing: int = 0
    end_missing: int = 0

    def add(self, found: Score) -> None:
        self.sentences += 1
        self.words += len(found.reference)
        self.edits += found.edits
        self.start_missing += found.start_missing
        self.end_missing += found.end_missing

    @property
    def wer(self) -> float:
        return self.edits / max(self.words, 1)


@dataclass(frozen=True)
class Judged:
    """One sentence of one run through one engine."""

    engine: str
    run: int
    category: str
    written: str
    transcript: str
    score: Score
    audio_digest: str = ""  # of the PCM heard: tells re-synthesized audio that changed


ALL = "all"


def tallies(judged: Iterable[Judged]) -> dict[str, dict[str, Tally]]:
    """class (and ALL) -> engine -> tally over every run; per-run tallies: tallies_by_run."""
    out: dict[str, dict[str, Tally]] = {}
    for item in judged:
        for key in (item.category, ALL):
            out.setdefault(key, {}).setdefault(item.engine, Tally()).add(item.score)
    return out


def tallies_by_run(judged: Iterable[Judged]) -> dict[int, dict[str, dict[str, Tally]]]:
    runs: dict[int, list[Judged]] = {}
    for item in judged:
        runs.setdefault(item.run, []).append(item)
    return {run: tallies(items) for run, items in sorted(runs.items())}


def _pct(value: float) -> str:
    return f"{100.0 * value:.1f}"


def wer_cell(pooled: Tally, per_run: list[float]) -> str:
    """Pooled WER in %, and with several runs the lowest and highest run's."""
    if len(per_run) < 2:
        return _pct(pooled.wer)
    return f"{_pct(pooled.wer)} ({_pct(min(per_run))}-{_pct(max(per_run))})"


def table(judged: Sequence[Judged], engines: Sequence[str]) -> str:
    """Per class, then all: sentences, reference words, WER and words missing at the
    sentence starts / ends for each engine (counts over every run)."""
    pooled = tallies(judged)
    by_run = tallies_by_run(judged)
    runs = len(by_run)
    headers = ["class", "sentences", "words"]
    for engine in engines:
        headers += [f"WER % {engine}", f"start/end missing {engine}"]
    rows: list[list[str]] = []
    order = sorted(key for key in pooled if key != ALL) + ([ALL] if ALL in pooled else [])
    for key in order:
        first = next(iter(pooled[key].values()))
        row = [key, str(first.sentences // max(runs, 1)), str(first.words // max(runs, 1))]
        for engine in engines:
            tally = pooled[key].get(engine)
            if tally is None:
                row += ["-", "-"]
                continue
            per_run = [r[key][engine].wer for r in by_run.values() if engine in r.get(key, {})]
            row += [
                wer_cell(tally, per_run),
                f"{tally.start_missing}/{tally.end_missing} of {tally.sentences}",
            ]
        rows.append(row)
    return render(headers, rows)


def render(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        first, *rest = cells
        return "  ".join(
            [first.ljust(widths[0]), *(c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))]
        )

    rule = "-" * len(line(headers))
    body = [line(row) for row in rows]
    if rows and rows[-1][0] == ALL:
        body.insert(len(body) - 1, rule)
    return "\n".join([line(headers), rule, *body])


def run_spread(judged: Sequence[Judged], engine: str) -> dict[str, float | int]:
    """How much one engine's result moved between runs: the overall WER's range, how many
    sentences were not transcribed the same way in every run, and how many got different
    audio (a sentence can sound different and still be heard the same)."""
    by_run = tallies_by_run(judged)
    wers = [t[ALL][engine].wer for t in by_run.values() if engine in t.get(ALL, {})]
    heard: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    audio: dict[tuple[str, str], set[str]] = {}
    for item in judged:
        if item.engine == engine:
            key = (item.category, item.written)
            heard.setdefault(key, set()).add(item.score.hypothesis)
            audio.setdefault(key, set()).add(item.audio_digest)
    return {
        "runs": len(wers),
        "wer_min": min(wers, default=0.0),
        "wer_median": median(wers) if wers else 0.0,
        "wer_max": max(wers, default=0.0),
        "sentences_heard_differently": sum(len(v) > 1 for v in heard.values()),
        "sentences_with_different_audio": sum(len(v) > 1 for v in audio.values()),
        "sentences": len(heard),
    }


def bootstrap_intervals(
    judged: Sequence[Judged], engines: Sequence[str], draws: int = 2000, seed: int = 0
) -> dict[str, dict[str, tuple[float, float]]]:
    """95 % intervals of the pooled WER, per class and ALL, from resampling the sentences
    (within each class, with replacement; first run): how far another draw of sentences
    could move a figure. With two engines, also the interval of their difference (first
    minus second, DIFFERENCE), paired by sentence."""
    first = min((item.run for item in judged), default=0)
    by_class: dict[str, dict[str, dict[str, tuple[int, int]]]] = {}
    for item in judged:
        if item.run == first and item.engine in engines:
            sentences = by_class.setdefault(item.category, {})
            row = sentences.setdefault(item.written, {})
            row[item.engine] = (item.score.edits, len(item.score.reference))
    rng = random.Random(seed)
    values: dict[str, dict[str, list[float]]] = {}
    for _ in range(draws):
        everything: list[dict[str, tuple[int, int]]] = []
        for category, sentences in by_class.items():
            rows = list(sentences.values())
            drawn = [rows[rng.randrange(len(rows))] for _ in rows]
            everything += drawn
            _append(values.setdefault(category, {}), _rates(drawn, engines))
        _append(values.setdefault(ALL, {}), _rates(everything, engines))
    return {key: {name: _interval(v) for name, v in rates.items()} for key, rates in values.items()}


DIFFERENCE = "difference"


def _rates(rows: list[dict[str, tuple[int, int]]], engines: Sequence[str]) -> dict[str, float]:
    rates = {}
    for engine in engines:
        edits = sum(row[engine][0] for row in rows if engine in row)
        count = sum(row[engine][1] for row in rows if engine in row)
        rates[engine] = edits / max(count, 1)
    if len(engines) == 2:
        rates[DIFFERENCE] = rates[engines[0]] - rates[engines[1]]
    return rates


def _append(into: dict[str, list[float]], rates: dict[str, float]) -> None:
    for name, rate in rates.items():
        into.setdefault(name, []).append(rate)


def _interval(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[int(0.025 * (len(ordered) - 1))], ordered[round(0.975 * (len(ordered) - 1))]


def worse_sentences(judged: Sequence[Judged], ours: str, theirs: str) -> list[dict[str, str]]:
    """Sentences (first run) where `ours` was heard with more edits than `theirs`."""
    first = min((item.run for item in judged), default=0)
    by_key: dict[tuple[str, str], dict[str, Judged]] = {}
    for item in judged:
        if item.run == first:
            by_key.setdefault((item.category, item.written), {})[item.engine] = item
    out = []
    for (category, written), pair in by_key.items():
        a, b = pair.get(ours), pair.get(theirs)
        if a is not None and b is not None and a.score.edits > b.score.edits:
            out.append(
                {
                    "class": category,
                    "written": written,
                    "reference": " ".join(a.score.reference),
                    ours: a.transcript,
                    theirs: b.transcript,
                    f"{ours} edits": str(a.score.edits),
                    f"{theirs} edits": str(b.score.edits),
                }
            )
    return out
