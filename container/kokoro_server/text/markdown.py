"""Markdown to the words a person reads aloud, on a stream of deltas (docs/speech.md).

Language models answer in markdown. `MarkdownSpeech` turns it, delta by delta, into plain
written text for the sentence segmenter; what it emits is also what captions show.

What is read (the rule, documented in docs/protocol.md):
- a link reads its text (`[the setup page](/docs/setup)` -> "the setup page"), an image its
  alt text, an autolink its host name; a URL path is never read;
- emphasis, strikethrough and inline-code backticks are dropped; inline code reads its
  content as written; a `*` alone between spaces is no emphasis and is read ("2 * 3");
- a heading, a list item, a block quote line and a table row each end their own sentence
  (a period is added when they end without one); list markers, `#`s, `>`s, task boxes and
  thematic breaks are not read;
- a table row reads its cells joined by commas ("Apple, $1."); the delimiter row is skipped;
  in English a cell that is only a day abbreviation reads the day ("| Mon |" -> "Monday");
- in English a list item or line that starts with a day abbreviation, or a range of two,
  as its label reads the days ("- Sat: 10-4" -> "Saturday: 10-4", "Mon–Fri:" ->
  "Monday–Friday:"); "Sun:" only once another day label was read in that list;
- a setext underline, a link definition line "[label]: url" and simple inline HTML tags are
  not read (`<br>`, `<p>` end the sentence); a reference link "[text][label]" reads its text;
- a fenced code block reads one notice in the voice's language ("Here is a code block.")
  and none of its content;
- decorative emoji are dropped (`emoji="name"`: a short name is read instead); a lone emoji
  between two words of a sentence is read as the word it stands for (text/emoji_speech.py);
  keycaps read their digit; (c), (R), TM and arrows are left to the normalizer.

How it streams. Block structure is decided per line from its leading markers (CommonMark's
rules for ATX headings, list items, block quotes, fences and thematic breaks; GFM table
rows), so a line's first characters are held only until its markers are known. Inline text
is parsed by markdown-it-py. A line's inline text is released up to the last whitespace,
or the last boundary between two Japanese or Chinese characters (written without spaces),
before the first construct still open (a code span, link or autolink without its closer,
an emphasis run without its partner, a trailing backslash); a construct whose closer does
not arrive within `max_hold` characters is read as literal text, so a stray `*` or backtick
holds a stream back by at most `max_hold` characters. Every decision depends on the text
alone, never on the delta boundaries: the same text gives the same output however it is
split (tests/container/test_markdown_properties.py). The work is linear in the text: a word
held back while it arrives is not scanned again from its start on each delta (the scan
resumes where everything before was settled), and a line's undecided markers are checked
once per character.

Pronunciation markup (`{word|/phonemes/}`, text/pronunciation.py) passes through verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.token import Token

from kokoro_server.text.cleaning import StreamCleaner
from kokoro_server.text.emoji_speech import EmojiMode, emoji_as_word, lone_emoji, speak_emoji
from kokoro_server.text.normalize.en.tables import DAY_ABBR
from kokoro_server.text.pronunciation import MARKUP

MAX_HOLD = 300  # characters an open construct may hold back before it is read literally
_MAX_FENCE_LINE = 80  # a fenced code line is kept only as far as a closing fence could reach

# Read for a fenced code block instead of its content, by the voice's language.
CODE_NOTICES = {
    "en-us": "Here is a code block.",
    "en-gb": "Here is a code block.",
    "es": "Aquí hay un bloque de código.",
    "fr-fr": "Voici un bloc de code.",
    "hi": "यह एक कोड ब्लॉक है।",
    "it": "Ecco un blocco di codice.",
    "ja": "コードブロックです。",
    "pt-br": "Aqui está um bloco de código.",
    "zh": "这是一段代码。",
}
# A heading, list item or table row ending in one of these needs no added period.
_FINAL_MARKS = frozenset(".!?…:;。！？｡।॥؟\"'”’»)]」』）")

_Kind = Literal["para", "heading", "item", "row", "fence", "break"]

_HR = re.compile(r"([-*_])[ \t]*(?:\1[ \t]*){2,}")
_TASK = re.compile(r"\[[ xX]\][ \t]")
_ATX_CLOSE = re.compile(r"(?:^|(?<=\s))#+(?=\s|$)")
_DELIMITER_CELL = re.compile(r"[\s:|-]*")
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9.+-]{1,31}:[^\s<>]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?)>"
)
_AUTOLINK_PREFIX = re.compile(r"<[^\s<>]*")
# Setext heading underline "=====" (a "---" one is a thematic break already): not read.
_SETEXT = re.compile(r"=+[ \t]*")
# A link reference definition "[label]: url": not read; the links that use it read their text.
_DEFINITION = re.compile(r"\[[^\[\]]+\]:")
_DEFINITION_PREFIX = re.compile(r"\[[^\[\]]*\]?")
# A reference link "[text][label]" / "[text][]" (not after a word: "a[i][j]" is code-like).
_REFERENCE = re.compile(r"(?<![\w\])])(!?\[[^\[\]]*\])\[[^\[\]]*\]")
# Simple inline HTML tags, without attributes: not read; a line break or block tag ends the
# sentence, like a new line.
_HTML_TAG = re.compile(
    r"</?(?:b|i|u|s|em|strong|del|ins|sub|sup|kbd|code|mark|small|span|br|hr|p|div)[ \t]*/?>",
    re.IGNORECASE,
)
_HTML_BREAK = re.compile(r"</?(?:br|hr|p|div)\b", re.IGNORECASE)
# A day label starting an English list item or line: "Sat:", "Mon–Fri:", "Tue.:".
_DAY = "|".join(sorted(DAY_ABBR, key=len, reverse=True))
_DAY_LABEL = re.compile(f"(?P<first>{_DAY})\\.?(?:(?P<dash>[-–—])(?P<last>{_DAY})\\.?)?:")
# Punctuation after an emoji in the same word ("to 🇯🇵!"): the emoji may still be a word.
_CLOSING = ".,!?;:…)"
_MARKUP_PREFIX = re.compile(r"\{[^{}|\n]*(?:\|(?:/[^/{}\n]*/?)?)?")
# Japanese and Chinese characters (kana, ideographs, their punctuation and fullwidth forms):
# written without spaces, so the boundary between two of them is a release point like a
# space (none of them is markdown syntax). The ideographic space U+3000 is whitespace.
_CJK = (
    "\u3001-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff01-\uffef\U00020000-\U0003134f"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
# Characters the scan passes over (nothing opens or ends there), matched in one step; a "|"
# is one only outside a table.
_ORDINARY = re.compile(rf"[^\\`\[!<{{\s{_CJK}]*(?:!(?!\[)[^\\`\[!<{{\s{_CJK}]*)*")
_ORDINARY_CELL = re.compile(rf"[^\\`\[!<{{|\s{_CJK}]*(?:!(?!\[)[^\\`\[!<{{|\s{_CJK}]*)*")


def _ordinary_end(text: str, i: int, table: bool) -> int:
    """Where the run of ordinary characters from text[i] ends."""
    m = (_ORDINARY_CELL if table else _ORDINARY).match(text, i)
    return m.end() if m else i


# A word with nothing markdown could act on is read as it is (no parse).
_PLAIN = re.compile(r"[^\\`*_~\[\]!<>&{}|#]*")


def _parser() -> MarkdownIt:
    # CommonMark plus GFM strikethrough; raw HTML off (a "<" in prose stays text).
    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough")


_MD = _parser()


_RUNS = {ch: re.compile(re.escape(ch) + "+") for ch in "`~#"}


def _run_end(text: str, i: int, end: int) -> int:
    """Where the run of text[i]'s character from i ends (before `end`)."""
    m = _RUNS[text[i]].match(text, i, end)
    assert m
    return m.end()


