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

import json
from pathlib import Path
from typing import Any

from wrdscore.atomic import atomic_write, check_writable
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.base import ScoreResult

Item = str | list[str] | list[list[str]]


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise WrdscoreError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM left by some editors is not part of the first name
    # Only \n ends an item (str.splitlines would also split at form feeds and U+2028,
    # which free text may contain); the final newline does not start an item.
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


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


def read_items(path: str | Path, *, references: bool = False) -> list[Item]:
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
    if path.suffix.lower() == ".jsonl":
        return [
            _json_item(line, f"{path}:{i}", references) for i, line in enumerate(lines, start=1)
        ]
    if not references:
        return list(lines)
    return [_tsv_item(line, str(path)) for line in lines]


def _tsv_item(line: str, where: str) -> Item:
    # Empty cells (a trailing TAB) are not alternatives; a line of only TABs is empty.
    cells = [c for c in line.split("\t") if c.strip()]
    if len(cells) <= 1:
        return cells[0] if cells else ""
    return _alternatives(cells, where)


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
    return " ".join(item)  # type: ignore[arg-type]


PER_PAIR_FORMATS = (".tsv", ".jsonl")


def check_per_pair_path(path: str | Path) -> Path:
    """Refuse a per-pair output of unknown format, or that cannot be written, before scoring."""
    path = Path(path)
    if path.suffix.lower() not in PER_PAIR_FORMATS:
        raise WrdscoreError(f"per-pair output {path} must end in .tsv or .jsonl")
    return check_writable(path)


def write_per_pair(
    path: str | Path, references: list[Item], predictions: list[Item], results: list[ScoreResult]
) -> Path:
    """Write one row per pair: index, reference, prediction, then every metric's values.

    ``.tsv`` has columns ``metric.key`` (``wrd.f1``); ``.jsonl`` one object per line with
    a nested object per metric. Written atomically.

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
    path = check_per_pair_path(path)
    refs = [item_text(r) for r in references]
    preds = [item_text(p) for p in predictions]
    with atomic_write(path) as fh:
        if path.suffix.lower() == ".jsonl":
            for i, (ref, pred) in enumerate(zip(refs, preds, strict=True)):
                row: dict[str, Any] = {"index": i, "reference": ref, "prediction": pred}
                for res in results:
                    row[res.metric] = {k: float(v[i]) for k, v in res.values.items()}
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            cols = [f"{res.metric}.{k}" for res in results for k in res.values]
            fh.write("\t".join(["index", "reference", "prediction", *cols]) + "\n")
            for i, (ref, pred) in enumerate(zip(refs, preds, strict=True)):
                values = [repr(float(v[i])) for res in results for v in res.values.values()]
                # A TAB inside a free-text item would shift the columns.
                cells = [str(i), ref.replace("\t", " "), pred.replace("\t", " "), *values]
                fh.write("\t".join(cells) + "\n")
    return path
