"""The on-disk corpus format that ``wrdscore ingest`` writes and everything else reads.

A corpus is a folder with two files:

``methods.jsonl.gz``
    One JSON object per method, gzip-compressed JSON Lines, with the fields
    ``name``, ``tokens``, ``type``, ``path``, ``line``, ``summary``, ``context``
    (sub-tokens joined by single spaces; see :mod:`wrdscore.corpora._context`),
    ``source`` (index into the manifest's ``sources`` list), ``code`` (the
    method's source text, at most :data:`~wrdscore.corpora.MAX_CODE_CHARS`
    characters) and ``code_words`` (its identifiers as code reading finds them,
    space-separated, or null: :func:`~wrdscore.corpora._code.code_words`); a record of
    another language than Java also has ``language`` (see :mod:`._languages`).
``manifest.json``
    Format version, sources, counts, parser, options, versions and timing (see the
    README).

Format 2 added ``context``, format 3 ``code``, format 4 ``code_words`` (a format 3
corpus is still scored against its code, by parsing it). An older corpus (format 1: its
manifest has no ``format``) is still read for names and summaries; what needs
context calls :meth:`Corpus.require_context`, what needs code
:meth:`Corpus.require_code`.

A corpus ingested on a Dask cluster holds its records in shards instead,
``methods-00000.jsonl.gz``, ``methods-00001.jsonl.gz``..., which the manifest lists
under ``shards``; the records are the shards concatenated in that order.

Readers stream the records; nothing ever holds a whole corpus in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import os
import re
import shlex
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from wrdscore.corpora._defaults import DEFAULT_TARGET, TARGETS
from wrdscore.errors import WrdscoreError

METHODS_FILE = "methods.jsonl.gz"
MANIFEST_FILE = "manifest.json"
#: The record files of a sharded corpus (:class:`ShardedCorpusWriter`).
SHARD_NAME = re.compile(r"methods-\d{5,}\.jsonl\.gz")
#: Records per shard: big enough that a shard is a worthwhile Dask task when
#: ``wrdscore train --scheduler`` reduces over them, small enough for many of them.
SHARD_RECORDS = 100_000
RECORD_FIELDS = (
    "name",
    "tokens",
    "type",
    "path",
    "line",
    "summary",
    "context",
    "source",
    "code",
    "code_words",
)
#: The version ``wrdscore ingest`` writes into the manifest's ``format``.
CORPUS_FORMAT = 4


@dataclass(frozen=True)
class Corpus:
    """A corpus folder opened for reading.

    Attributes
    ----------
    path : Path
        The folder.
    manifest : dict
        The parsed ``manifest.json``.
    manifest_sha256 : str
        SHA-256 of the manifest's bytes, which identifies the corpus in model metadata.
    """

    path: Path
    manifest: dict[str, Any] = field(repr=False)
    manifest_sha256: str

    @property
    def format(self) -> int:
        """The corpus format version: 1 for corpora written before ``format`` existed."""
        return int(self.manifest.get("format", 1))

    def require_context(self) -> None:
        """Refuse a corpus whose records have no ``context`` (written before format 2).

        Raises
        ------
        WrdscoreError
            Telling the user to ingest the sources again.
        """
        if self.format < 2:
            raise WrdscoreError(
                f"corpus {self.path} has format {self.format}, without method context; "
                "re-ingest its sources with `wrdscore ingest` to train on context"
            )

    def require_code(self) -> None:
        """Refuse a corpus whose records have no ``code`` (written before format 3).

        Raises
        ------
        WrdscoreError
            Naming the command that ingests the sources again.

        Examples
        --------
        >>> Corpus(Path("old"), {"format": 2}, "").require_code()
        Traceback (most recent call last):
        ...
        wrdscore.errors.WrdscoreError: corpus old has format 2, without the methods' code; \
re-ingest it with `wrdscore ingest SOURCE... -o old --force` to score against code
        """
        if self.format < 3:
            sources = self.manifest.get("sources")
            paths = [
                s["path"]
                for s in (sources if isinstance(sources, list) else [])
                if isinstance(s, dict) and isinstance(s.get("path"), str)
            ]
            command = shlex.join(["wrdscore", "ingest", *paths, "-o", str(self.path), "--force"])
            if not paths:
                command = command.replace(" ingest ", " ingest SOURCE... ", 1)
            raise WrdscoreError(
                f"corpus {self.path} has format {self.format}, without the methods' code; "
                f"re-ingest it with `{command}` to score against code"
            )

    def iter_methods(
        self, read: Callable[[str], dict[str, Any]] = json.loads
    ) -> Iterator[dict[str, Any]]:
        """Stream the method records in the order they were written.

        ``read`` decodes one record's line (a :class:`FieldReader` decodes only some
        fields). Once the last record is read, their number is checked against the
        manifest's ``counts.methods`` (:meth:`check_count`), so a reader that goes
        through the whole corpus never works on a silently truncated one.

        Raises
        ------
        WrdscoreError
            If the records file is truncated, not valid gzip, UTF-8 or JSON, or
            holds another number of records than the manifest says.
        """
        n = 0
        for methods in self.record_files():
            for record in iter_records(methods, read=read):
                n += 1
                yield record
        self.check_count(n)

    def check_count(self, records: int) -> None:
        """Refuse ``records`` records if the manifest's ``counts.methods`` says otherwise.

        A manifest without that count (a corpus not written by ``wrdscore ingest``)
        is not checked.

        Examples
        --------
        >>> Corpus(Path("c"), {"counts": {"methods": 3}}, "").check_count(2)
        Traceback (most recent call last):
        ...
        wrdscore.errors.WrdscoreError: c: manifest says 3 methods but the records file has 2
        """
        counts = self.manifest.get("counts") if isinstance(self.manifest, dict) else None
        expected = counts.get("methods") if isinstance(counts, dict) else None
        if isinstance(expected, int) and expected != records:
            raise WrdscoreError(
                f"{self.path}: manifest says {expected} methods but the records "
                f"file{'s have' if len(self.record_files()) > 1 else ' has'} {records}"
            )

    def record_files(self) -> list[Path]:
        """The files holding the records, in order: the shards, or ``methods.jsonl.gz``."""
        return record_files(self.path, self.manifest)


def open_corpus(path: str | os.PathLike[str]) -> Corpus:
    """Open a folder written by ``wrdscore ingest``.

    Raises
    ------
    WrdscoreError
        If the folder is missing or is not a corpus.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        # A records or predictions file given where its corpus folder goes.
        raise WrdscoreError(
            f"{folder} is a file, not a corpus folder (a folder written by `wrdscore ingest`)"
        )
    if not folder.is_dir():
        raise WrdscoreError(f"corpus folder {folder} does not exist")
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        raise WrdscoreError(
            f"{folder} is not a corpus: expected {MANIFEST_FILE} and {METHODS_FILE} "
            "(create one with `wrdscore ingest`)"
        )
    raw = manifest_path.read_bytes()
    try:
        manifest = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise WrdscoreError(f"{manifest_path}: not valid JSON ({exc.msg})") from None
    for methods in record_files(folder, manifest):
        if not methods.is_file():
            raise WrdscoreError(
                f"{folder} is not a corpus: expected {MANIFEST_FILE} and {methods.name} "
                "(create one with `wrdscore ingest`)"
            )
    return Corpus(folder, manifest, hashlib.sha256(raw).hexdigest())