def _closing_backticks(text: str, start: int, stop: int, size: int) -> int:
    """Start of the next run of exactly `size` backticks in text[start:stop], or -1."""
    i = text.find("`", start, stop)
    while i >= 0:
        j = _run_end(text, i, stop)
        if j - i == size and (j < len(text) or j == stop):
            return i
        i = text.find("`", j, stop)
    return -1


def _matching_close(text: str, q: int, stop: int, pair: str, code_spans: bool) -> int | None:
    """Where the bracket opened at text[q] closes (`pair`: "[]" or "()"), escapes skipped,
    and code spans too in link text; None if not before `stop`."""
    depth = 0
    while q < stop:
        ch = text[q]
        if ch == "\\":
            q += 2
            continue
        if code_spans and ch == "`":
            r = _run_end(text, q, stop)
            close = _closing_backticks(text, r, stop, r - q)
            q = close + (r - q) if close >= 0 else r
            continue
        if ch == pair[0]:
            depth += 1
        elif ch == pair[1]:
            depth -= 1
            if depth == 0:
                return q
        q += 1
    return None


def _link_end(text: str, i: int, stop: int, end: int) -> int | None:
    """Where an inline or reference link starting at `[` i ends; -1 if it is none; None if
    undecided."""
    if text.find("]", i, stop) < 0:
        return None  # no closing bracket yet (found at once: "[[[[" is not scanned each time)
    q = _matching_close(text, i, stop, "[]", code_spans=True)
    if q is None:
        return None
    if q + 1 >= end:
        return None  # "(" may still follow
    if text[q + 1] == "[" and not (i and (text[i - 1].isalnum() or text[i - 1] in "_])")):
        label = re.compile(r"[^\[\]]*").match(text, q + 2, stop)
        assert label
        if label.end() >= stop:
            return None if stop == end else -1
        return label.end() + 1 if text[label.end()] == "]" else -1
    if text[q + 1] != "(":
        return -1  # [text] alone: literal brackets
    p = _matching_close(text, q + 1, stop, "()", code_spans=False)
    return None if p is None else p + 1


