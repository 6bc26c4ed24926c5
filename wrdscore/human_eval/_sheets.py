"""The study folder: ``study.json``, ``pairs.csv``, one rating sheet and one form per rater.

Layout written by :func:`write_study`::

    study.json          design: seed, sets, raters, scale, strata, metrics, shortfalls
    pairs.csv           id, set, stratum, reference, prediction, <metric scores...>
    sheets/setS-raterR.csv   id, reference, prediction, score (blank); instructions as # lines
    forms/setS-raterR.html   the same sheet as an offline HTML form

Raters get only the sheets or forms: no scores, no strata, and ids that are numbered
after shuffling, so neither the id nor the row order hints at a stratum.

A study with code (``write_study(..., codes=...)``, format ``wrdscore-study/3``) shows
each method's source to its raters: ``pairs.csv`` gains the columns ``code`` and
``code_name`` (the name to mask when scoring against the code, where the code file gave
one) after ``prediction``, the sheets are ``id, reference, prediction, code, score`` and
the forms show the code under each pair, so that raters judge the prediction against
the method.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.atomic import atomic_dir
from wrdscore.errors import WrdscoreError, counted
from wrdscore.human_eval._form import render_form
from wrdscore.human_eval._sample import Design, Stratum
from wrdscore.human_eval._stats import check_seed
from wrdscore.inputs import utf8_text

STUDY_FORMAT = "wrdscore-study/2"
#: The format of a study with code: format 2 plus code columns (module docstring).
CODE_STUDY_FORMAT = "wrdscore-study/3"
#: Study formats :func:`read_study` reads; format 1 wrote names into CSV cells unescaped.
_READABLE_FORMATS = ("wrdscore-study/1", STUDY_FORMAT, CODE_STUDY_FORMAT)
#: A CSV cell starting with one of these is a formula to a spreadsheet (OWASP's CSV
#: injection list); the apostrophe is written before them too, so that escaping can be
#: undone without guessing.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
PAIR_COLUMNS = ("id", "set", "stratum", "reference", "prediction")
SHEET_COLUMNS = ("id", "reference", "prediction", "score")
#: The columns ``pairs.csv`` of a study with code adds after :data:`PAIR_COLUMNS`.
CODE_PAIR_COLUMNS = ("code", "code_name")
#: One method's code as a study takes it: its source, or ``{"code": source, "name":
#: name to mask}`` (as a ``--code`` file's line gives it).
CodeItem = str | Mapping[str, str]
#: The columns of a sheet of a study with code: the method's source before the score.
CODE_SHEET_COLUMNS = ("id", "reference", "prediction", "code", "score")


@dataclass(frozen=True)
class StudyPair:
    """One pair of a study as ``pairs.csv`` lists it; ``code`` is None in a study without,
    ``code_name`` the name to mask in it where the code file gave one."""

    id: str
    set: str
    stratum: str
    reference: str
    prediction: str
    code: str | None = None
    code_name: str | None = None

    @property
    def code_item(self) -> CodeItem | None:
        """The code as scoring takes it (:meth:`wrdscore.metrics.Metric.score`)."""
        if self.code is None or self.code_name is None:
            return self.code
        return {"code": self.code, "name": self.code_name}


@dataclass(frozen=True)
class Study:
    """A study folder read back: its pairs (in id order) and its design."""

    path: Path
    pairs: list[StudyPair]
    scale: int
    info: dict[str, Any]

    def cell_text(self, cell: str) -> str:
        """The name a CSV cell of this study's sheets holds (:func:`sheet_text`)."""
        return sheet_text(cell) if _escaped(self.info) else cell

    @property
    def has_code(self) -> bool:
        """Whether raters saw each method's code (a format-3 study)."""
        return self.info.get("format") == CODE_STUDY_FORMAT

    @property
    def sheet_columns(self) -> tuple[str, ...]:
        """The header of this study's rating sheets."""
        return CODE_SHEET_COLUMNS if self.has_code else SHEET_COLUMNS