@dataclass(frozen=True, slots=True)
class CorpusMethod:
    """One method of a corpus, as code-aware scoring reads it (:func:`corpus_methods`).

    A dataclass, not a named tuple, because a tuple's ``index`` method would hide
    the field.

    Attributes
    ----------
    index : int
        Its record's position in the corpus, from 0: the line of a predictions file
        aligned by record order.
    id : str
        ``path:line:name`` (``2/path:line:name`` for the third source of a corpus of
        several), with ``#2``, ``#3``... after the second, third... method of one
        file with the same ``path:line:name`` (overloads written on one line).
        Stable: the same sources ingested again give the same ids.
    reference : str or None
        The method's name, or with target ``"summary"`` its Javadoc summary
        (``None`` when it has none).
    code : str or None
        Its source text (empty only where the javalang fallback could not place the
        declaration; see docs/ingest.md), or None where it was not read
        (:func:`corpus_methods` with ``code=False``).
    name : str
        Its name, which code reading masks with target ``"name"``.
    words : str or None
        Its ``code_words`` (format 4): the identifiers of its code, which scoring
        reads instead of parsing the code again; None where the corpus has none.
    language : str
        The language its code is in (a record without a ``language`` key is Java).
    """

    index: int
    id: str
    reference: str | None
    code: str | None
    name: str
    words: str | None = field(default=None, repr=False, compare=False)
    language: str = field(default="java", repr=False, compare=False)


