"""Incremental sentence segmenter: turns a stream of LLM text deltas into TTS pieces.

Text arrives in arbitrary small deltas. ``feed`` returns every piece whose end is *certain*
from the text seen so far; ``flush`` releases the unterminated tail and starts a new
utterance; ``reset`` drops everything (barge-in). Released pieces are stripped and never
whitespace-only; removing all whitespace from their concatenation gives back the input with
all whitespace removed.

Boundary independence: every decision depends on the text content only (plus "end of text"
at ``flush``), never on where the deltas were cut. A candidate boundary whose verdict needs
characters that have not arrived yet is kept buffered ("waiting") until they arrive or until
``flush``. The segmentation of a text is therefore identical for any split into deltas.

When a piece ends (the rules)
-----------------------------
* Line break: any line break (``\\n``, ``\\r``, U+2028, ...) ends the piece at once; blank
  lines are just whitespace. A piece is only ended by a boundary if it contains at least one
  letter or digit, so punctuation-only lines (``---``, emoji) are carried into the next piece
  instead of being sent to TTS on their own.
* CJK terminators ``。！？｡`` end the sentence right after themselves and any closing
  quotes/brackets (``「你好。」他说`` -> ``「你好。」`` + ``他说``); no space is needed. ASCII
  ``. ! ?`` directly after a CJK character behave the same way. Because a closing bracket may
  still follow, a terminator at the very end of the buffer waits for the next character.
* Other terminators (``.``, ``!``, ``?``, ``…``, runs like ``?!`` or ``...``, plus ``। ॥ ؟ ۔``)
  followed by optional closing quotes/brackets end a sentence only when followed by
  whitespace and then a character that is not lowercase (opening quotes/brackets, at most
  three, are skipped to find that character). So ``3.14``, ``v1.2.3``, ``example.com``,
  ``a.b?c=d`` and ``john.doe@example.com`` never split (no whitespace after the dot), and
  ``Well... maybe`` / ``e.g. the`` / ``a.m. on`` never split (lowercase after). A terminator
  followed by whitespace and a line break ends the sentence too.
  Certainty: ``"It costs 3."`` waits (``3.14`` is possible); ``"It costs 3. "`` still waits
  (``3. and`` is possible); ``"It costs 3. N"`` releases ``"It costs 3."``.
* A single ``.`` followed by whitespace and a non-lowercase character does NOT end a sentence
  when the token before it is
    - a title or mid-sentence abbreviation (``Dr. Smith``, ``Mr.``, ``Mrs.``, ``Prof.``,
      ``St. Louis``, ``Mt.``, ``e.g.``, ``i.e.``, ``cf.``, ``vs.``, ``approx.``, ``et al.``),
    - a number prefix followed by a digit (``No. 5``, ``Fig. 3``, ``p. 12``, ``Jan. 5``),
    - a single uppercase letter, i.e. an initial (``J. R. R. Tolkien``); consequence:
      ``Plan B. Then`` is not split either,
    - a dotted initialism (``U.S. Army``, ``Ph.D. She``, ``U.K.``): these are kept together
      even when the next word starts a new sentence, except ``a.m.``/``p.m.``/``B.C.``/
      ``A.D.``/``B.C.E.``/``C.E.``, which commonly end sentences and follow the normal rule,
    - a list marker at the very start of the piece (``1. Open the box``, ``a. Apples``).
  ``etc.``, ``Inc.``, ``Ltd.``, ``Jr.`` follow the normal rule: split when a capitalised
  word follows (``..., pears, etc. Then`` splits), no split before lowercase.
  Ellipses and ``!``/``?`` follow the normal rule without the token checks
  (``Wait... What?`` splits, ``Well... maybe`` does not).
  Consequence of the lowercase rule: a sentence that starts with a lowercase word
  (``iPhone``, ``v2``) after a period is not split off; the piece is just longer.

First clause (``first_clause=True``)
------------------------------------
The first piece of each utterance (after construction, ``flush`` or ``reset``) may end early
at a clause boundary: ``,`` ``;`` ``:`` or a dash (``—``, ``–``, or ``-``/``--`` with a space
before it), followed by optional closers and whitespace, or a CJK ``，、；：`` (no space
needed), provided at least ``first_clause_min_chars`` non-leading-whitespace characters
precede the mark. ``10:30`` and ``1,000`` are not clause boundaries (no space after). Only
the first piece of an utterance is affected (whatever ended it: a clause, a sentence end or
a ``max_chars`` cut); the decision depends on text only.

Long sentences
--------------
No released piece exceeds ``max_chars`` characters (code points). A piece whose end lies beyond
``max_chars`` is cut, as soon as that is certain, at the last clause boundary inside the
limit (preferring one in the second half of the window), else at the last whitespace, else
hard at ``max_chars`` (never between a base character and its combining marks).

What ended a piece
------------------
Every released piece is a ``Piece``: a ``str`` with an ``ending`` that says what ended it,
so the server can pause as a reader would (audio/pacing.py): ``sentence`` (``.``, ``!``,
``…``, CJK terminators), ``question`` (a run holding ``?``/``？``), ``paragraph`` (a line
break, or a terminator followed by one: paragraphs and list items), ``clause`` (a first
clause, or a long piece cut at a clause boundary), ``hard`` (a long piece cut at a space or
inside a word), ``end`` (the unterminated tail a ``flush`` released).

Cost: each ``feed`` scans only the unreleased tail from the first undecided position, and a
pending lookahead (e.g. a long whitespace run after a period) is resumed, not rescanned, so
feeding is linear in the text length. The unreleased tail holds at most ``max_chars``
characters of content plus the lookahead deciding its end (whitespace, at most three opening
quotes); callers bound whitespace floods with their own buffered-text limit
(``buffered_chars``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

# A line break always ends a piece.
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Terminators that end a sentence without any following space.
_CJK_TERMINATORS = frozenset("。！？｡")
# Terminators that need whitespace + a non-lowercase character after them.
_SPACED_TERMINATORS = frozenset(".!?…‼⁇⁈⁉।॥؟۔")
_TERMINATORS = _CJK_TERMINATORS | _SPACED_TERMINATORS
# Characters that stay with the sentence they close (quotes, brackets, markdown emphasis).
_CLOSERS = frozenset("\"'”’»›)]}」』）】〕〉》〗〙〛｝］＂＇*_`")
# Characters skipped when looking for the first character of the next sentence.
_OPENERS = frozenset("\"'“‘„«‹([{「『（【〔〈《〖〘〚｛［＂＇*_`¿¡")
_MAX_OPENERS = 3
_CLAUSE_MARKS = frozenset(",;:")
_CJK_CLAUSE_MARKS = frozenset("，、；：､")
_DASHES = frozenset("-–—")

_CANDIDATE = re.compile(
    "["
    + re.escape(
        "".join(sorted(_LINE_BREAKS | _TERMINATORS | _CLAUSE_MARKS | _CJK_CLAUSE_MARKS | _DASHES))
    )
    + "]"
)
_WORD_CHAR = re.compile(r"[^\W_]")
_INITIALISM = re.compile(r"(?:[^\W\d_]{1,3}\.)+[^\W\d_]{1,3}")

# Tokens (lowercased, without the final dot) after which a "." never ends a sentence.
_NON_FINAL = frozenset(
    """mr mrs ms mx messrs mmes dr drs prof profs rev hon gen col capt cpt lt sgt cmdr adm
    gov sen rep pres supt insp det mt ft st ste fr msgr mme mlle e.g i.e cf vs viz approx
    al incl excl est qty avg dept ext tel apt bldg rm""".split()  # noqa: SIM905 - a word list reads better than 40 quoted strings
)
# Tokens (case-sensitive) after which a "." does not end a sentence when a digit follows.
_NUMBER_PREFIXES = frozenset(
    """No Nos Fig Figs fig figs p pp Vol Vols vol vols Ch ch Sec sec Art art Eq Eqs eq
    Op op ca Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec""".split()  # noqa: SIM905
)
# Dotted initialisms (lowercased) that commonly end a sentence: normal rule applies.
_FINAL_INITIALISMS = frozenset({"a.m", "p.m", "b.c", "a.d", "b.c.e", "c.e"})


ENDINGS = ("sentence", "question", "paragraph", "clause", "hard", "end")


class Piece(str):
    """A released piece of text (a plain ``str``) that knows what ended it (``ENDINGS``)."""

    ending: str

    def __new__(cls, text: str, ending: str) -> Piece:
        if ending not in ENDINGS:
            raise ValueError(f"ending must be one of {', '.join(ENDINGS)}, got {ending!r}")
        piece = super().__new__(cls, text)
        piece.ending = ending
        return piece


class _Verdict(NamedTuple):
    kind: int  # _NO, _YES or _WAIT
    end: int  # where the piece ends (exclusive); for _WAIT the smallest possible end
    resume: int  # where scanning / the next piece continues
    ending: str = "sentence"  # what ends the piece when kind is _YES


_NO, _YES, _WAIT = 0, 1, 2


def _is_cjk(ch: str) -> bool:
    """True for Han ideographs, kana and full-width forms (scripts written without spaces)."""
    cp = ord(ch)
    return (
        0x3040 <= cp <= 0x30FF
        or 0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xF900 <= cp <= 0xFAFF
        or 0xFF00 <= cp <= 0xFFEF
        or 0x20000 <= cp <= 0x3FFFF
    )


def _skip(buf: str, i: int, chars: frozenset[str]) -> int:
    n = len(buf)
    while i < n and buf[i] in chars:
        i += 1
    return i


class SentenceSegmenter:
    """Incremental, delta-boundary-independent sentence segmenter (see the module docstring)."""

    def __init__(
        self, *, first_clause: bool = True, first_clause_min_chars: int = 20, max_chars: int = 250
    ) -> None:
        if not isinstance(first_clause, bool):
            raise TypeError(f"first_clause must be a bool, got {type(first_clause).__name__}")
        for name, value, low in (
            ("first_clause_min_chars", first_clause_min_chars, 0),
            ("max_chars", max_chars, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
            if value < low:
                raise ValueError(f"{name} must be >= {low}, got {value}")
        self._first_clause = first_clause
        self._min_clause = first_clause_min_chars
        self._max = max_chars
        self._buf = ""  # unreleased text; never starts with whitespace
        self._content_end = 0  # index just past the last non-whitespace character of _buf
        self._first = first_clause  # the next piece is the first of its utterance
        self._forget_scan()

    def _forget_scan(self) -> None:
        """Drop what was learnt about the buffer (it was trimmed or the rules changed)."""
        self._scan = 0  # candidates before this index are all decided "no boundary"
        self._word_at = -1  # index of the first letter/digit in _buf, -1 if none seen yet
        self._word_scanned = 0  # _buf[:_word_scanned] holds no letter/digit
        self._ws_wait = (-1, 0)  # (waiting candidate, whitespace after it scanned up to)

    @property
    def buffered_chars(self) -> int:
        """Characters held back (received but not yet released)."""
        return len(self._buf)

    def feed(self, delta: str) -> list[Piece]:
        """Append a text delta; return the pieces whose end is now certain (maybe none)."""
        if not isinstance(delta, str):
            raise TypeError(f"delta must be a str, got {type(delta).__name__}")
        if not self._buf:
            delta = delta.lstrip()
        base = len(self._buf)
        self._buf += delta
        content = len(delta.rstrip())
        if content:
            self._content_end = base + content
        return self._take(eof=False)

    def flush(self) -> list[Piece]:
        """Release everything buffered, treating it as the end of the text; new utterance."""
        pieces = self._take(eof=True)
        self.reset()
        return pieces

    def reset(self) -> None:
        """Drop everything buffered (barge-in); the next text starts a new utterance."""
        self._buf = ""
        self._content_end = 0
        self._first = self._first_clause
        self._forget_scan()

    # -- scanning -------------------------------------------------------------------------

    def _take(self, *, eof: bool) -> list[Piece]:
        pieces: list[Piece] = []
        while self._buf:
            cut = self._next_cut(eof)
            if cut is None:
                break
            end, resume, ending = cut
            buf = self._buf
            piece = buf[:end].strip()
            rest = buf[resume:]
            self._buf = rest.lstrip()
            self._content_end = max(0, self._content_end - resume - (len(rest) - len(self._buf)))
            self._forget_scan()
            if piece:
                pieces.append(Piece(piece, ending))
                self._first = False
        return pieces

    def _next_cut(self, eof: bool) -> tuple[int, int, str] | None:
        """Return (end, resume, ending) of the next piece if it is certain now, else None."""
        buf = self._buf
        limit = self._max
        if self._word_at < 0:
            word = _WORD_CHAR.search(buf, self._word_scanned)
            self._word_at = word.start() if word else -1
            self._word_scanned = len(buf)
        first_word = self._word_at if self._word_at >= 0 else len(buf)
        pos = self._scan
        while True:
            match = _CANDIDATE.search(buf, pos)
            if match is None:
                self._scan = len(buf)
                break
            verdict = self._judge(buf, match.start(), first_word, eof)
            if verdict.kind == _NO:
                pos = verdict.resume
                continue
            if verdict.kind == _WAIT:
                self._scan = match.start()
                # Whatever the verdict will be, the piece already exceeds the limit.
                return self._long_cut() if verdict.end > limit else None
            if len(buf[: verdict.end].rstrip()) > limit:
                return self._long_cut()
            return verdict.end, verdict.resume, verdict.ending
        if self._content_end > limit:
            # No boundary can come before the limit any more.
            return self._long_cut()
        if eof:
            return len(buf), len(buf), "end"
        return None

    def _judge(self, buf: str, i: int, first_word: int, eof: bool) -> _Verdict:
        ch = buf[i]
        if ch in _LINE_BREAKS:
            return _Verdict(_YES if first_word < i else _NO, i, i + 1, "paragraph")
        if ch in _TERMINATORS:
            return self._judge_terminator(buf, i, first_word, eof)
        return self._judge_clause(buf, i, first_word, eof)

    def _judge_terminator(self, buf: str, i: int, first_word: int, eof: bool) -> _Verdict:
        n = len(buf)
        j = _skip(buf, i, _TERMINATORS)
        k = _skip(buf, j, _CLOSERS)
        run = buf[i:j]
        ending = "question" if "?" in run or "？" in run or "⁇" in run else "sentence"
        if k == n:
            # A further terminator, closer or the next character decides.
            return _Verdict(_YES, k, k, ending) if eof else _Verdict(_WAIT, k, i)
        if first_word >= i:
            return _Verdict(_NO, k, k)  # nothing speakable before it
        if any(c in _CJK_TERMINATORS for c in run) or (i > 0 and _is_cjk(buf[i - 1])):
            return _Verdict(_YES, k, k, "paragraph" if buf[k] in _LINE_BREAKS else ending)
        if not buf[k].isspace():
            return _Verdict(_NO, k, k)  # 3.14, v1.2.3, example.com, "Stop."Then
        # Resume the whitespace scan where the last wait on this candidate left it.
        waiting, m = self._ws_wait
        if waiting != i:
            m = k
        while m < n and buf[m].isspace():
            if buf[m] in _LINE_BREAKS:
                return _Verdict(_YES, k, k, "paragraph")
            m += 1
        self._ws_wait = (i, m)
        o = m
        while o < n and o - m < _MAX_OPENERS and buf[o] in _OPENERS:
            o += 1
        if o == n:
            return _Verdict(_YES, k, k, ending) if eof else _Verdict(_WAIT, k, i)
        if self._ends_sentence(buf, i, run, buf[o]):
            return _Verdict(_YES, k, k, ending)
        return _Verdict(_NO, k, k)

    @staticmethod
    def _ends_sentence(buf: str, i: int, run: str, nxt: str) -> bool:
        """Terminator run at i, then whitespace, then nxt (first non-opener character)."""
        if nxt.islower():
            return False
        if run != ".":
            return True  # ellipses, ! and ?
        start = i
        while start > 0 and not buf[start - 1].isspace():
            start -= 1
        token = buf[start:i]
        bare = token.lstrip("".join(_OPENERS))
        low = bare.lower()
        if low in _NON_FINAL:
            return False
        if nxt.isdigit() and bare in _NUMBER_PREFIXES:
            return False
        if len(bare) == 1 and bare.isupper():
            return False  # an initial
        if _INITIALISM.fullmatch(bare) and low not in _FINAL_INITIALISMS:
            return False
        # A list marker opening the piece: "1. Open the box", "a. Apples".
        marker = (len(token) == 1 and token.isalpha()) or (len(token) <= 3 and token.isdigit())
        return not (start == 0 and marker)

    def _judge_clause(self, buf: str, i: int, first_word: int, eof: bool) -> _Verdict:
        ch = buf[i]
        if not self._first:
            return _Verdict(_NO, i + 1, i + 1)
        n = len(buf)
        j = _skip(buf, i, _DASHES) if ch in _DASHES else i + 1
        k = _skip(buf, j, _CLOSERS)
        if k == n:
            # The dash run, the closers or the following character are still to come.
            return _Verdict(_YES, k, k, "clause") if eof else _Verdict(_WAIT, k, i)
        if ch in _DASHES and set(buf[i:j]) == {"-"} and (i == 0 or not buf[i - 1].isspace()):
            return _Verdict(_NO, j, j)  # a hyphen glued to its word: "well-known", "pre- and"
        if first_word >= i or len(buf[:i].rstrip()) < self._min_clause:
            return _Verdict(_NO, j, j)
        if ch in _CJK_CLAUSE_MARKS or buf[k].isspace():
            return _Verdict(_YES, k, k, "clause")
        return _Verdict(_NO, k, k)  # 10:30, 1,000

    # -- long pieces ----------------------------------------------------------------------

    def _long_cut(self) -> tuple[int, int, str]:
        """Cut the buffer (longer than max_chars up to its first boundary) inside the limit."""
        buf = self._buf
        limit = self._max
        n = len(buf)  # > limit: the caller saw text past the limit
        clause_ends = [end for end in self._clause_ends(buf, limit) if end <= limit]
        late = [end for end in clause_ends if end * 2 >= limit]
        if late:
            return late[-1], late[-1], "clause"
        space = next((p for p in range(min(limit, n - 1), 0, -1) if buf[p].isspace()), 0)
        if space * 2 >= limit:
            return space, space, "hard"
        if clause_ends:
            return clause_ends[-1], clause_ends[-1], "clause"
        if space:
            return space, space, "hard"
        cut = limit
        while cut > 1 and unicodedata.combining(buf[cut]):
            cut -= 1
        return cut, cut, "hard"

    @staticmethod
    def _clause_ends(buf: str, limit: int) -> list[int]:
        """Ends of clause boundaries (mark + closers, then whitespace) within buf[:limit]."""
        n = len(buf)
        ends = []
        i = 1
        while i < limit:
            ch = buf[i]
            if ch in _CLAUSE_MARKS or ch in _CJK_CLAUSE_MARKS or ch in _DASHES:
                j = _skip(buf, i, _DASHES) if ch in _DASHES else i + 1
                k = _skip(buf, j, _CLOSERS)
                glued = set(buf[i:j]) == {"-"} and not buf[i - 1].isspace()
                if k < n and not glued and (ch in _CJK_CLAUSE_MARKS or buf[k].isspace()):
                    ends.append(k)
                i = j
            else:
                i += 1
        return ends