def _escaped(info: Mapping[str, Any]) -> bool:
    """Whether the study's CSVs escape names (format 1 wrote them as they are)."""
    return info.get("format") in (STUDY_FORMAT, CODE_STUDY_FORMAT)


def sheet_cell(text: str) -> str:
    """A name as written into a CSV cell: an apostrophe before a leading formula character.

    Names come from untrusted code and model outputs; a spreadsheet opening a rating
    sheet or ``pairs.csv`` would run ``=HYPERLINK(...)`` as a formula. A leading
    apostrophe makes the cell text, and :func:`sheet_text` removes it again on import.
    The apostrophe itself is escaped the same way, so the mapping is one to one.

    Examples
    --------
    >>> sheet_cell("=1+1"), sheet_cell("get name"), sheet_cell("'quoted")
    ("'=1+1", 'get name', "''quoted")
    >>> all(sheet_text(sheet_cell(s)) == s for s in ["=1+1", "-x", "'", "a=b", ""])
    True
    """
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def sheet_text(cell: str) -> str:
    """Undo :func:`sheet_cell`: the name a CSV cell holds."""
    return cell[1:] if cell.startswith("'") else cell


def csv_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """CSV rows with their 1-based line numbers; a BOM (spreadsheet exports) is dropped.

    The file is decoded whole (rating files are small) so that a file that is not UTF-8
    is refused as :mod:`wrdscore.inputs` refuses one, naming the byte in the file.
    """
    # newline="" as when opening a CSV file: the csv module sees \r\n and quoted line
    # breaks as they are.
    reader = csv.reader(io.StringIO(utf8_text(path), newline=""))
    for row in reader:
        yield reader.line_num, row


def sheet_name(set_number: int, rater: int) -> str:
    """File stem of a rater's sheet: ``set2-rater3``."""
    return f"set{set_number}-rater{rater}"


#: A file stem that names a sheet (``set2-rater3``), as :func:`sheet_name` writes it.
SHEET_STEM = re.compile(r"set(\d+)-rater(\d+)")
# The first comment line of a sheet (:func:`sheet_comments`); a CSV reader splits it at
# its comma, so it is matched on the row's cells joined again.
_SHEET_TITLE = re.compile(r"#\s*wrdscore rating sheet (set\d+-rater\d+):")


def sheet_title(row: Sequence[str]) -> str | None:
    """The sheet a comment row names (``set1-rater2``), or ``None`` if it names none.

    Examples
    --------
    >>> sheet_title(["# wrdscore rating sheet set1-rater2: set 1", " rater 2 of 3"])
    'set1-rater2'
    >>> sheet_title(["# Rate every row"]) is None
    True
    """
    match = _SHEET_TITLE.match(",".join(row).lstrip())
    return match[1] if match else None


#: How the instructions name each language (corpora's names are identifiers).
LANGUAGE_NAMES = {
    "java": "Java",
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "go": "Go",
    "php": "PHP",
    "ruby": "Ruby",
    "c_sharp": "C#",
    "c": "C",
    "cpp": "C++",
}
#: Languages whose code units are called methods; the others' are functions.
_METHOD_LANGUAGES = ("java", "c_sharp", "ruby")
#: How a reference with alternatives (TAB-separated in a references file, as ``wrdscore
#: score`` reads one) is shown to raters: a TAB is invisible in a sheet and a form.
ALTERNATIVES_SHOWN = " | "


def shown_reference(reference: str) -> str:
    """A reference as raters see it: its TAB-separated alternatives joined by `` | ``.

    Examples
    --------
    >>> shown_reference("getSize\\tsize\\tgetCount"), shown_reference("get name")
    ('getSize | size | getCount', 'get name')
    """
    return ALTERNATIVES_SHOWN.join(a.strip() for a in reference.split("\t") if a.strip())


