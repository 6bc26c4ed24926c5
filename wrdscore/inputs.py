"""The files of the scoring job: references and predictions in, per-pair scores out.

Formats, chosen by the file's extension:

* **text** (any extension but ``.jsonl``; ``.tsv`` included): one item per line, a raw
  name (``getUserName``), sub-tokens (``get user name``) or free text (a summary). In a
  references file, TAB characters separate *alternative* references of one item
  (``getSize<TAB>size<TAB>getCount``); the pair scores as its best alternative. A
  prediction line is always one item (a TAB is just a separator between words).
* **JSON lines** (``.jsonl``): one JSON value per line: a string (one item), a list
  of strings (an already-split token list, each still passed through the shared
  splitter), or, in a references file, ``{"alternatives": [item, item, ...]}``.

Every format: UTF-8; the final newline does not start an item; an empty line is an
item without tokens (an empty prediction scores 0, an empty reference is an error
unless allowed).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from itertools import starmap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeGuard, cast, overload

from wrdscore.atomic import atomic_write, check_writable
from wrdscore.errors import WrdscoreError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Item = str | list[str] | list[list[str]]

#: Pairs read and scored at a time when streaming (``wrdscore score --chunk-pairs``):
#: enough that per-chunk overheads vanish, few enough that a chunk's items, tokens
#: and vectors stay a few tens of MB.
DEFAULT_CHUNK_PAIRS = 20_000


def utf8_text(path: str | Path) -> str:
    """A text file's contents as written (line breaks untouched), without a leading BOM;
    a one-line error naming the byte if it is not UTF-8."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WrdscoreError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return text.removeprefix("\ufeff")  # a BOM left by some editors is not text