def corpus_methods(
    corpus_dir: str | os.PathLike[str], target: str = DEFAULT_TARGET, *, code: bool = True
) -> Iterator[CorpusMethod]:
    """Stream the methods of a corpus with their references and code, in record order.

    Parameters
    ----------
    corpus_dir : path-like
        A folder written by ``wrdscore ingest`` (format 3 or later).
    target : {"name", "summary"}
        Which reference: the method's name or its Javadoc summary.
    code : bool
        Decode every method's ``code``. With False, a method that has ``code_words``
        gets ``code=None`` (not read: scoring under the default reading needs only the
        words, and decoding each method's source was a fifth of reading the corpus);
        one without them still gets its code (it is parsed, or refused, when scored).
        Only the fields used are decoded either way (:class:`FieldReader`).

    Raises
    ------
    WrdscoreError
        An unknown target, a folder that is not a corpus, a corpus without code
        (:meth:`Corpus.require_code`), or a damaged records file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import ingest
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A {\\n  /** Runs. */\\n  void runFast() { go(); }\\n}")
    >>> _ = ingest([d], d / "corpus", jobs=1, quiet=True)
    >>> list(corpus_methods(d / "corpus", target="summary"))
    [CorpusMethod(index=0, id='A.java:3:runFast', reference='Runs.', \
code='void runFast() { go(); }', name='runFast')]
    """
    corpus, records = _method_records(corpus_dir, target, code, ids=True)
    sources = corpus.manifest.get("sources")
    several = isinstance(sources, list) and len(sources) > 1
    key = "name" if target == "name" else "summary"
    file: tuple[Any, Any] | None = None
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        if (record.get("source"), record.get("path")) != file:
            file, seen = (record.get("source"), record.get("path")), {}
        where = f"{record.get('source')}/" if several else ""
        method_id = f"{where}{record.get('path')}:{record.get('line')}:{record['name']}"
        seen[method_id] = seen.get(method_id, 0) + 1
        if seen[method_id] > 1:
            method_id += f"#{seen[method_id]}"
        yield CorpusMethod(
            index,
            method_id,
            record.get(key),
            (record["code"] or "") if "code" in record else None,
            record["name"],
            record.get("code_words"),
            record["language"],
        )


def method_items(
    corpus_dir: str | os.PathLike[str], target: str = DEFAULT_TARGET, *, code: bool = True
) -> Iterator[tuple[str | None, str | None, str, str | None, str]]:
    """:func:`corpus_methods` without the index and id: ``(reference, code, name,
    words, language)`` of each method, in record order.

    What scoring a corpus by record order needs: the fields of the ids (``path``,
    ``line``, ``source``) are not decoded, and no :class:`CorpusMethod` is built
    (together a fifth of reading OpenJDK's records).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import ingest
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A {\\n  void runFast() { go(); }\\n}")
    >>> _ = ingest([d], d / "corpus", jobs=1, quiet=True)
    >>> list(method_items(d / "corpus", code=False))
    [('runFast', None, 'runFast', 'runFast go', 'java')]
    """
    key = "name" if target == "name" else "summary"
    for record in _method_records(corpus_dir, target, code, ids=False)[1]:
        yield (
            record.get(key),
            (record["code"] or "") if "code" in record else None,
            record["name"],
            record.get("code_words"),
            record["language"],
        )


