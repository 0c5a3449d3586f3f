"""Give every written word its own slice of a G2P's output, so the slices join back exactly.

G2P libraries phonemize whole sentences (that is where their stress and reductions are best)
but report no word boundaries, and they merge or split words on the way (espeak-ng writes
"was a" as one word, `wʌzɐ`). These helpers recover the boundaries by matching the whole
output against each word phonemized on its own, never changing a character of the output.

Every step is bounded, whatever the text: a written form is aligned by its own spoken words
("$999" is "nine hundred ninety-nine dollars", four guides that each find their token), so
the length of one written form costs linear time; a stretch that finds no anchor and is too
big for the dynamic programme is shared out in proportion to the guides' lengths; and the
edit distance is bit-parallel, a few integer operations per character.

So the length of one written form is not capped for the aligner's sake. The English
normalizer already says a number of more than 15 digits one digit at a time (a reading, not
a bound); a form it leaves alone goes to espeak-ng as written ("1e999999" is "one E nine
hundred ninety-nine thousand ...", "1e" and 200 nines one unspaced word), and the segmenter's
cap on a sentence bounds those like any other text (docs/reliability.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

# Marks that carry no sound of their own: ignored when comparing two phoneme strings.
_NEUTRAL = str.maketrans("", "", "ˈˌː-‿ ")

# The largest stretch between anchors that goes through the dynamic programme: guides times
# tokens, and characters on either side. Random stretches at these limits cost at most about
# 13 ms; the stretches of every corpus in tests/container/data reach 12 cells and 16
# characters (a merge is a few words), so none of them is shared out by length.
_SPAN_CELLS = 48
_SPAN_CHARS = 96


def bare(phonemes: str) -> str:
    return phonemes.translate(_NEUTRAL)


def distance(a: str, b: str) -> float:
    """Edit distance of two phoneme strings (stress and length marks aside), scaled to 0..1."""
    a, b = bare(a), bare(b)
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    return _edits(a, b) / max(len(a), len(b))


def _edits(a: str, b: str) -> int:
    """Levenshtein distance by the bit-parallel method (Myers 1999, in Hyyrö's form for whole
    strings): one column of the table per character of the longer string, held as bits of
    Python integers, so the cost is len(a) steps of a few integer operations whatever the
    lengths (two 2000-character strings: a few milliseconds)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    mask, high = (1 << len(b)) - 1, 1 << (len(b) - 1)
    matches: dict[str, int] = {}
    for i, char in enumerate(b):
        matches[char] = matches.get(char, 0) | 1 << i
    plus, minus, edits = mask, 0, len(b)  # vertical +1 / -1 steps of the column; its last cell
    for char in a:
        eq = matches.get(char, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        h_plus = minus | (~(xh | plus) & mask)
        h_minus = plus & xh
        if h_plus & high:
            edits += 1
        elif h_minus & high:
            edits -= 1
        h_plus = ((h_plus << 1) | 1) & mask  # row 0 grows by one per column
        h_minus = (h_minus << 1) & mask
        plus = h_minus | (~(xv | h_plus) & mask)
        minus = h_plus & xv
    return edits


def _split_token(token: str, guides: Sequence[str]) -> list[str]:
    """Cut one output token that several words share, each cut where its guide and the
    guides after it fit best ("fɚðə" for "for the": "fɚ" and "ðə")."""
    pieces: list[str] = []
    rest = token
    for n, guide in enumerate(guides[:-1]):
        remaining = len(guides) - n - 1
        after = "".join(guides[n + 1 :])
        best_cut, best_cost = 1, float("inf")
        for cut in range(1, max(2, len(rest) - remaining + 1)):
            cost = distance(rest[:cut], guide) + distance(rest[cut:], after)
            if cost < best_cost:
                best_cut, best_cost = cut, cost
        pieces.append(rest[:best_cut])
        rest = rest[best_cut:]
    pieces.append(rest)
    return pieces


def assign_tokens(tokens: Sequence[str], guides: Sequence[str]) -> list[list[str]]:
    """Share output tokens out among words, in order, using each word's own phonemes as guide.

    Returns, per word, the pieces of output it owns. A word owns one or more whole tokens,
    a piece of a token it shares with its neighbours (a merge), or nothing (a word the G2P
    dropped). Joining every piece in order, with the spaces between whole tokens, gives back
    the output exactly.

    Words whose token is exactly their guide anchor the alignment; only the stretches between
    anchors (where the G2P merged or split words) go through the dynamic programme, which is
    quadratic in their length: a stretch over its budget is shared out by length instead.
    """
    owned: list[list[str]] = [[] for _ in guides]
    matcher = difflib.SequenceMatcher(
        None, [bare(g) for g in guides], [bare(t) for t in tokens], autojunk=False
    )
    word = token = 0
    carry: list[str] = []  # tokens before the first word that has any: given to it
    for start_word, start_token, size in matcher.get_matching_blocks():
        words, between = guides[word:start_word], tokens[token:start_token]
        if words and between:
            for offset, pieces in enumerate(_align_stretch(between, words)):
                owned[word + offset] = pieces
        elif between and word > 0:
            owned[word - 1] += between
        elif between:
            carry = list(between)
        for k in range(size):
            owned[start_word + k] = [tokens[start_token + k]]
        word, token = start_word + size, start_token + size
    if carry:
        first = next((i for i, pieces in enumerate(owned) if pieces), 0)
        owned[first] = carry + owned[first]
    return owned


def _align_stretch(tokens: Sequence[str], guides: Sequence[str]) -> list[list[str]]:
    """One stretch between anchors: the dynamic programme within its budget, else by length."""
    small = (
        len(tokens) * len(guides) <= _SPAN_CELLS
        and sum(map(len, tokens)) <= _SPAN_CHARS
        and sum(map(len, guides)) <= _SPAN_CHARS
    )
    return _assign_span(tokens, guides) if small else _share_by_length(tokens, guides)


def _share_by_length(tokens: Sequence[str], guides: Sequence[str]) -> list[list[str]]:
    """Whole tokens to words in order, each token to the word whose share of the guides'
    length holds the token's middle: linear, for stretches too big to align closely."""
    weights = [len(bare(g)) + 1 for g in guides]  # + 1: an empty guide still has a place
    sizes = [len(bare(t)) + 1 for t in tokens]
    scale = sum(weights) / sum(sizes)  # token length -> guide length
    owned: list[list[str]] = [[] for _ in guides]
    word, word_end, done = 0, weights[0], 0
    for token, size in zip(tokens, sizes, strict=True):
        middle = (done + size / 2) * scale
        while middle > word_end and word < len(guides) - 1:
            word += 1
            word_end += weights[word]
        owned[word].append(token)
        done += size
    return owned


def _assign_span(tokens: Sequence[str], guides: Sequence[str]) -> list[list[str]]:
    """The dynamic programme of `assign_tokens` over one stretch between anchors."""
    n, m = len(guides), len(tokens)
    inf = float("inf")
    # cost[i][j]: best cost of giving the first i words the first j tokens.
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    step: list[list[tuple[int, int] | None]] = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = cost[i][j]
            if here == inf:
                continue
            if i < n:  # word i takes 0..4 whole tokens (the last word: all that are left)
                for k in [m - j] if i == n - 1 else range(min(4, m - j) + 1):
                    c = here + (distance(" ".join(tokens[j : j + k]), guides[i]) if k else 1.0)
                    if c < cost[i + 1][j + k]:
                        cost[i + 1][j + k], step[i + 1][j + k] = c, (1, k)
            if j < m:  # words i..i+w-1 share token j
                for w in range(2, min(4, n - i) + 1):
                    c = here + distance(tokens[j], "".join(guides[i : i + w])) + 0.1 * (w - 1)
                    if c < cost[i + w][j + 1]:
                        cost[i + w][j + 1], step[i + w][j + 1] = c, (w, -1)
    owned: list[list[str]] = [[] for _ in range(n)]
    i, j = n, m
    while i or j:
        move = step[i][j]
        assert move is not None, "no alignment"  # unreachable: every word may take 0 tokens
        words, took = move
        if took == -1:
            for offset, piece in enumerate(_split_token(tokens[j - 1], guides[i - words : i])):
                owned[i - words + offset] = [piece]
            i, j = i - words, j - 1
        else:
            owned[i - 1] = list(tokens[j - took : j])
            i, j = i - 1, j - took
    return owned


def word_slices(whole: str, guides: Sequence[str]) -> list[str]:
    """`whole` (spoken words joined by single spaces) cut into one slice per guide.

    A guide is one written form read alone and may be several spoken words ("nine hundred
    ninety-nine dollars"): its spoken words are aligned one by one, most of them finding
    their own token, and their slices joined again. Joined, the slices are `whole` exactly.
    """
    sub_guides: list[str] = []
    owners: list[int] = []
    for index, guide in enumerate(guides):
        parts = guide.split() or [""]
        sub_guides += parts
        owners += [index] * len(parts)
    tokens = whole.split(" ") if whole else []
    slices = [""] * len(guides)
    pieces = cut_slices(whole, assign_tokens(tokens, sub_guides))
    for owner, piece in zip(owners, pieces, strict=True):
        slices[owner] += piece
    return slices


def cut_slices(whole: str, owned: Sequence[Sequence[str]]) -> list[str]:
    """Cut `whole` into consecutive per-word slices, each keeping the space that follows it:
    `owned` holds each word's pieces (whole tokens, or a piece of a token it shares)."""
    slices: list[str] = []
    cursor = 0
    for pieces in owned:
        content = " ".join(pieces)
        if not whole.startswith(content, cursor):
            raise AssertionError(f"alignment lost the phonemes at {cursor} of {whole!r}")
        end = cursor + len(content)
        if content and end < len(whole) and whole[end] == " ":
            end += 1
        slices.append(whole[cursor:end])
        cursor = end
    if cursor != len(whole):
        slices[-1] += whole[cursor:]
    return slices


def source_spans(source: str, derived: str, ends: Sequence[int]) -> list[tuple[int, int]]:
    """Map pieces of `derived` (text a library rewrote from `source`) back onto `source`.

    `ends` are where each piece of `derived` ends, in order. Characters the rewrite kept map
    one to one; a rewritten region ("10" -> "十") maps as a whole, to the piece in which it
    starts, so the pieces after it inside that region get an empty span. The spans returned
    tile the source: in order, touching, from 0 to len(source).
    """
    opcodes = difflib.SequenceMatcher(None, source, derived, autojunk=False).get_opcodes()

    def boundary(d: int) -> int:
        for tag, s0, s1, d0, d1 in opcodes:
            if d == d0:
                return s0
            if d0 < d < d1:
                return s0 + (d - d0) if tag == "equal" else s1
        return len(source)

    spans: list[tuple[int, int]] = []
    position = 0
    for index, end in enumerate(ends):
        stop = len(source) if index == len(ends) - 1 else max(boundary(end), position)
        spans.append((position, stop))
        position = stop
    return spans


def project(original: str, final: str) -> list[int]:
    """For each character of `final`, the index of the `original` character it came from.

    `final` must be `original` with some whitespace removed or collapsed and characters
    replaced one for one (what espeak's and misaki's post-processing does to a joined string).
    """
    owners: list[int] = []
    i = 0
    for char in final:
        while i < len(original) and original[i] != char and original[i].isspace():
            i += 1
        if i >= len(original):
            raise ValueError("final string is not a projection of the original")
        owners.append(i)
        i += 1
    return owners