@dataclass
class _Scan:
    limit: int  # text before this may be released
    escapes: list[int] = field(default_factory=list)  # openers read as literal characters
    spaces: list[int] = field(default_factory=list)  # whitespace outside any construct
    joins: list[int] = field(default_factory=list)  # between two CJK characters (see _CJK)
    cells: list[int] = field(default_factory=list)  # table cell separators
    verbatim: list[tuple[int, int]] = field(default_factory=list)  # pronunciation markup
    # Where the scan may resume once more text is appended: everything before it is decided
    # for good (a construct closed, or read literally), and how many of each list it found.
    settled: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)

    def settle(self, pos: int) -> None:
        self.settled = (
            pos,
            len(self.escapes),
            len(self.spaces),
            len(self.joins),
            len(self.cells),
            len(self.verbatim),
        )

    def resumed(self) -> _Scan:
        """The scan as it stood where it settled, to continue on a longer text."""
        pos, e, s, j, c, v = self.settled
        scan = _Scan(
            pos,
            self.escapes[:e],
            self.spaces[:s],
            self.joins[:j],
            self.cells[:c],
            self.verbatim[:v],
        )
        scan.settled = self.settled
        return scan


def _scan(
    text: str, start: int, final: bool, max_hold: int, table: bool, resume: _Scan | None = None
) -> _Scan:
    """Find how far text[start:] can be rendered now, and which openers are literal.

    Constructs whose content is not read as plain words are atomic: code spans, links and
    images, autolinks, pronunciation markup. One still open holds the text from its opener
    on, unless the line ended; one with no closer within `max_hold` characters is literal
    once that many characters are there. Decided by the text alone. `resume`: an earlier
    scan of the same held text, shorter then (a long word arriving), is continued where it
    settled, so a word held back is not scanned again from its start on every delta.
    """
    scan = resume.resumed() if resume else _Scan(len(text))
    scan.limit = len(text)
    i = scan.settled[0] if resume else start
    scan.settle(i)
    _Scanner(text, final, max_hold, table, scan).run(i)
    return scan


