"""Give every written word its own slice of a G2P's output, so the slices join back exactly.

G2P libraries phonemize whole sentences (that is where their stress and reductions are best)
but report no word boundaries, and they merge or split words on the way (espeak-ng writes
"was a" as one word, `wʌzɐ`). These helpers recover the boundaries by matching the whole
output against each word phonemized on its own, never changing a character of the output.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

# Marks that carry no sound of their own: ignored when comparing two phoneme strings.
_NEUTRAL = str.maketrans("", "", "ˈˌː-‿ ")


def bare(phonemes: str) -> str:
    return phonemes.translate(_NEUTRAL)


def distance(a: str, b: str) -> float:
    """Edit distance of two phoneme strings (stress and length marks aside), scaled to 0..1."""
    a, b = bare(a), bare(b)
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] / max(len(a), len(b))


def _split_token(token: str, guides: Sequence[str]) -> list[str]:
    """Cut one output token that several words share, each cut where its guide fits best."""
    pieces: list[str] = []
    rest = token
    for n, guide in enumerate(guides[:-1]):
        remaining = len(guides) - n - 1
        best_cut, best_cost = 1, float("inf")
        for cut in range(1, max(2, len(rest) - remaining + 1)):
            cost = distance(rest[:cut], guide)
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
    """
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
            if i < n:  # word i takes 0..4 whole tokens
                for k in range(0, min(4, m - j) + 1):
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