def sheet_comments(
    set_number: int,
    rater: int,
    raters: int,
    scale: int,
    code: bool = False,
    *,
    target: str = "name",
    language: str | None = None,
    alternatives: bool = False,
) -> list[str]:
    """Instructions at the top of a sheet (and its form), without the ``# `` prefix.

    With ``code`` the raters judge the prediction against the method's source, as the
    published studies of predicted names did, not against the reference alone.
    ``target`` says what is rated (names or summaries), ``language`` the code's
    language where the whole study is in one, and ``alternatives`` that some reference
    lists several true names (:func:`shown_reference`).

    Examples
    --------
    >>> sheet_comments(1, 1, 2, 10, target="summary", language="python")[1]
    'Each row pairs the true summary of a Python function (reference) with a predicted summary.'
    """
    title = (
        f"wrdscore rating sheet {sheet_name(set_number, rater)}: "
        f"set {set_number}, rater {rater} of {raters}"
    )
    last = "Rate every row in the score column on your own; leave the other columns unchanged."
    unit = (
        "method or function"
        if language is None
        else "method"
        if language in _METHOD_LANGUAGES
        else "function"
    )
    named = f"a {LANGUAGE_NAMES[language]} {unit}" if language in LANGUAGE_NAMES else f"a {unit}"
    pairs = f"Each row pairs the true {target} of {named} (reference) with a predicted {target}"
    several = (
        [
            f"A reference with several true {'names' if target == 'name' else 'summaries'} "
            "lists them separated by "
            f"'{ALTERNATIVES_SHOWN.strip()}': rate against the best of them."
        ]
        if alternatives
        else []
    )
    if code:
        does = "names" if target == "name" else "summarises"
        return [
            title,
            f"{pairs}, and shows the {unit}'s source code.",
            f"Read the code, then rate how well the prediction {does} what the {unit} does, "
            f"from 0 (unrelated) to {scale} (as good a {target} as the reference or better); "
            "fractions are allowed.",
            *several,
            last,
        ]
    return [
        title,
        f"{pairs}.",
        "Rate how well the prediction conveys the meaning of the reference, "
        f"from 0 (unrelated) to {scale} (same meaning); fractions are allowed.",
        *several,
        last,
    ]