def _method_records(
    corpus_dir: str | os.PathLike[str], target: str, code: bool, ids: bool
) -> tuple[Corpus, Iterator[dict[str, Any]]]:
    """The corpus and its records with the fields scoring reads: the name, the
    reference, ``code_words``, ``code`` where needed (see :func:`corpus_methods`), the
    ``language`` (``"java"`` where a record has none) and, with ``ids``, what a
    method's id is made of."""
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    corpus = open_corpus(corpus_dir)
    corpus.require_code()
    key = "name" if target == "name" else "summary"
    wanted = {"name", key, "code_words", *(("path", "line", "source") if ids else ())}
    fields = FieldReader([f for f in RECORD_FIELDS if f in wanted])
    from wrdscore.corpora._languages import SourceCode

    source = FieldReader(("code",))
    # A Java record has no language key: asked for, its absence would make FieldReader
    # decode the whole line (3.5 times the cost of the code alone). A string value
    # holds its quotes escaped, so the key as written below is only ever the key.
    with_language = FieldReader(("code", "language"))
    language_only = FieldReader(("language",))

    def read(line: str) -> dict[str, Any]:
        record = fields(line)
        # A record without a language is Java, as ingest read it, never told from its
        # code: a method cut at the cap is no longer valid Java, and 15 of OpenJDK 17's
        # were read as Go, C or PHP (keywords as words). Scoring needs it even from the
        # stored words: the language's reserved words count as copied (issue 32).
        tagged = ',"language":' in line
        if code or not isinstance(record.get("code_words"), str):
            found = (with_language if tagged else source)(line)
            # Code is parsed in its record's language when scored (a JavaScript method
            # alone parses as C++ too).
            text, language = found.get("code"), found.get("language", "java")
            record["code"] = (
                SourceCode(text, language) if text and isinstance(language, str) else text
            )
        else:
            language = language_only(line).get("language") if tagged else "java"
        record["language"] = language if isinstance(language, str) else "java"
        return record

    return corpus, corpus.iter_methods(read)


def record_files(folder: Path, manifest: Any) -> list[Path]:
    """The record files of a corpus folder: its manifest's ``shards``, or ``methods.jsonl.gz``."""
    shards = manifest.get("shards") if isinstance(manifest, dict) else None
    if shards is None:
        return [folder / METHODS_FILE]
    if not isinstance(shards, list) or not all(
        isinstance(name, str) and SHARD_NAME.fullmatch(name) for name in shards
    ):
        raise WrdscoreError(
            f"{folder / MANIFEST_FILE}: 'shards' must list files named like methods-00000.jsonl.gz"
        )
    return [folder / name for name in shards]


def iter_records(
    methods: str | os.PathLike[str],
    start: int = 0,
    stop: int | None = None,
    read: Callable[[str], dict[str, Any]] = json.loads,
) -> Iterator[dict[str, Any]]:
    """Stream the records of one record file, lines ``start`` (0-based) up to ``stop``,
    each line decoded by ``read`` (all of it, or some fields: :class:`FieldReader`).

    Raises
    ------
    WrdscoreError
        If the file is truncated or not valid gzip, UTF-8 or JSON.
    """
    try:
        lines = _gzip_lines(methods)
        for lineno, line in enumerate(itertools.islice(lines, start, stop), start + 1):
            try:
                yield read(line)
            except json.JSONDecodeError as exc:
                raise WrdscoreError(
                    f"{methods}: line {lineno} is not valid JSON ({exc.msg})"
                ) from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise WrdscoreError(f"{methods}: corrupt corpus file ({exc})") from None