def _lines(path: Path) -> list[str]:
    # Line breaks are \n, \r\n or \r, as Python's text mode reads them, and nothing
    # else (str.splitlines would also split at form feeds and U+2028, which free text
    # may contain); the final newline does not start an item.
    lines = utf8_text(path).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def id_predictions(path: str | Path) -> dict[str, Any] | None:
    """``{id: prediction}`` of a predictions file aligned by id, in the file's order.

    Such a file is a ``.jsonl`` of objects ``{"id": ID, "prediction": ITEM}`` (a model's
    output on some methods of a corpus); any other file (None) is aligned by order.

    Raises
    ------
    WrdscoreError
        A line that is not such an object (with its 1-based number), or an id given twice.
    """
    path = Path(path)
    if path.suffix.lower() != ".jsonl":
        return None
    lines = _lines(path)
    first = next((line for line in lines if line.strip()), "")
    if not first.lstrip().startswith("{"):
        return None
    out: dict[str, Any] = {}
    for i, line in enumerate(lines, start=1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WrdscoreError(f"{path}:{i}: invalid JSON ({exc.msg})") from None
        if not (
            isinstance(value, dict)
            and isinstance(value.get("id"), str)
            and isinstance(value.get("prediction"), str | list)
        ):
            raise WrdscoreError(
                f'{path}:{i}: expected {{"id": ID, "prediction": ITEM}} (predictions aligned by id)'
            )
        if value["id"] in out:
            raise WrdscoreError(f"{path}:{i}: id {value['id']!r} given twice")
        out[value["id"]] = value["prediction"]
    return out


def _alternatives(cells: list[Any], where: str) -> list[list[str]]:
    out: list[list[str]] = []
    for cell in cells:
        if isinstance(cell, str):
            out.append([cell])
        elif isinstance(cell, list) and all(isinstance(t, str) for t in cell):
            out.append(cell)
        else:
            raise WrdscoreError(f"{where}: each alternative must be a string or a list of strings")
    if not out:
        raise WrdscoreError(f"{where}: 'alternatives' is empty")
    return out


def _json_item(line: str, where: str, references: bool) -> Item:
    if not line.strip():
        return ""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WrdscoreError(f"{where}: invalid JSON ({exc.msg})") from None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return value
    if references and isinstance(value, dict) and set(value) == {"alternatives"}:
        alts = value["alternatives"]
        if not isinstance(alts, list):
            raise WrdscoreError(f"{where}: 'alternatives' must be a list")
        return _alternatives(alts, where)
    expected = (
        'a string, a list of strings or {"alternatives": [...]}'
        if references
        else ("a string or a list of strings")
    )
    raise WrdscoreError(f"{where}: expected {expected}")


@overload
def read_items(
    path: str | Path, *, references: Literal[False] = False
) -> list[str | list[str]]: ...
@overload
def read_items(path: str | Path, *, references: bool) -> list[Item]: ...
def read_items(path: str | Path, *, references: bool = False) -> list[Item] | list[str | list[str]]:
    """Read the items of a references or predictions file (formats in the module doc).

    Parameters
    ----------
    path : path-like
        The file.
    references : bool
        Read alternatives (TAB-separated, or ``{"alternatives": [...]}`` in JSON lines).

    Returns
    -------
    list
        One entry per item, ready for :meth:`wrdscore.metrics.base.Metric.score`: a string, a
        token list, or a list of alternatives (each a one-string or token list).

    Raises
    ------
    WrdscoreError
        A file that is not UTF-8, a bad JSON line (with its line number), or an
        empty file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = p.write_text("getSize\\tsize\\nget user name\\n")
    >>> read_items(p, references=True)
    [[['getSize'], ['size']], 'get user name']
    """
    path = Path(path)
    lines = _lines(path)
    if not lines:
        raise WrdscoreError(f"{path}: the file is empty")
    return parse_lines(lines, path, references=references)


def parse_lines(
    lines: Sequence[str], path: str | Path, *, references: bool = False, first_line: int = 1
) -> list[Item]:
    """The items of some lines of a file (a chunk of it when streaming), as :func:`read_items`.

    ``first_line`` is the line number of ``lines[0]``, for error messages.

    Examples
    --------
    >>> parse_lines(['"get"', '["a", "b"]'], "p.jsonl", first_line=7)
    ['get', ['a', 'b']]
    >>> parse_lines(["{}"], "p.jsonl", first_line=7)
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: p.jsonl:7: expected a string or a list of strings
    """
    path = Path(path)
    if path.suffix.lower() == ".jsonl":
        return [
            _json_item(line, f"{path}:{i}", references)
            for i, line in enumerate(lines, start=first_line)
        ]
    if not references:
        return list(lines)
    where = str(path)
    # Most lines hold one reference: no TAB, so nothing to split.
    return [
        line if "\t" not in line and not line.isspace() else _tsv_item(line, where)
        for line in lines
    ]


def check_code_path(path: str | Path) -> Path:
    """Refuse a code file that is not JSON lines (``--code CODE.jsonl``)."""
    path = Path(path)
    if path.suffix.lower() != ".jsonl":
        raise WrdscoreError(
            f"--code {path}: expected a .jsonl file, one JSON string (the method's source) "
            "or object with a 'code' field per line"
        )
    return path


def parse_code_lines(
    lines: Sequence[str], path: str | Path, *, first_line: int = 1
) -> list[str | dict[str, str]]:
    """The code items of some lines of a ``--code`` file: each a JSON string holding a
    method's source, or an object with a string ``code`` (and optionally ``name``, the
    declared name to mask, and ``language``, the code's language: its ``code`` is then a
    :class:`~wrdscore.corpora.SourceCode`, read in that language).

    Examples
    --------
    >>> parse_code_lines(['"int f() { return 1; }"', '{"code": "void g() {}", "name": "g"}'],
    ...                  "c.jsonl")
    ['int f() { return 1; }', {'code': 'void g() {}', 'name': 'g'}]
    >>> parse_code_lines(['{"code": "def f(): pass", "language": "python"}'], "c.jsonl")
    [{'code': 'def f(): pass'}]
    >>> parse_code_lines(["[1]"], "c.jsonl", first_line=4)
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: c.jsonl:4: expected a string (the source) or {"code": ...}
    """
    # Most chunks are all good: one parse of them as a JSON array, at C speed, and one
    # look at the values' types; a line-by-line parse names the first bad line.
    try:
        values = json.loads("[" + ",".join(lines) + "]")
    except json.JSONDecodeError:
        values = None
    if (
        values is not None
        and len(values) == len(lines)
        and all(type(v) is str or (type(v) is dict and set(v) <= {"code", "name"}) for v in values)
        and all(
            type(v) is str or (type(v.get("code")) is str and type(v.get("name", "")) is str)
            for v in values
        )
    ):
        return values
    out: list[str | dict[str, str]] = []
    for i, line in enumerate(lines, start=first_line):
        where = f"{path}:{i}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            what = "an empty line" if not line.strip() else f"invalid JSON ({exc.msg})"
            raise WrdscoreError(f"{where}: {what}; expected the method's code") from None
        if isinstance(value, dict) and isinstance(value.get("code"), str):
            name = value.get("name")
            if name is not None and not isinstance(name, str):
                raise WrdscoreError(f"{where}: 'name' must be a string")
            code = value["code"]
            if "language" in value:
                from wrdscore.corpora import SourceCode

                try:
                    code = SourceCode(code, value["language"])
                except WrdscoreError as exc:
                    raise WrdscoreError(f"{where}: {exc}") from None
            value = {"code": code, **({"name": name} if name is not None else {})}
        elif not isinstance(value, str):
            raise WrdscoreError(f'{where}: expected a string (the source) or {{"code": ...}}')
        out.append(value)
    return out


# Bytes read at a time when streaming: large enough that reading costs little per line.
_BLOCK = 1 << 20


def _blocks(path: Path) -> Iterator[tuple[int, str]]:
    """``(byte offset, text)`` of a UTF-8 file in blocks that end at a newline.

    A newline byte never occurs inside a multi-byte UTF-8 character, so cutting
    there never splits one; a decoding error names its absolute byte offset, as
    :func:`_lines` does. A leading BOM is dropped.
    """
    with path.open("rb") as fh:
        offset, rest = 0, b""
        while True:
            data = fh.read(_BLOCK)
            block = rest + data
            cut = len(block) if not data else block.rfind(b"\n") + 1
            if cut == 0 and data:
                rest = block  # a line longer than a block: read on
                continue
            piece, rest = block[:cut], block[cut:]
            try:
                text = piece.decode("utf-8")
            except UnicodeDecodeError as exc:
                where = offset + exc.start
                raise WrdscoreError(f"{path}: not UTF-8 text (byte {where})") from None
            if offset == 0 and text.startswith("\ufeff"):
                text = text[1:]
            if text:
                yield offset, text
            offset += cut
            if not data:
                return


def count_items(path: str | Path) -> int:
    """How many items (lines, as :func:`read_items` counts them) a file holds.

    Reads the file once without keeping it, checking that it is UTF-8.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = p.write_text("a\\n\\nb")
    >>> count_items(p)
    3
    """
    return _scan(Path(path), alternatives=False)[0]


def count_references(path: str | Path) -> tuple[int, bool]:
    """How many items a references file holds, and whether one is a list of alternatives.

    The same single read as :func:`count_items`: streaming needs both before the first
    chunk (the per-pair header has a ``best_ref`` column only with alternatives).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = p.write_text("a\\t\\nb\\tc\\n")
    >>> count_references(p)
    (2, True)
    """
    return _scan(Path(path), alternatives=True)


def count_pairs(references: str | Path, predictions: str | Path) -> tuple[int, bool]:
    """Pairs of a references and a predictions file, and whether a reference has alternatives.

    One read of each file, keeping nothing: both exist, are UTF-8, are not empty and
    hold as many items as each other. Cheap next to loading a model, so a command that
    loads one checks its files with this first.

    Raises
    ------
    WrdscoreError
        An empty file, or a different number of items.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "r.txt").write_text("a\\tb\\nc\\n"); _ = (d / "p.txt").write_text("a\\nc\\n")
    >>> count_pairs(d / "r.txt", d / "p.txt")
    (2, True)
    """
    n_refs, alternatives = count_references(references)
    if n_refs == 0:
        raise WrdscoreError(f"{references}: the file is empty")
    n_preds = count_items(predictions)
    if n_preds == 0:
        raise WrdscoreError(f"{predictions}: the file is empty")
    if n_refs != n_preds:
        raise WrdscoreError(
            f"{n_refs} references but {n_preds} predictions; "
            "every prediction needs exactly one reference item"
        )
    return n_refs, alternatives


# A JSON-lines item that is an object: {"alternatives": [...]} (or an error, found later).
_JSON_OBJECT = re.compile(r"^[ \t\r]*\{", re.MULTILINE)
# A text line of two non-blank TAB-separated cells, as _tsv_item splits it: blanks, a
# non-blank, more of its cell, a TAB, blanks (TABs too), a non-blank. Possessive and
# anchored at line starts, so a long line is scanned once. Only blocks with a TAB are
# searched; a million lines that all end in one take 0.47 s (a per-line Python loop, 1.2 s).
_TWO_CELLS = re.compile(r"^[^\S\n]*+\S[^\t\n]*+\t[^\S\n]*+\S", re.MULTILINE)


def _has_alternatives(text: str, path: Path) -> bool:
    """Whether some whole line of ``text`` reads as a list of alternatives (as
    :func:`parse_lines` reads a references file)."""
    if path.suffix.lower() == ".jsonl":
        return _JSON_OBJECT.search(text) is not None
    return "\t" in text and _TWO_CELLS.search(text) is not None


def _scan(path: Path, alternatives: bool) -> tuple[int, bool]:
    """Items of a file and, if asked (``alternatives``), whether one has alternatives."""
    count, last, found = 0, "\n", False
    for _, text in _blocks(path):
        count += text.count("\n")
        last = text[-1]
        if alternatives and not found:
            # Blocks end at a newline (or the file's end), so lines are whole here.
            found = _has_alternatives(text, path)
    return count + (last != "\n"), found


def iter_line_chunks(path: str | Path, size: int) -> Iterator[list[str]]:
    """The lines of a file (as :func:`_lines` splits them), ``size`` lines at a time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = p.write_text("a\\r\\nb\\nc\\n")
    >>> list(iter_line_chunks(p, 2))
    [['a', 'b'], ['c']]
    """
    buffer: list[str] = []
    partial = ""
    for _, text in _blocks(Path(path)):
        lines = (partial + text).split("\n")
        partial = lines.pop()  # after the block's last newline: "" or an unended line
        if "\r" in text:
            lines = [line.removesuffix("\r") for line in lines]
        buffer.extend(lines)
        while len(buffer) >= size:
            yield buffer[:size]
            del buffer[:size]
    chunk = buffer
    if partial:
        chunk.append(partial.removesuffix("\r"))
    if chunk:
        yield chunk


def _tsv_item(line: str, where: str) -> Item:
    # Empty cells (a trailing TAB) are not alternatives; a line of only TABs is empty.
    cells = [c for c in line.split("\t") if c.strip()]
    if len(cells) <= 1:
        return cells[0] if cells else ""
    return _alternatives(cells, where)


def _one_line(texts: Sequence[str]) -> Sequence[str]:
    """``texts`` with every TAB and line break made a space (a TSV cell each)."""
    if not _CELL_BREAKS.search("".join(texts)):
        return texts
    return [_CELL_BREAKS.sub(" ", t) for t in texts]


def item_text(item: Item) -> str:
    """A one-line display form of an item (per-pair outputs): alternatives joined by `` | ``.

    Examples
    --------
    >>> item_text([["getSize"], ["size"]]), item_text(["get", "size"])
    ('getSize | size', 'get size')
    """
    if isinstance(item, str):
        return item
    if item and all(isinstance(a, list) for a in item):
        return " | ".join(" ".join(a) for a in item)
    # Not a list of alternatives (lists), so a list of tokens.
    return " ".join(cast(list[str], item))


class PairValues(Protocol):
    """What a per-pair row is written from: a :class:`~wrdscore.metrics.ScoreResult`.

    Named by its shape, not imported: the metrics read their inputs from this module,
    so this module must not depend on them.
    """

    @property
    def metric(self) -> str:
        """The metric's registry name (the columns' prefix)."""
        ...

    @property
    def values(self) -> Mapping[str, NDArray[np.float64]]:
        """One array of per-pair values per key."""
        ...

    @property
    def best_reference(self) -> NDArray[np.int64] | None:
        """Per pair, the 0-based number of the winning reference alternative, or None
        when no reference of the batch is a list of alternatives."""
        ...


PER_PAIR_FORMATS = (".tsv", ".jsonl")
#: TAB and every character ``str.splitlines`` breaks a line at: none may be in a TSV cell.
_CELL_BREAKS = re.compile("[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class _PerPairDialect(csv.excel_tab):
    """The per-pair ``.tsv``: the csv module's TAB-separated dialect, rows ending in LF."""

    lineterminator = "\n"


#: The per-pair "path" that means standard output (TSV rows, written as they come).
STDOUT = Path("-")


def check_per_pair_path(path: str | Path, force: bool = False) -> Path:
    """Refuse a per-pair output of unknown format, that exists (unless ``force``), or that
    cannot be written, before scoring. ``-`` (:data:`STDOUT`) is standard output."""
    path = Path(path)
    if path == STDOUT:
        return path
    if path.suffix.lower() not in PER_PAIR_FORMATS:
        raise WrdscoreError(f"per-pair output {path} must end in .tsv or .jsonl (or be -)")
    check_writable(path)  # a folder in the way is named as such, not as "already exists"
    if path.exists() and not force:
        raise WrdscoreError(f"output {path} already exists (use --force to replace it)")
    return path


def write_per_pair(
    path: str | Path,
    references: list[Item],
    predictions: list[Item],
    results: Sequence[PairValues],
    force: bool = False,
    *,
    ids: Sequence[str] | None = None,
    clean: bool = False,
) -> Path:
    """Write one row per pair: index (from 1), reference, prediction, then every metric's values.

    ``.tsv`` has columns ``metric.key`` (``wrd.f1``); ``.jsonl`` one object per line with
    a nested object per metric. When some reference is a list of alternatives, every
    metric also says which one its values come from (its own best): a ``metric.best_ref``
    column, or a ``best_ref`` field, numbering the alternatives from 1. With ``ids``
    (one per pair: a corpus's method ids), an ``id`` column comes first; with ``clean``
    (the metrics scored :func:`~wrdscore.corpora.clean_prediction`'s output), a
    ``scored`` column after ``prediction`` holds what was scored. Written atomically; an
    existing file is replaced only with ``force``. ``-`` writes TSV to standard output.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.metrics.base import get_metric
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> res = get_metric("wrd", embeddings=emb).score(["size"], ["count"])
    >>> out = write_per_pair(pathlib.Path(tempfile.mkdtemp()) / "p.tsv", ["size"], ["count"], [res])
    >>> out.read_text().splitlines()[0].split()
    ['index', 'reference', 'prediction', 'wrd.precision', 'wrd.recall', 'wrd.f1']
    """
    path = check_per_pair_path(path, force)
    alternatives = any(r.best_reference is not None for r in results)
    with contextlib.nullcontext(sys.stdout) if path == STDOUT else atomic_write(path) as fh:
        columns = [(r.metric, tuple(r.values)) for r in results]
        fh.write(per_pair_header(path, columns, alternatives, ids=ids is not None, clean=clean))
        fh.write(
            per_pair_text(
                path, 0, references, predictions, results, alternatives, ids=ids, clean=clean
            )
        )
    return path


#: The per-pair column (``metric.best_ref``) or field of the winning alternative.
BEST_REF = "best_ref"


def per_pair_header(
    path: str | Path,
    columns: Sequence[tuple[str, Sequence[str]]],
    alternatives: bool = False,
    *,
    ids: bool = False,
    clean: bool = False,
) -> str:
    """The first line of a per-pair ``.tsv`` or of ``-`` (``columns``: each metric's name
    and keys; ``alternatives``: add each metric's ``best_ref`` column; ``ids``: an ``id``
    column first; ``clean``: a ``scored`` column, see :func:`write_per_pair`).

    ``.jsonl`` files have no header (the empty string).
    """
    if Path(path).suffix.lower() == ".jsonl":
        return ""
    extra = [BEST_REF] if alternatives else []
    cols = [f"{metric}.{k}" for metric, keys in columns for k in [*keys, *extra]]
    return "\t".join([*_text_columns(ids, clean), *cols]) + "\n"


def _text_columns(ids: bool, clean: bool) -> list[str]:
    """The names of a per-pair row's leading (non-metric) columns, in order."""
    return [
        *(["id"] if ids else []),
        "index",
        "reference",
        "prediction",
        *(["scored"] if clean else []),
    ]


def _all_str(items: Sequence[Item]) -> TypeGuard[Sequence[str]]:
    return set(map(type, items)) <= {str}


def per_pair_text(
    path: str | Path,
    start: int,
    references: Sequence[Item],
    predictions: Sequence[Item],
    results: Sequence[PairValues],
    alternatives: bool = False,
    *,
    ids: Sequence[str] | None = None,
    clean: bool = False,
) -> str:
    """The per-pair rows of some pairs, the first the ``start``-th (from 0) of the input.

    Its ``index`` is ``start + 1``: like error messages (``refs.txt:3: reference 3``),
    lines, records and alternatives, a pair's number counts from 1.

    With ``alternatives`` (some reference of the whole input is a list of them), each
    metric's values end with the 1-based number of the alternative they come from; a
    batch without any list of alternatives has only the first. ``ids`` (these pairs'
    own) and ``clean`` add the ``id`` and ``scored`` columns (:func:`write_per_pair`).
    """
    # Text files give strings, which are their own display form.
    refs = references if _all_str(references) else [item_text(r) for r in references]
    preds = predictions if _all_str(predictions) else [item_text(p) for p in predictions]
    rows = range(start + 1, start + 1 + len(refs))
    texts: list[Sequence[Any]] = [rows, refs, preds]
    if clean:
        from wrdscore.corpora import clean_prediction

        # As the metrics clean them: a string item only (a token list is taken as given).
        scored = [clean_prediction(p) if isinstance(p, str) else p for p in predictions]
        texts.append(scored if _all_str(scored) else [item_text(p) for p in scored])
    if ids is not None:
        if len(ids) != len(refs):
            raise WrdscoreError(f"{len(ids)} ids for {len(refs)} pairs")
        texts.insert(0, ids)
    names = _text_columns(ids is not None, clean)
    if Path(path).suffix.lower() == ".jsonl":
        columns = [
            (res.metric, list(res.values), [v.tolist() for v in res.values.values()])
            for res in results
        ]
        if alternatives:
            for res, (_, keys, values) in zip(results, columns, strict=True):
                keys.append(BEST_REF)
                values.append(_best_numbers(res, len(refs)))
        out = []
        for j, cells in enumerate(zip(*texts, strict=True)):
            row: dict[str, Any] = dict(zip(names, cells, strict=True))
            for metric, keys, values in columns:
                row[metric] = {k: v[j] for k, v in zip(keys, values, strict=True)}
            out.append(json.dumps(row, ensure_ascii=False) + "\n")
        return "".join(out)
    # Each number written as the csv module writes it: a float as its repr, the shortest
    # string that reads back as the same number, an int (the alternative's number) as its
    # digits. None of these strings needs quoting.
    values = [
        column
        for res in results
        for column in [
            *map(number_cells, res.values.values()),
            *([list(map(str, _best_numbers(res, len(refs))))] if alternatives else []),
        ]
    ]
    # A TAB inside a free-text item (or an id) would shift the columns, and a line
    # break (possible in a JSON-lines item) would split the row; each becomes a space
    # (one look at all the text first: items rarely have one), so a row is a line.
    texts = [t if t is rows else _one_line(t) for t in texts]
    # A cell with a double quote is quoted as the csv module quotes it ("say ""hi"""):
    # written bare, a reader that follows the CSV rules (csv, pandas, spreadsheets)
    # would take a leading quote for the start of a quoted cell and merge rows.
    buffer = io.StringIO()
    csv.writer(buffer, _PerPairDialect).writerows(zip(*texts, strict=True))
    if not values:
        return buffer.getvalue()
    # The numbers are joined to each row's text cells here, not by the csv module: its
    # scan of each cell for characters to quote took as long as the floats' repr on
    # OpenJDK's per-pair rows, and a number has none. The text cells hold no line break
    # (above), so the csv module's output has one line per row.
    lines = buffer.getvalue().split("\n")[:-1]
    numbers = map("\t".join, zip(*values, strict=True))
    return "".join(starmap("{}\t{}\n".format, zip(lines, numbers, strict=True)))


def number_cells(values: NDArray[Any]) -> list[str]:
    """Each value as the csv module writes it: a float as its repr, another number as
    its ``str``.

    A float's shortest repr is costly, and per-pair values repeat (four in ten of
    OpenJDK's code-aware values are another pair's), so each distinct float64 (by its
    bits: ``-0.0`` is not ``0.0``) is formatted once.

    Examples
    --------
    >>> import numpy as np
    >>> number_cells(np.array([0.1, -0.0, 0.1, 0.0, np.inf]))
    ['0.1', '-0.0', '0.1', '0.0', 'inf']
    >>> number_cells(np.array([2, 1]))
    ['2', '1']
    """
    # Here, not at the top: reading inputs (this module) does not need numpy.
    import numpy as np

    if values.dtype != np.float64:
        return list(map(str, values.tolist()))
    bits = np.ascontiguousarray(values).view(np.int64)
    distinct, inverse = np.unique(bits, return_inverse=True)
    text = np.array(list(map(repr, distinct.view(np.float64).tolist())), dtype=object)
    cells: list[str] = text[inverse.reshape(-1)].tolist()
    return cells


def read_per_pair(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a per-pair file (:func:`write_per_pair`), as its ``.jsonl`` form gives
    them: one dict per pair, the text columns (``id``, ``index``, ``reference``,
    ``prediction``, ``scored``, those present) then a dict of values per metric.

    A ``.tsv`` row's ``metric.key`` columns are nested so; its numbers read back as the
    same floats (written with ``repr``), ``index`` and ``best_ref`` as integers.
    :func:`iter_per_pair` gives them one at a time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.metrics.base import get_metric
    >>> res = get_metric("rouge1").score(["getSize"], ["size"])
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [read_per_pair(write_per_pair(d / f"p{x}", ["getSize"], ["size"], [res]))
    ...         for x in (".tsv", ".jsonl")]
    >>> rows[0] == rows[1], rows[0][0]["rouge1"]["f1"]
    (True, 0.6666666666666666)
    """
    return list(iter_per_pair(path))


def iter_per_pair(path: str | Path) -> Iterator[dict[str, Any]]:
    """The rows of a per-pair file one at a time, as :func:`read_per_pair` gives them."""
    path = Path(path)
    # The writer puts no line break inside a row (TSV cells are made one line, JSON
    # escapes them), so reading by lines is reading by rows.
    with open(path, encoding="utf-8") as fh:
        if path.suffix.lower() == ".jsonl":
            yield from map(json.loads, fh)
            return
        cells = csv.reader(fh, _PerPairDialect)
        header = next(cells)
        for line in cells:
            row: dict[str, Any] = {}
            for name, cell in zip(header, line, strict=True):
                metric, dot, key = name.partition(".")
                if not dot:
                    row[name] = int(cell) if name == "index" else cell
                else:
                    value = int(cell) if key == BEST_REF else float(cell)
                    row.setdefault(metric, {})[key] = value
            yield row


def _best_numbers(result: PairValues, n: int) -> list[int]:
    """The 1-based numbers of a result's winning alternatives (all 1 without any)."""
    best = result.best_reference
    return [1] * n if best is None else (best + 1).tolist()