def write_study(
    output: str | os.PathLike[str],
    references: Sequence[str],
    predictions: Sequence[str],
    design: Design,
    scores: Mapping[str, NDArray[np.float64]],
    strata: Sequence[Stratum],
    *,
    raters: int = 3,
    scale: int = 10,
    seed: int = 0,
    info: Mapping[str, object] | None = None,
    force: bool = False,
    codes: Sequence[CodeItem] | None = None,
    target: str = "name",
) -> Path:
    """Write a study folder for ``design`` (see the module docstring for its layout).

    Parameters
    ----------
    output : path-like
        The study folder, written atomically.
    references, predictions : sequence of str
        All pairs the design indexes into.
    design : Design
        The sets, from :func:`~wrdscore.human_eval.stratified_design`.
    scores : mapping of metric name to array
        Per-pair scores recorded in ``pairs.csv`` (never shown to raters).
    strata : sequence of Stratum
        The strata the design used (recorded in ``study.json``).
    raters : int
        Raters per set: one sheet and one form each.
    scale : int
        Scores run from 0 to ``scale``.
    seed : int
        Seed of the id numbering and the per-sheet shuffles.
    info : mapping, optional
        Extra provenance for ``study.json`` (input files, metric signatures...).
    force : bool
        Replace an existing folder.
    codes : sequence of str or mapping, optional
        Each pair's method source (indexed like ``references``), or ``{"code": source,
        "name": name to mask}``: the source is shown to the raters in the sheets and
        forms, and both are kept in ``pairs.csv`` (format ``wrdscore-study/3``).
    target : {"name", "summary"}
        What the pairs are: the instructions say so, and ``study.json`` records it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.human_eval import stratified_design, parse_stratum
    >>> strata = [parse_stratum("2")]
    >>> d = stratified_design({}, np.arange(3), 1, strata)
    >>> out = write_study(pathlib.Path(tempfile.mkdtemp()) / "s", ["a", "b", "c"],
    ...                   ["a", "x", "y"], d, {}, strata, raters=2)
    >>> sorted(p.name for p in (out / "sheets").iterdir())
    ['set1-rater1.csv', 'set1-rater2.csv']
    """
    if raters < 1:
        raise WrdscoreError(f"the number of raters must be at least 1, got {raters}")
    if scale < 1:
        raise WrdscoreError(f"the rating scale must be at least 1, got {scale}")
    if codes is not None and len(codes) != len(references):
        raise WrdscoreError(
            f"{counted(len(codes), 'code item')} for {counted(len(references), 'pair')}"
        )
    rng = np.random.default_rng(check_seed(seed))
    pairs: list[tuple[StudyPair, int]] = []
    for k, members in enumerate(design.sets, start=1):
        for n, j in enumerate(rng.permutation(len(members)), start=1):
            index, stratum = members[j]
            code, code_name = (None, None) if codes is None else _code_parts(codes[index])
            pair = StudyPair(
                f"s{k}p{n:03d}",
                str(k),
                stratum,
                references[index],
                predictions[index],
                code,
                code_name,
            )
            pairs.append((pair, index))
    metrics = list(scores)
    # Code is in the fingerprint, so progress saved in a form never fills another study's.
    fingerprint = hashlib.sha256(
        "\n".join(
            f"{p.id}\t{p.reference}\t{p.prediction}" + ("" if p.code is None else f"\t{p.code}")
            for p, _ in pairs
        ).encode()
    ).hexdigest()[:12]
    # The language each code is shown in: its item's, or told from the code.
    languages = {} if codes is None else {p.id: _code_language(codes[i]) for p, i in pairs}
    # The instructions name the language where every method shown is in the same one.
    said = set(languages.values())
    language = said.pop() if len(said) == 1 else None
    alternatives = any("\t" in p.reference for p, _ in pairs)
    code_columns = CODE_PAIR_COLUMNS if codes is not None else ()
    sheet_columns = CODE_SHEET_COLUMNS if codes is not None else SHEET_COLUMNS
    with atomic_dir(output, force=force) as tmp:
        with open(tmp / "pairs.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow([*PAIR_COLUMNS, *code_columns, *metrics])
            for pair, index in pairs:
                masked = [] if pair.code is None else [sheet_cell(pair.code_name or "")]
                writer.writerow(
                    [pair.id, pair.set, pair.stratum, *_cells(pair), *masked]
                    + [f"{scores[m][index]:.6f}" for m in metrics]
                )
        (tmp / "sheets").mkdir()
        (tmp / "forms").mkdir()
        for k in range(1, len(design.sets) + 1):
            set_pairs = [p for p, _ in pairs if p.set == str(k)]
            for r in range(1, raters + 1):
                order = [set_pairs[j] for j in rng.permutation(len(set_pairs))]
                comments = sheet_comments(
                    k, r, raters, scale, code=codes is not None, target=target,
                    language=language, alternatives=alternatives,
                )  # fmt: skip
                name = sheet_name(k, r)
                with open(tmp / "sheets" / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
                    fh.writelines(f"# {c}\n" for c in comments)
                    writer = csv.writer(fh, lineterminator="\n")
                    writer.writerow(sheet_columns)
                    writer.writerows([p.id, *_cells(p, shown=True), ""] for p in order)
                page = render_form(
                    name,
                    comments[0],
                    comments,
                    sheet_columns,
                    [_form_row(p) for p in order],
                    scale,
                    fingerprint,
                    languages=None if codes is None else [languages[p.id] for p in order],
                )
                (tmp / "forms" / f"{name}.html").write_text(page, encoding="utf-8")
        meta = {
            "format": STUDY_FORMAT if codes is None else CODE_STUDY_FORMAT,
            "seed": seed,
            "sets": len(design.sets),
            "raters": raters,
            "scale": scale,
            "strata": [s.spec for s in strata],
            "pairs": len(pairs),
            "shortfalls": [asdict(s) for s in design.shortfalls],
            "fingerprint": fingerprint,
            "target": target,
            **(info or {}),
        }
        (tmp / "study.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return Path(output)


def _code_parts(item: CodeItem) -> tuple[str, str | None]:
    """``(source, name to mask or None)`` of a code item."""
    if isinstance(item, str):
        return item, None
    return item["code"], item.get("name")


def _code_language(item: CodeItem) -> str | None:
    """The language a code item says it is in, or the one its code is told to be in
    (``None`` where none can be told: the form shows it as plain text)."""
    from wrdscore.corpora import code_language

    if not isinstance(item, str) and isinstance(item.get("language"), str):
        return item["language"]
    try:
        return code_language(_code_parts(item)[0])
    except WrdscoreError:
        return None


def _cells(pair: StudyPair, shown: bool = False) -> list[str]:
    """The escaped CSV cells of a pair's texts: reference, prediction (and its code);
    ``shown``: the reference as a sheet shows it (:func:`shown_reference`), not as
    ``pairs.csv`` keeps it."""
    texts = [shown_reference(pair.reference) if shown else pair.reference, pair.prediction]
    return [sheet_cell(t) for t in texts + ([] if pair.code is None else [pair.code])]


def _form_row(pair: StudyPair) -> tuple[str, ...]:
    """A pair as the form lists it: id, reference, prediction (and its code)."""
    texts = (pair.id, shown_reference(pair.reference), pair.prediction)
    return texts if pair.code is None else (*texts, pair.code)


def read_study(path: str | os.PathLike[str]) -> Study:
    """Read a study folder written by :func:`write_study`.

    Examples
    --------
    >>> read_study("/nonexistent")
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: /nonexistent is not a study folder (no study.json); \
create one with `wrdscore study sample`
    """
    folder = Path(path)
    meta_path = folder / "study.json"
    if not meta_path.is_file():
        raise WrdscoreError(
            f"{folder} is not a study folder (no study.json); create one with "
            "`wrdscore study sample`"
        )
    try:
        info = json.loads(meta_path.read_text(encoding="utf-8"))
        scale = int(info["scale"])
    except (ValueError, KeyError, TypeError) as exc:
        raise WrdscoreError(f"{meta_path}: not a valid study.json ({exc})") from None
    if info.get("format") not in _READABLE_FORMATS:
        raise WrdscoreError(f"{meta_path}: format {info.get('format')!r}, expected {STUDY_FORMAT}")
    text = sheet_text if _escaped(info) else str
    columns = PAIR_COLUMNS + (CODE_PAIR_COLUMNS if info["format"] == CODE_STUDY_FORMAT else ())
    pairs_path = folder / "pairs.csv"
    rows = csv_rows(pairs_path)
    _, header = next(rows, (1, []))
    if tuple(header[: len(columns)]) != columns:
        raise WrdscoreError(f"{pairs_path}:1: header must start with {','.join(columns)}")
    pairs = []
    for line, row in rows:
        if len(row) != len(header):
            raise WrdscoreError(
                f"{pairs_path}:{line}: {len(row)} fields, the header has {len(header)}"
            )
        pair_id, set_name, stratum, *texts = row[: len(columns)]
        reference, prediction, *code = map(text, texts)
        source, name = code or (None, None)
        pairs.append(
            StudyPair(pair_id, set_name, stratum, reference, prediction, source, name or None)
        )
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        raise WrdscoreError(f"{pairs_path}: an id appears twice")
    return Study(folder, pairs, scale, info)