@dataclass
class _Scanner:
    """One scan's walk over the text: each construct's opener moves it on (the index after
    what was decided) or stops it (None: the text from there is held, or the line ends)."""

    text: str
    final: bool
    max_hold: int
    table: bool
    scan: _Scan

    @property
    def end(self) -> int:
        return len(self.text)

    def run(self, i: int) -> None:
        text, end, scan = self.text, self.end, self.scan
        while True:
            skip = _ordinary_end(text, i, self.table)
            if skip >= end:
                # Ordinary to the end is settled; a last "!" is not (a "[" may yet follow).
                if skip > i:
                    scan.settle(max(i, end - 1) if text.endswith("!") else end)
                return
            i = skip
            scan.settle(i)
            following = self._step(text[i], i)
            if following is None:
                return
            i = following

    def _step(self, ch: str, i: int) -> int | None:
        if ch == "\\":
            return self._escape(i)
        if ch == "`":
            return self._code(i)
        if ch == "[" or (ch == "!" and self.text.startswith("[", i + 1)):
            return self._link(i, i if ch == "[" else i + 1)
        if ch == "<":
            return self._autolink(i)
        if ch == "{":
            return self._markup(i)
        if _CJK_RUN.match(ch):
            return self._cjk_run(i)
        if ch == "|" and self.table:
            self.scan.cells.append(i)
        elif ch.isspace():
            self.scan.spaces.append(i)
        return i + 1

    def _open_at(self, pos: int) -> bool:
        """An opener without its closer: hold from it (True), or read it literally."""
        if self.end - pos >= self.max_hold:
            self.scan.escapes.append(pos)
            return False
        if self.final:
            return False
        self.scan.limit = pos
        return True

    def _escape(self, i: int) -> int | None:
        if i + 1 >= self.end and not self.final:
            self.scan.limit = i
            return None
        return i + 2

    def _code(self, i: int) -> int | None:
        text = self.text
        j = _run_end(text, i, self.end)
        close = _closing_backticks(text, j, min(self.end, i + self.max_hold), j - i)
        if close >= 0:
            return close + (j - i)
        if self._open_at(i):
            return None
        self.scan.escapes.extend(range(i + 1, j))
        return j

    def _link(self, i: int, b: int) -> int | None:
        """A link or an image from i, its "[" at b."""
        link = _link_end(self.text, b, min(self.end, i + self.max_hold), self.end)
        if link is None:
            return None if self._open_at(b) else b + 1
        return b + 1 if link < 0 else link

    def _autolink(self, i: int) -> int | None:
        stop = min(self.end, i + self.max_hold)
        m = _AUTOLINK.match(self.text, i, stop)
        if m:
            return m.end()
        if _AUTOLINK_PREFIX.fullmatch(self.text, i, stop) and self._open_at(i):
            return None
        return i + 1

    def _markup(self, i: int) -> int | None:
        stop = min(self.end, i + self.max_hold)
        m = MARKUP.match(self.text, i, stop)
        if m:
            self.scan.verbatim.append((i, m.end()))
            return m.end()
        if _MARKUP_PREFIX.fullmatch(self.text, i, stop) and self._open_at(i):
            return None
        return i + 1

    def _cjk_run(self, i: int) -> int | None:
        # A boundary is known once the character after it is: the run's last character
        # waits for its successor (the scan resumes there, not at the run's start).
        run = _CJK_RUN.match(self.text, i)
        assert run
        self.scan.joins.extend(range(i + 1, run.end()))
        if run.end() >= self.end:
            self.scan.settle(run.end() - 1)
            return None
        return run.end()


def _inline_text(tokens: list[Token]) -> str:
    """The words of parsed inline markdown: link text, alt text, code content."""
    parts: list[str] = []
    autolink = False
    for token in tokens:
        kind = token.type
        if kind == "text":
            content = token.content
            if autolink:
                host = re.sub(r"^[A-Za-z][A-Za-z0-9.+-]*:(//)?", "", content)
                content = re.split(r"[/?#]", host, maxsplit=1)[0]
            parts.append(_strip_delimiters(content))
        elif kind == "code_inline":
            parts.append(token.content)
        elif kind == "image":
            parts.append(_strip_delimiters(token.content))
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind == "link_open":
            autolink = token.markup == "autolink"
        elif kind == "link_close":
            autolink = False
    return "".join(parts)


def _strip_delimiters(text: str) -> str:
    """Emphasis characters markdown left as literal text are still not read."""
    text = text.replace("*", "").replace("`", "")
    text = re.sub(r"~~+", "", text)
    return re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)


class _Step(NamedTuple):
    """What one block marker made of the line: its kind so far and where its text starts."""

    kind: _Kind | None  # None: not known until more of the line arrives
    pos: int
    more: bool = False  # a container ("> ", "- "): another marker may follow it


