"""Abbreviations as Java code writes them: (abbreviation, word) pairs from declarations.

A developer who writes ``Config cfg``, ``StringBuilder sb``, ``int len = s.length()`` or
``Config getConfig() { return cfg; }`` says that ``cfg`` stands for ``config``, ``sb`` for
``string builder`` and ``len`` for ``length``. :func:`mine_abbreviations` collects such
pairs from Java sources (read with tree-sitter-java), with no list of abbreviations and no
rating: code is the only evidence (issue 33 item 2).

Where a pair comes from (its ``kinds``):

* ``type``: a declared name beside its declared type: fields, locals, parameters,
  ``catch`` parameters, enhanced-``for`` variables, try-with-resources;
* ``new``: a local or field set to ``new T(...)`` (``var sb = new StringBuilder()``);
* ``call``: a local or field set to a call's result, the call's name
  (``int len = s.length()``, ``String msg = e.getMessage()``);
* ``getter``: a field returned by a getter, the getter's name less ``get``/``is``
  (``Config getConfig() { return cfg; }``).

A name counts only when it is one lower-case sub-token of 2 letters or more (a single
letter stands for too many words). It abbreviates the words when it is their initials
(``sb``: ``string builder``, ``os``: ``output stream``, the last two or more words of the
phrase), or else a shorter subsequence of one word starting with its first letter
(``cfg``: ``config``, ``msg``: ``message``, ``idx``: ``index``); never a word of the phrase
itself, nor the word less an ending (``option``/``options``, ``map``/``mapping``). A pair is
kept when it is seen in at least ``min_files`` files.

:func:`held_out` splits pairs by their abbreviation (every pair of one abbreviation on one
side), so the held-out part shares no abbreviation with the part used for tuning.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter_java
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from wrdscore.atomic import atomic_write
from wrdscore.corpora._tokenize import split_identifier
from wrdscore.errors import WrdscoreError

#: Pairs of one abbreviation are held out when the first 8 bytes (big-endian) of the
#: SHA-256 of the abbreviation are 0 modulo this (about a fifth).
HELD_OUT_MODULUS = 5
#: The default: a pair must be written in at least this many files.
MIN_FILES = 2
#: The columns of the TSV :func:`write_abbreviations` writes (after a ``#`` header).
COLUMNS = ("abbreviation", "words", "files", "count", "kinds", "part", "example")
_KINDS = ("type", "new", "call", "getter")
_DECLARATIONS = (
    "local_variable_declaration",
    "field_declaration",
    "formal_parameter",
    "catch_formal_parameter",
    "enhanced_for_statement",
    "resource",
    "method_declaration",
)
_GETTER = re.compile(r"(?:get|is)(?=[A-Z])")
# Endings that make another form of the same word (plurals, -ing, -ed, -er).
_ENDINGS = frozenset({"s", "es", "ed", "er", "ers", "ing", "ings", "ion", "ions"})
# Verbs a call's name starts with that are not what the result is (``getMessage``).
_CALL_VERBS = frozenset({"get", "is", "to", "as", "new", "create", "make", "read"})


@dataclass(frozen=True)
class Abbreviation:
    """One mined pair and its evidence.

    Attributes
    ----------
    abbreviation, words : str
        ``cfg`` and ``config``; ``words`` may be several (``string builder``).
    files, count : int
        Files it was seen in, and occurrences.
    kinds : tuple of str
        Where it was seen (``type``, ``new``, ``call``, ``getter``).
    example : str
        The first declaration it was seen in, on one line.
    """

    abbreviation: str
    words: str
    files: int
    count: int
    kinds: tuple[str, ...]
    example: str

    @property
    def part(self) -> str:
        """``held-out`` or ``tune`` (:func:`held_out`)."""
        return "held-out" if held_out(self.abbreviation) else "tune"


def held_out(abbreviation: str) -> bool:
    """Whether the pairs of ``abbreviation`` are in the held-out part.

    Examples
    --------
    >>> [held_out(a) for a in ("cfg", "msg", "sb")]
    [False, False, True]
    """
    digest = hashlib.sha256(abbreviation.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % HELD_OUT_MODULUS == 0


def expansion(short: str, words: Sequence[str]) -> str | None:
    """The words of a phrase that ``short`` abbreviates, or None.

    Examples
    --------
    >>> expansion("sb", ["string", "builder"]), expansion("os", ["byte", "output", "stream"])
    ('string builder', 'output stream')
    >>> expansion("cfg", ["config"]), expansion("len", ["length"])
    ('config', 'length')
    >>> expansion("map", ["hash", "map"]), expansion("s", ["string"])  # a word; one letter
    (None, None)
    >>> expansion("option", ["options"]), expansion("map", ["mapping"])  # forms of one word
    (None, None)
    """
    if len(short) < 2 or not (short.isascii() and short.isalpha() and short.islower()):
        return None
    if short in words:
        return None
    for k in range(2, len(words) + 1):
        tail = words[-k:]
        if short == "".join(w[0] for w in tail):
            return " ".join(tail)
    # The head noun first: in ``ServerConfig cfg`` the word is the last one.
    for word in reversed(words):
        if len(word) > len(short) and word[0] == short[0] and _subsequence(short, word):
            return None if _inflected(short, word) else word
    return None


def _inflected(short: str, word: str) -> bool:
    """Whether ``word`` is ``short`` with an ending (``option``/``options``, ``map``/
    ``mapping``, ``make``/``maker``): another form of one word, not an abbreviation."""
    if not word.startswith(short):
        return False
    ending = word[len(short) :]
    # A doubled consonant before -ing or -ed (mapping), not before -er (buf/buffer).
    doubled = ending[:1] == short[-1] and ending[1:] in ("ing", "ed")
    return ending in _ENDINGS or doubled or (short.endswith("e") and "e" + ending in _ENDINGS)


def _subsequence(short: str, word: str) -> bool:
    letters = iter(word)
    return all(c in letters for c in short)


@dataclass
class _Tally:
    count: int = 0
    files: set[int] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    example: str = ""


def _phrase(identifier: str, drop_verb: bool = False) -> list[str]:
    words = split_identifier(identifier)
    if drop_verb and len(words) > 1 and words[0] in _CALL_VERBS:
        words = words[1:]
    return [w for w in words if w.isascii() and w.isalpha()]


class _FileMiner:
    """The declarations of one parsed file, as (name, phrase, kind, example) findings."""

    def __init__(self, source: bytes) -> None:
        self.source = source

    def text(self, node: Node) -> str:
        start, end = node.start_byte, node.end_byte
        return self.source[start:end].decode("utf-8", errors="replace")

    def type_name(self, node: Node | None) -> str | None:
        """The class a type names (``java.util.List<T>`` -> ``List``); None for others."""
        while node is not None:
            kind = node.type
            if kind == "type_identifier":
                return self.text(node)
            if kind == "generic_type":
                node = node.children[0]
            elif kind == "scoped_type_identifier":
                node = node.children[-1]
            elif kind == "catch_type":
                types = [c for c in node.children if c.is_named]
                node = types[0] if len(types) == 1 else None
            else:
                return None
        return None

    def findings(self, node: Node) -> Iterable[tuple[str, list[str], str]]:
        """(name, phrase, kind) of one declaration node."""
        kind = node.type
        get = node.child_by_field_name
        if kind == "method_declaration":
            yield from self.getter(node)
            return
        type_node = get("type")
        if kind == "catch_formal_parameter":
            type_node = next((c for c in node.children if c.type == "catch_type"), None)
        declared = self.type_name(type_node)
        if kind in ("local_variable_declaration", "field_declaration"):
            declarators = [
                (c.child_by_field_name("name"), c.child_by_field_name("value"))
                for c in node.children
                if c.type == "variable_declarator"
            ]
        else:
            value = get("value") if kind == "resource" else None
            declarators = [(get("name"), value)]
        for name_node, value in declarators:
            if name_node is None or name_node.type != "identifier":
                continue
            name = self.text(name_node)
            if declared is not None:
                yield name, _phrase(declared), "type"
            if value is None:
                continue
            if value.type == "object_creation_expression":
                created = self.type_name(value.child_by_field_name("type"))
                if created is not None:
                    yield name, _phrase(created), "new"
            elif value.type == "method_invocation":
                called = value.child_by_field_name("name")
                if called is not None:
                    yield name, _phrase(self.text(called), drop_verb=True), "call"

    def getter(self, node: Node) -> Iterable[tuple[str, list[str], str]]:
        """A getter returning one field: (field, the getter's name less get/is)."""
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        method = self.text(name_node)
        prefix = _GETTER.match(method)
        statements = [c for c in body.named_children if c.type != "line_comment"]
        if prefix is None or len(statements) != 1 or statements[0].type != "return_statement":
            return
        returned = statements[0].named_children
        if len(returned) != 1:
            return
        value: Node | None = returned[0]
        if value is not None and value.type == "field_access":
            this = value.child_by_field_name("object")
            value = value.child_by_field_name("field") if this and this.type == "this" else None
        if value is not None and value.type == "identifier":
            yield self.text(value), _phrase(method[prefix.end() :]), "getter"


def _one_line(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class AbbreviationMiner:
    """Tallies (abbreviation, words) pairs over files; :meth:`pairs` gives the result.

    Examples
    --------
    >>> miner = AbbreviationMiner()
    >>> miner.add(b"class A { void f(Config cfg) { int len = cfg.length(); } }")
    >>> miner.add(b"class B { private Config cfg; Config getConfig() { return this.cfg; } }")
    >>> [(p.abbreviation, p.words, p.files, p.kinds) for p in miner.pairs(min_files=2)]
    [('cfg', 'config', 2, ('type', 'getter'))]
    """

    def __init__(self) -> None:
        language = Language(tree_sitter_java.language())
        self._parser = Parser(language)
        pattern = " ".join(f"({kind})" for kind in _DECLARATIONS)
        self._query = Query(language, f"[{pattern}] @declaration")
        self._tally: dict[tuple[str, str], _Tally] = defaultdict(_Tally)
        self.files = 0

    def add(self, source: bytes) -> None:
        """Mine one Java file's bytes."""
        file_id = self.files
        self.files += 1
        root = self._parser.parse(source).root_node
        found = QueryCursor(self._query).captures(root).get("declaration", [])
        miner = _FileMiner(source)
        for node in found:
            if node.has_error:
                continue
            for name, phrase, kind in miner.findings(node):
                words = expansion(name, phrase)
                if words is None:
                    continue
                tally = self._tally[name, words]
                tally.count += 1
                tally.files.add(file_id)
                tally.kinds.add(kind)
                if not tally.example:
                    text = miner.text(node)
                    if node.type == "method_declaration":
                        # The signature and the returned field, not the whole method.
                        text = text.split("{", 1)[0] + "{ return " + name + "; }"
                    tally.example = _one_line(text)

    def pairs(self, min_files: int = MIN_FILES) -> list[Abbreviation]:
        """Pairs seen in ``min_files`` files or more: most files first, then by name."""
        out = [
            Abbreviation(
                short,
                words,
                len(t.files),
                t.count,
                tuple(k for k in _KINDS if k in t.kinds),
                t.example,
            )
            for (short, words), t in self._tally.items()
            if len(t.files) >= min_files
        ]
        return sorted(out, key=lambda p: (-p.files, -p.count, p.abbreviation, p.words))


def mine_abbreviations(
    paths: Sequence[str | Path], min_files: int = MIN_FILES, max_file_mb: float = 1.0
) -> tuple[list[Abbreviation], int]:
    """Mine the ``.java`` files of folders, files and archives (as ``ingest`` reads them).

    Returns
    -------
    pairs : list of Abbreviation
        Seen in ``min_files`` files or more.
    files : int
        Java files read (files over ``max_file_mb`` are skipped).
    """
    from wrdscore.corpora._sources import iter_java_files, open_sources

    if min_files < 1:
        raise WrdscoreError(f"--min-files must be at least 1, not {min_files}")
    if not (max_file_mb > 0 and math.isfinite(max_file_mb)):
        # As ingest checks it: 0 or less skipped every file, and nan was a traceback.
        raise WrdscoreError(f"--max-file-mb must be a positive number, not {max_file_mb}")
    miner = AbbreviationMiner()
    for java in iter_java_files(open_sources(paths), int(max_file_mb * 1024 * 1024)):
        if java.data is not None:
            miner.add(java.data)
    return miner.pairs(min_files), miner.files


def write_abbreviations(pairs: Sequence[Abbreviation], path: str | Path) -> Path:
    """Write ``pairs`` as a TSV (:data:`COLUMNS`, a ``#`` header line), atomically."""
    with atomic_write(path) as out:
        out.write("#" + "\t".join(COLUMNS) + "\n")
        for p in pairs:
            row = (p.abbreviation, p.words, p.files, p.count, ",".join(p.kinds), p.part, p.example)
            out.write("\t".join(str(v).replace("\t", " ") for v in row) + "\n")
    return Path(path)


def write_tune_pairs(pairs: Sequence[Abbreviation], path: str | Path) -> int:
    """Write the ``tune`` part as ``abbreviation<TAB>words`` lines, the format
    ``wrdscore tune --pairs`` reads, atomically; returns how many."""
    tune = [p for p in pairs if p.part == "tune"]
    with atomic_write(path) as out:
        out.writelines(f"{p.abbreviation}\t{p.words}\n" for p in tune)
    return len(tune)


def read_abbreviations(path: str | Path) -> list[Abbreviation]:
    """Read a TSV written by :func:`write_abbreviations`."""
    pairs = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line:
            continue
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise WrdscoreError(f"{path}:{n}: expected {len(COLUMNS)} tab-separated fields")
        short, words, files, count, kinds, _, example = fields
        pairs.append(
            Abbreviation(short, words, int(files), int(count), tuple(kinds.split(",")), example)
        )
    return pairs


def counts_by_part(pairs: Iterable[Abbreviation]) -> Counter[str]:
    """How many pairs each part holds."""
    return Counter(p.part for p in pairs)
