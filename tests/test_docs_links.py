"""Every relative link in the repository's markdown points at a file that exists and, with a
`#fragment`, at a heading that exists there (GitHub's anchor rules), so docs that move or
rename a section cannot leave readers on a dead link."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
PARSER = MarkdownIt("commonmark").enable("table")


def markdown_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed]


def anchor(heading: str) -> str:
    """GitHub's slug: lower case, punctuation but hyphens and underscores removed, spaces to
    hyphens (markup inside the heading counts by its text)."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    tokens = PARSER.parse(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for opening, inline in pairwise(tokens):
        if opening.type != "heading_open":
            continue
        slug = anchor(inline.content)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


def links(path: Path) -> list[str]:
    targets = []
    for token in PARSER.parse(path.read_text(encoding="utf-8")):
        for child in token.children or ():
            if child.type == "link_open":
                targets.append(str(child.attrs["href"]))
    return targets


def test_anchor_follows_github_rules() -> None:
    assert anchor("Pacing: trimmed, then paced") == "pacing-trimmed-then-paced"
    assert anchor("`make smoke` after deploy") == "make-smoke-after-deploy"
    assert anchor("6. Pacing: side by side") == "6-pacing-side-by-side"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for href in links(path):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            continue  # outside the repository
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not target.exists():
            broken.append(f"{href}: no such file")
        elif parts.fragment and target.suffix == ".md" and parts.fragment not in anchors(target):
            broken.append(f"{href}: no heading with that anchor")
    assert broken == []
