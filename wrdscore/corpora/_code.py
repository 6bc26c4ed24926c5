"""TEMPORARY STAND-IN for wip/code's reader (never committed; deleted before merge)."""

from __future__ import annotations

import re

from wrdscore.corpora._tokenize import split_identifier
from wrdscore.errors import WrdscoreError

TARGETS = ("name", "summary")
DEFAULT_TARGET = "name"
STRING_POLICIES = ("drop", "keep")
MAX_CODE_CHARS = 100_000
_KEYWORDS = set(
    "abstract assert boolean break byte case catch char class const continue default do "
    "double else enum extends final finally float for goto if implements import instanceof "
    "int interface long native new package private protected public return short static "
    "strictfp super switch synchronized this throw throws transient try void volatile while "
    "true false null var".split()
)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+")
_DECL = re.compile(r"([A-Za-z_$][A-Za-z0-9_$]*)\s*\(")


def declared_name(source: str) -> str | None:
    for m in _DECL.finditer(_COMMENT.sub(" ", source)):
        if m[1] not in _KEYWORDS:
            return m[1]
    return None


def read_code(
    source: str, *, target: str = "name", name: str | None = None, strings: str = "drop"
) -> list[str]:
    if not source.strip():
        raise WrdscoreError("the code is empty")
    if "\x00" in source:
        raise WrdscoreError("the code is binary")
    if len(source) > MAX_CODE_CHARS:
        raise WrdscoreError(f"the code is longer than {MAX_CODE_CHARS:,} characters")
    if name is None and target == "name":
        name = declared_name(source)
    text = _COMMENT.sub(" ", source) if target == "summary" else source
    if strings == "drop":
        text = _STRING.sub(" ", text)
    out: list[str] = []
    for w in _WORD.findall(text):
        if w in _KEYWORDS or (target == "name" and w == name):
            continue
        out.extend(split_identifier(w))
    return out