def _gzip_lines(path: str | os.PathLike[str], block: int = 1 << 20) -> Iterator[str]:
    """The lines of a gzip file of UTF-8 text, without their ``\n``.

    Decompressed a block at a time and split at its last line end (so no character is
    cut): a text wrapper's line-by-line reads took a quarter more CPU than the
    decompression itself on OpenJDK's 203 MB of records (1.05 s against 0.85 s). A
    record's line holds no other line end: JSON escapes them in strings.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.gz"
    >>> _ = path.write_bytes(gzip.compress('{}\\n{"a": "é"}\\n\\nlast'.encode()))
    >>> list(_gzip_lines(path, block=3))
    ['{}', '{"a": "é"}', '', 'last']
    """
    with gzip.open(path, "rb") as fh:
        tail = b""
        while data := fh.read(block):
            data = tail + data
            cut = data.rfind(b"\n") + 1
            tail = data[cut:]
            if cut:
                yield from data[: cut - 1].decode("utf-8").split("\n")
        if tail:
            yield tail.decode("utf-8")


class FieldReader:
    """Decode some fields of a record line, leaving the rest (the big ``code`` and
    ``context`` strings) undecoded.

    A record as :func:`encode_record` writes it is one line of compact JSON whose
    values are strings, numbers, null or lists of strings. A field is found by its key
    with the comma before it (or the brace, for the first): a string value holds a
    quote only escaped, ``\\"``, so ``,"key":`` cannot stand inside one, and no value
    is an object whose keys could be mistaken for the record's (and no key is written
    twice). Each value found is decoded by :mod:`json`'s own scanner, which must end
    it at the next ``,`` or the closing ``}``. Where a key is missing (an older
    format's record) or the line is not in that compact form, the whole line is
    decoded by ``json.loads`` instead, so the fields are the same either way, and
    invalid JSON (or JSON that is not an object) is an error; only the fields not
    asked for go unchecked on the fast path.

    Examples
    --------
    >>> read = FieldReader(("name", "line", "words"))
    >>> read('{"name":"getX","code":"int getX() { return x; }","line":3}')
    {'name': 'getX', 'line': 3}
    >>> read('{"name": "getX", "line": 3, "words": ["get", "x"]}')  # not compact
    {'name': 'getX', 'line': 3, 'words': ['get', 'x']}
    """

    # The C scanner json.loads itself runs on a value (raw_decode without its Python
    # wrapper, which cost as much as the scan on these short values).
    # (JSONDecoder sets it in __init__; typeshed leaves it out.)
    _scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

    def __init__(self, fields: Sequence[str]) -> None:
        self.fields = tuple(fields)
        # (field, the key as it follows a value, its length, whether it may come first)
        self._keys = [(f, f',"{f}":', len(f) + 4, i == 0) for i, f in enumerate(self.fields)]

    def __call__(self, line: str) -> dict[str, Any]:
        """The fields of ``line`` that it has (a JSON error if it is not valid JSON)."""
        if not line.startswith("{"):
            return self._decoded(line)
        out: dict[str, Any] = {}
        scan = self._scan
        end = 0
        for field_name, needle, size, lead in self._keys:
            # Asked for in the order they are written, each key is looked for after the
            # value before: one pass over the line's big strings, not one per field.
            if lead and line.startswith(needle[1:], 1):
                at = size  # the first key, after the brace
            else:
                at = line.find(needle, end)
                if at < 0:
                    at = line.find(needle)
                    if at < 0:
                        return self._decoded(line)
                at += size
            try:
                value, end = scan(line, at)
            except StopIteration:
                return self._decoded(line)
            if line[end : end + 1] not in (",", "}"):
                return self._decoded(line)
            out[field_name] = value
        return out

    def _decoded(self, line: str) -> dict[str, Any]:
        record = json.loads(line)
        if not isinstance(record, dict):
            # A record is an object: the same error as a line that is not JSON.
            raise json.JSONDecodeError("Expecting an object", line, 0)
        return {f: record[f] for f in self.fields if f in record}


def encode_record(record: dict[str, Any]) -> str:
    """One record as a line of ``methods.jsonl.gz`` (compact JSON, newline-terminated).

    Examples
    --------
    >>> encode_record({"name": "getX", "tokens": ["get", "x"]})
    '{"name":"getX","tokens":["get","x"]}\\n'
    """
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