_WAIT = _Step(None, 0)


def _task_box(line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
    """ "[ ] " or "[x] " after a list item's bullet."""
    if _TASK.match(line, pos):
        return _Step(kind, pos + 4, more=True)
    if not complete and "[ ] ".startswith(line[pos:].replace("x", " ").replace("X", " ")):
        return _WAIT
    return _Step(kind, pos)


def _bullet(line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
    n = len(line)
    if pos + 1 == n:
        return _WAIT if not complete else _Step("item", n)
    if line[pos + 1] in " \t":
        return _Step("item", pos + 2, more=True)
    return _Step(kind, pos)


def _heading(line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
    n = len(line)
    j = _run_end(line, pos, n)
    if j == n:
        if not complete and j - pos <= 6:
            return _WAIT  # "#" may still become a heading
        return _Step("heading", n) if j - pos <= 6 else _Step(kind, pos)
    if j - pos <= 6 and line[j] in " \t":
        return _Step("heading", j + 1)
    return _Step(kind, pos)


def _ordered(line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
    """ "1. " or "1) " (at most nine digits)."""
    n = len(line)
    m = re.match(r"[0-9]{1,10}", line[pos:])
    assert m
    j = pos + len(m[0])
    if j == n:
        return _WAIT if not complete else _Step(kind, pos)
    if len(m[0]) <= 9 and line[j] in ".)":
        if j + 1 == n:
            return _WAIT if not complete else _Step("item", n)
        if line[j + 1] in " \t":
            return _Step("item", j + 2, more=True)
    return _Step(kind, pos)


class MarkdownSpeech:
    """Markdown deltas in, plain written text out (see the module docstring)."""

    def __init__(self, *, emoji: EmojiMode = "drop", max_hold: int = MAX_HOLD) -> None:
        if max_hold < 1:
            raise ValueError(f"max_hold must be >= 1, got {max_hold}")
        self.emoji: EmojiMode = emoji
        self._max_hold = max_hold
        self._cleaner = StreamCleaner()
        self.reset()

    def reset(self) -> None:
        """Drop everything held (barge-in, or the end of an utterance)."""
        self._cleaner.reset()
        self._line = ""  # the current line, as cleaned
        self._kind: _Kind | None = None  # None: its markers are not known yet
        self._done = 0  # the line is emitted up to here
        self._held_scan: _Scan | None = None  # the scan of the held text, where it settled
        self._hr_checked = 0  # the undecided line may still be a thematic break up to here
        self._fence = ""  # the open fence's marker while inside fenced code
        self._opening = ""  # the marker of a fence opening on this line
        self._out: list[str] = []
        self._last = "\n"  # the last character emitted
        self._space = False  # whitespace seen since it, not emitted yet
        self._comma = False  # a table cell ended since the row's last text
        self._word_before = ""  # the last word emitted
        self._after_text = ""  # "para" when the previous line was paragraph text
        # A lone emoji after a word, held until the next word says whether it stands for a
        # word (text/emoji_speech.py): (the emoji, the word before it).
        self._pending: tuple[str, str] | None = None
        # A day abbreviation starting an English table cell ("| Mon |"), held until the cell
        # ends (read "Monday") or another word follows in it (read as written).
        self._cell_day: str | None = None
        self._day_table = False  # a day cell was read in this table ("Sun" then is Sunday)
        self._day_list = False  # a day label was read in this list ("Sun:" then is Sunday)
        self._language = "en-us"

    @property
    def buffered_chars(self) -> int:
        """Characters received and not yet emitted (nor dropped)."""
        held = 0 if self._fence or self._kind == "fence" else len(self._line) - self._done
        pending = len(self._pending[0]) if self._pending else 0
        pending += len(self._cell_day or "")
        return self._cleaner.buffered_chars + held + pending

    def feed(self, delta: str, language: str = "en-us") -> str:
        """Append a delta; return the plain text that is now certain (maybe "")."""
        self._language = language
        self._run(self._cleaner.feed(delta, language))
        return self._take()

    def flush(self, language: str | None = None) -> str:
        """Everything held, as the end of the text; the next text starts afresh."""
        if language:
            self._language = language
        self._run(self._cleaner.flush(self._language))
        if self._line:
            self._end_line()
        text = self._take().removesuffix("\n")  # the end of the text ends the line anyway
        emoji = self.emoji
        self.reset()
        self.emoji = emoji
        return text

    def convert(self, text: str, language: str = "en-us") -> str:
        """A whole text at once (the one-shot route): `feed` then `flush`."""
        return self.feed(text, language) + self.flush()

    # ---- lines --------------------------------------------------------------------------

    def _run(self, text: str) -> None:
        while text:
            newline = text.find("\n")
            if newline < 0:
                self._line += text
                self._advance()
                return
            self._line += text[:newline]
            text = text[newline + 1 :]
            self._end_line()

    def _advance(self) -> None:
        if self._fence or self._kind == "fence":
            self._line = self._line[:_MAX_FENCE_LINE]
            return
        if self._kind is None:
            self._kind = self._classify(complete=False)
        if self._kind is not None and self._kind not in ("fence", "break"):
            self._release(final=False)

    def _end_line(self) -> None:
        if self._fence:
            if re.fullmatch(
                f"[ \\t]*{re.escape(self._fence[0])}{{{len(self._fence)},}}[ \\t]*", self._line
            ):
                self._fence = ""
        else:
            if self._kind is None:
                self._kind = self._classify(complete=True)
            if self._kind == "fence":
                self._fence = self._opening
                self._newline()
                self._emit(CODE_NOTICES.get(self._language, CODE_NOTICES["en-us"]))
            elif self._kind != "break":
                self._release(final=True)
                self._resolve("")
                self._close_cell(ended=True)
                if self._kind in ("heading", "item", "row"):
                    self._end_sentence()
        self._newline()
        text_line = self._kind == "para" and not self._fence and self._line.strip()
        self._day_table = self._day_table and self._kind == "row"
        self._day_list = self._day_list and self._kind in ("item", "para")
        self._after_text = "para" if text_line else ""
        self._line = ""
        self._kind = None
        self._done = 0
        self._held_scan = None
        self._hr_checked = 0
        self._comma = False

    def _classify(self, *, complete: bool) -> _Kind | None:
        """Decide the line's block markers; leave `_kind` None while they are not known."""
        line = self._line
        n = len(line)
        pos = 0
        kind: _Kind = "para"
        for _ in range(8):  # nested containers: "> - [ ] text"
            while pos < n and line[pos] in " \t":
                pos += 1
            if pos == n:
                if not complete:
                    return None
                break
            step = self._marker(line, pos, kind, complete)
            if step.kind is None:
                return None
            kind, pos = step.kind, step.pos
            if not step.more:
                break
        self._done = pos
        return kind

    def _marker(self, line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
        """The block marker at line[pos], after the containers read so far made it `kind`."""
        ch = line[pos]
        if kind == "item" and ch == "[":
            return _task_box(line, pos, kind, complete)
        if ch == ">":
            return _Step(kind, pos + 1, more=True)
        if ch in "-*_":
            thematic = self._thematic_break(line, pos, complete)
            if thematic is not None:
                return thematic
        if ch in "-*+":
            return _bullet(line, pos, kind, complete)
        if ch == "#":
            return _heading(line, pos, kind, complete)
        if "0" <= ch <= "9":
            return _ordered(line, pos, kind, complete)
        if ch in "`~":
            return self._fence_opening(line, pos, kind, complete)
        return self._other_marker(line, pos, kind, complete)

    def _thematic_break(self, line: str, pos: int, complete: bool) -> _Step | None:
        """ "---", "* * *": a break; None when the line is something else (a bullet...)."""
        n = len(line)
        if complete and _HR.fullmatch(line[pos:]):
            return _Step("break", n)
        # "- -" may still become a thematic break (checked once per character)
        if not complete and not line[max(pos, self._hr_checked) :].lstrip(line[pos] + " \t"):
            self._hr_checked = n
            return _WAIT
        return None

    def _fence_opening(self, line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
        n = len(line)
        j = _run_end(line, pos, n)
        if j == n and not complete:
            return _WAIT  # the run may grow to a fence
        if j - pos >= 3:
            # A fence even when its info string holds a backtick (CommonMark would
            # read "```a``` b" as inline code): decided as soon as the run ends.
            self._opening = line[pos:j]
            return _Step("fence", n)
        return _Step(kind, pos)

    def _other_marker(self, line: str, pos: int, kind: _Kind, complete: bool) -> _Step:
        """A table row, a setext underline, a link reference definition, or text."""
        n = len(line)
        ch = line[pos]
        if ch == "|":
            kind, pos = "row", pos + 1
        setext = ch == "=" and self._after_text and kind == "para" and pos == 0
        if setext and _SETEXT.fullmatch(line):  # the underline of a setext heading
            if not complete:
                return _WAIT
            kind, pos = "break", n
        if ch == "[" and kind == "para":
            if _DEFINITION.match(line, pos):
                kind, pos = "break", n
            elif (
                not complete
                and n - pos < self._max_hold
                and _DEFINITION_PREFIX.fullmatch(line, pos)
            ):
                return _WAIT  # "[label]" may still be followed by ":"
        return _Step(kind, pos)

    # ---- inline text --------------------------------------------------------------------

    def _release(self, *, final: bool) -> None:
        line = self._line
        start = self._done
        if start >= len(line):
            return
        table = self._kind == "row"
        scan = _scan(line, start, final, self._max_hold, table, self._held_scan)
        if final:
            cut = len(line)
        else:
            # Up to the last whitespace (or cell separator) before the first open construct:
            # a word still arriving, or one an opener may yet claim, waits.
            cuts = [c for c in scan.spaces if c < scan.limit]
            cuts += [c for c in scan.joins if c < scan.limit]
            cuts += [c + 1 for c in scan.cells if c < scan.limit]
            cut = max(cuts, default=start)
        if cut <= start:
            self._held_scan = scan  # all of it held (a long word): continued on the next delta
            return
        self._held_scan = None
        self._render(line, start, cut, scan)
        self._done = cut

    def _render(self, line: str, start: int, cut: int, scan: _Scan) -> None:
        """Word by word: each stretch between top-level whitespace is parsed on its own, so
        the output cannot depend on where the release cuts fell (emphasis spanning words
        reads no differently from emphasis cut in two: it is never read)."""
        stops = sorted(
            [(c, c + 1, "space") for c in scan.spaces if start <= c < cut]
            + [(c, c + 1, "cell") for c in scan.cells if start <= c < cut]
            + [(c, c, "join") for c in scan.joins if start < c < cut]
            + [(a, b, "verbatim") for a, b in scan.verbatim if start <= a and b <= cut]
        )
        escapes = {e for e in scan.escapes if start <= e < cut}
        cursor = start
        for a, b, what in stops:
            self._word(line, cursor, a, escapes)
            if what == "join":
                cursor = b  # a word boundary that reads as nothing
                continue
            if what != "space":
                self._resolve("")
                self._close_cell(ended=what == "cell")
            if what == "space":
                self._space = True
            elif what == "cell":
                self._comma = self._comma or self._last != "\n"
            else:
                self._emit(line[a:b], raw=True)
            cursor = b
        self._word(line, cursor, cut, escapes)

    def _word(self, line: str, start: int, end: int, escapes: set[int]) -> None:
        if start >= end:
            return
        if self._kind == "row" and _DELIMITER_CELL.fullmatch(line, 0, end):
            return  # the delimiter row "|---|:---:|"
        word = line[start:end]
        if _PLAIN.fullmatch(word) or word == "*":
            # A "*" alone between spaces is no emphasis marker (CommonMark): it is read, as
            # "times" or "asterisk" (the normalizer's choice).
            text = word
        else:
            if escapes:
                word = "".join(
                    ("\\" + line[i]) if i in escapes else line[i] for i in range(start, end)
                )
            word = _REFERENCE.sub(r"\1()", word)
            tokens = _MD.parseInline(word)
            text = _inline_text(tokens[0].children or []) if tokens else ""
        if self._kind == "heading":
            text = _ATX_CLOSE.sub("", text)
        if "<" in text:
            parts = _HTML_TAG.split(text)
            tags = _HTML_TAG.findall(text)
            for part, tag in zip(parts, tags, strict=False):
                self._speak(part)
                if _HTML_BREAK.match(tag) and self._kind != "row":
                    self._resolve("")
                    self._end_sentence()
                    self._newline()
            text = parts[-1]
        self._speak(text)

    def _speak(self, text: str) -> None:
        if not text:
            return
        self._close_cell(ended=False)
        if (
            self._kind == "row"
            and self._language.startswith("en")
            and text in DAY_ABBR
            and (text != "Sun" or self._day_table)  # "| Sun |" alone may be the star
            and (self._comma or self._last == "\n")
        ):
            self._cell_day = text
            return
        if self._kind in ("item", "para") and self._last == "\n" and self._day_label(text):
            return
        lone = lone_emoji(text)
        if self._pending is not None:
            self._resolve("" if lone else text)
        elif lone and self._last.isalnum() and not self._comma:
            self._pending = (text, self._word_before)  # decided by the next word
            return
        elif self._last.isalnum() and not self._comma and self._emoji_before_marks(text):
            return
        spoken = speak_emoji(text, self.emoji)
        if spoken[:1] == " " and spoken.lstrip()[:1] in _CLOSING:
            spoken = spoken.lstrip()  # "Japan 🇯🇵!" -> "Japan!", not "Japan !"
            self._space = False
        self._emit(spoken)

    def _day_label(self, text: str) -> bool:
        """Read a day label starting a line ("Sat:" -> "Saturday:"); False if it is none."""
        label = _DAY_LABEL.fullmatch(text) if self._language.startswith("en") else None
        if label is None:
            return False
        days = [label["first"], label["last"] or label["first"]]
        if days == ["Sun", "Sun"] and not self._day_list:
            return False  # "- Sun: a star" in a list about anything else
        self._day_list = True
        dash = label["dash"] or ""
        self._emit(DAY_ABBR[days[0]] + (dash and dash + DAY_ABBR[days[1]]) + ":")
        return True

    def _emoji_before_marks(self, text: str) -> bool:
        """An emoji and closing punctuation as one word ("to 🇯🇵!"): read the word it
        stands for there, if any (text/emoji_speech.py); False if it stands for none."""
        body = text.rstrip(_CLOSING)
        if not body or len(body) > 16 or body == text or not lone_emoji(body):
            return False
        word = emoji_as_word(body, self._word_before, text[len(body) :])
        if word is None:
            return False
        self._emit(f" {word}{text[len(body) :]}")
        return True

    def _close_cell(self, *, ended: bool) -> None:
        """Read the held day abbreviation: the whole cell is a day, or it was not."""
        if self._cell_day is None:
            return
        day, self._cell_day = self._cell_day, None
        if ended:
            self._day_table = True
            self._emit(DAY_ABBR[day])
            return
        space = self._space  # the space after it, seen while it was held
        self._emit(day)
        self._space = space

    def _resolve(self, following: str) -> None:
        """Read or drop the held emoji, now that the word after it is known."""
        if self._pending is None:
            return
        chars, before = self._pending
        self._pending = None
        word = emoji_as_word(chars, before, following)
        self._emit(f" {word} " if word else speak_emoji(chars, self.emoji))

    # ---- output -------------------------------------------------------------------------

    def _emit(self, text: str, raw: bool = False) -> None:
        """Append text, one space for any run of whitespace, none at a line's start."""
        words = text if raw else re.sub(r"\s+", " ", text)
        body = words if raw else words.strip(" ")
        if not body:
            self._space = self._space or bool(words)
            return
        if self._last != "\n":
            if self._comma:
                self._out.append(", ")
            elif self._space or (not raw and words[0] == " "):
                self._out.append(" ")
        self._comma = False
        self._out.append(body)
        self._last = body[-1]
        self._word_before = body.rsplit(" ", 1)[-1]
        self._space = not raw and words[-1] == " "

    def _end_sentence(self) -> None:
        if self._last not in _FINAL_MARKS and self._last != "\n":
            self._out.append(".")
            self._last = "."
        self._space = False

    def _newline(self) -> None:
        if self._last != "\n":
            self._out.append("\n")
            self._last = "\n"
        self._space = False
        self._comma = False

    def _take(self) -> str:
        text = "".join(self._out)
        self._out.clear()
        return text