class CorpusWriter:
    """Stream method records into ``methods.jsonl.gz`` inside a (temporary) folder.

    Use inside :func:`wrdscore.atomic.atomic_dir` so an interrupted run leaves
    nothing behind; call :meth:`write_manifest` last.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     w.write({"name": "getX", "tokens": ["get", "x"], "type": "A", "path": "A.java",
    ...              "line": 3, "summary": None, "context": "x", "source": 0})
    ...     w.write_manifest({"counts": {"methods": 1}})
    >>> [r["name"] for r in open_corpus(d).iter_methods()]
    ['getX']
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.count = 0
        self._fh: IO[str] = gzip.open(  # noqa: SIM115 - closed in close()
            self.folder / METHODS_FILE, "wt", encoding="utf-8", compresslevel=4
        )

    def write(self, record: dict[str, Any]) -> None:
        """Append one method record (the fields of :data:`RECORD_FIELDS`)."""
        self._fh.write(encode_record(record))
        self.count += 1

    def write_lines(self, lines: str, count: int) -> None:
        """Append ``count`` records already encoded as lines (see :func:`encode_record`)."""
        self._fh.write(lines)
        self.count += count

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write ``manifest.json`` (pretty-printed, stable key order)."""
        text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False)
        (self.folder / MANIFEST_FILE).write_text(text + "\n", encoding="utf-8")

    def close(self) -> None:
        """Finish the gzip stream."""
        self._fh.close()

    def __enter__(self) -> CorpusWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ShardedCorpusWriter(CorpusWriter):
    """A :class:`CorpusWriter` that starts a new shard every ``records_per_shard`` records.

    The shards are ``methods-00000.jsonl.gz``, ``methods-00001.jsonl.gz``...;
    :meth:`write_manifest` lists them under ``shards``, which is how readers find them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with ShardedCorpusWriter(d, records_per_shard=2) as w:
    ...     for name in ["getX", "getY", "setX"]:
    ...         w.write({"name": name, "tokens": [], "source": 0})
    ...     w.write_manifest({"counts": {"methods": 3}})
    >>> open_corpus(d).manifest["shards"]
    ['methods-00000.jsonl.gz', 'methods-00001.jsonl.gz']
    >>> [r["name"] for r in open_corpus(d).iter_methods()]
    ['getX', 'getY', 'setX']
    """

    def __init__(self, folder: Path, records_per_shard: int | None = None) -> None:
        records_per_shard = SHARD_RECORDS if records_per_shard is None else records_per_shard
        if records_per_shard < 1:
            raise ValueError(f"records_per_shard must be at least 1, not {records_per_shard}")
        self.folder = Path(folder)
        self.count = 0
        self.records_per_shard = records_per_shard
        self.shards: list[str] = []
        self._open_shard()

    def _open_shard(self) -> None:
        self.shards.append(f"methods-{len(self.shards):05d}.jsonl.gz")
        self._fh = gzip.open(  # noqa: SIM115 - closed in write() or close()
            self.folder / self.shards[-1], "wt", encoding="utf-8", compresslevel=4
        )

    def write(self, record: dict[str, Any]) -> None:
        """Append one method record, to a new shard if the current one is full."""
        self._next_shard_if_full()
        super().write(record)

    def write_lines(self, lines: str, count: int) -> None:
        """Append encoded records one by one, so that shards keep their size."""
        # Only "\n" ends a record: JSON escapes it inside strings, but not U+2028,
        # which str.splitlines would also split at.
        for line in lines.split("\n")[:-1]:
            self._next_shard_if_full()
            super().write_lines(line + "\n", 1)

    def _next_shard_if_full(self) -> None:
        if self.count and self.count % self.records_per_shard == 0:
            self._fh.close()
            self._open_shard()

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Add the list of shards to ``manifest`` under ``shards`` and write ``manifest.json``."""
        manifest["shards"] = list(self.shards)
        super().write_manifest(manifest)
