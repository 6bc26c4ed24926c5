"""Import human ratings, strictly: every problem is an error naming its file and line.

Two sources:

- filled-in rating sheets of a study (:func:`load_sheet_ratings`), one per rater, which
  give rater-level scores;
- published pair files (:func:`load_published_pairs`): ``reference,prediction,score``
  rows, headerless or with a header naming those columns (and optionally ``set``),
  whose score is already the mean over raters (like the WRDScore paper's data).

Scores are mapped to 0-1 by dividing by the scale; nothing is guessed: a score outside
``[0, scale]`` is an error, not a hint to rescale.

Rated pair sets shipped inside the package are reachable by name wherever a published
pairs file is taken (:data:`PACKAGED_RATINGS`): ``wrdscore-paper`` is the WRDScore
paper's 150 rated pairs (:func:`load_paper_ratings`).
"""

from __future__ import annotations

import glob
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError, counted
from wrdscore.human_eval._form import SELF_TEST_MARK
from wrdscore.human_eval._sample import pair_key
from wrdscore.human_eval._sheets import (
    SHEET_STEM,
    CodeItem,
    Study,
    csv_rows,
    sheet_name,
    sheet_title,
    shown_reference,
)

PUBLISHED_COLUMNS = ("reference", "prediction", "score")
#: The optional column of a headed pairs file that names each row's set.
SET_COLUMN = "set"
PAPER_RATINGS = "wrdscore-paper"
#: Rated pair sets inside the package: name -> the top of its score scale. Each is the
#: folder ``wrdscore/data/<name>`` of ``reference,prediction,score`` CSVs, with its
#: licence and a note on its source.
PACKAGED_RATINGS: dict[str, float] = {PAPER_RATINGS: 10.0}


def packaged_ratings_path(name: str = PAPER_RATINGS) -> Path:
    """Folder of a rated pair set shipped inside the package (see :data:`PACKAGED_RATINGS`).

    Examples
    --------
    >>> sorted(p.name for p in packaged_ratings_path().glob("*.csv"))
    ['set1_res.csv', 'set2_res.csv', 'set3_res.csv']
    """
    if name not in PACKAGED_RATINGS:
        raise WrdscoreError(
            f"no packaged rating set {name!r}; there is {', '.join(PACKAGED_RATINGS)}"
        )
    folder = Path(str(resources.files("wrdscore"))) / "data" / name
    if not folder.is_dir():
        raise WrdscoreError(f"the packaged rating set {name} is missing from {folder}; reinstall")
    return folder


@dataclass(frozen=True)
class HumanRatings:
    """Rated pairs and their ground truth (the mean over raters, on 0-1).

    ``by_rater`` is ``(len(raters), n_pairs)`` with NaN where a rater did not rate a
    pair, or ``None`` where only the means are known. ``codes`` holds each pair's method
    source where the raters saw it (a study with code), else ``None``.
    """

    ids: list[str]
    sets: list[str]
    references: list[str]
    predictions: list[str]
    human: NDArray[np.float64]
    raters: list[str]
    by_rater: NDArray[np.float64] | None
    codes: list[CodeItem] | None = None
    #: What the user should know about how the ratings were read (a rater of the
    #: study's design without a sheet), one line each.
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.ids)


def _score(text: str, scale: float, where: str) -> float:
    if not text.strip():
        raise WrdscoreError(f"{where}: no score given")
    try:
        value = float(text)
    except ValueError:
        # Spreadsheets in many locales export 7,5; say how to fix it instead of guessing.
        hint = " (write a decimal point: 7.5, not 7,5)" if "," in text else ""
        raise WrdscoreError(f"{where}: score {text.strip()!r} is not a number{hint}") from None
    if not math.isfinite(value) or not 0.0 <= value <= scale:
        hint = " (use --scale 10 for scores on 0-10)" if scale == 1 and 1 < value <= 10 else ""
        raise WrdscoreError(f"{where}: score {text.strip()} is outside 0-{scale:g}{hint}")
    return value / scale


def expand_ratings(patterns: Sequence[str], base: Path | None = None) -> list[Path]:
    """Files named by ``patterns`` (paths or glob patterns), sorted, without repeats.

    A relative pattern that matches nothing is tried again under ``base`` (the study
    folder), so ``--ratings 'sheets/*.csv'`` works from anywhere.

    Examples
    --------
    >>> expand_ratings(["/nonexistent/*.csv"])
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: --ratings '/nonexistent/*.csv' matches no file
    """
    found: dict[Path, None] = {}
    for pattern in patterns:
        matches = sorted(glob.glob(pattern))
        if not matches and base is not None and not os.path.isabs(pattern):
            matches = sorted(glob.glob(str(base / pattern)))
        files = [Path(m) for m in matches if Path(m).is_file()]
        if not files:
            raise WrdscoreError(f"--ratings {pattern!r} matches no file")
        found.update(dict.fromkeys(files))
    return list(found)


def _read_sheet(
    path: Path, study: Study, by_id: dict[str, int]
) -> tuple[dict[int, float], str | None]:
    """One filled-in sheet: pair index -> score on 0-1, and the sheet its title line names.

    A sheet's first comment line names it (``# wrdscore rating sheet set1-rater2: ...``);
    a file named like a sheet must be the sheet it names, so a sheet renamed to another
    rater's or set's name is not counted as that rater. Without the line (a spreadsheet
    may drop it) there is nothing to check.
    """
    scores: dict[int, float] = {}
    columns = study.sheet_columns
    header_seen = False
    title: str | None = None
    for line, row in csv_rows(path):
        where = f"{path}:{line}"
        if not header_seen:
            if not row or not "".join(row).strip():
                continue
            if row[0].lstrip().startswith("#"):
                if ",".join(row).lstrip("# ").startswith(SELF_TEST_MARK):
                    raise WrdscoreError(
                        f"{where}: this sheet was filled in by the rating form's self-test, "
                        "not by a rater (a test build of the form was handed out)"
                    )
                title = title or sheet_title(row)
                if title and SHEET_STEM.fullmatch(path.stem) and path.stem != title:
                    raise WrdscoreError(
                        f"{where}: the sheet says it is {title}, but the file is named "
                        f"{path.stem} (rename it {title}.csv)"
                    )
                continue
            if tuple(c.strip().lower() for c in row) != columns:
                raise WrdscoreError(f"{where}: expected the header {','.join(columns)}")
            header_seen = True
            continue
        if not row:
            continue
        if len(row) != len(columns):
            hint = (
                " (a decimal comma in the score? write 7.5, not 7,5)"
                if len(row) == len(columns) + 1 and row[-1].strip().isdigit()
                else ""
            )
            raise WrdscoreError(f"{where}: {len(row)} fields, expected {len(columns)}{hint}")
        pair_id, reference, prediction, *code, text = row
        index = by_id.get(pair_id.strip())
        if index is None:
            raise WrdscoreError(f"{where}: unknown id {pair_id!r} (not in {study.path}/pairs.csv)")
        pair = study.pairs[index]
        reference, prediction = study.cell_text(reference), study.cell_text(prediction)
        # Alternatives are shown joined by " | " (sheets before that held the TABs).
        if reference not in (pair.reference, shown_reference(pair.reference)) or (
            prediction != pair.prediction
        ):
            raise WrdscoreError(
                f"{where}: reference/prediction of {pair.id} differ from pairs.csv "
                "(the sheet was edited or belongs to another study)"
            )
        # A spreadsheet may write a cell's line breaks as \r\n: only those may differ.
        if code and _lines_of(study.cell_text(code[0])) != _lines_of(pair.code or ""):
            raise WrdscoreError(
                f"{where}: the code of {pair.id} differs from pairs.csv "
                "(the sheet was edited or belongs to another study)"
            )
        if index in scores:
            raise WrdscoreError(f"{where}: second rating of {pair.id} in the same sheet")
        scores[index] = _score(text, study.scale, where)
    if not header_seen:
        raise WrdscoreError(f"{path}: no header {','.join(columns)}: not a rating sheet")
    if not scores:
        raise WrdscoreError(f"{path}: the sheet has no rows")
    sets = sorted({study.pairs[i].set for i in scores})
    if len(sets) > 1:
        raise WrdscoreError(f"{path}: rates pairs of several sets ({', '.join(sets)})")
    titled = SHEET_STEM.fullmatch(title) if title else None
    if titled and titled[1] != sets[0]:
        raise WrdscoreError(
            f"{path}: the sheet says it is {title}, but it rates pairs of set {sets[0]}"
        )
    missing = [p.id for p in study.pairs if p.set == sets[0] and by_id[p.id] not in scores]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise WrdscoreError(
            f"{path}: no rating for {counted(len(missing), 'pair')} of set {sets[0]}: {shown}"
        )
    return scores, title


def load_sheet_ratings(study: Study, paths: Sequence[Path]) -> HumanRatings:
    """Validate and combine the filled-in sheets of ``study``, one sheet per rater.

    Each sheet must rate every pair of exactly one set, and every pair of the study must
    have at least one rating. The rater is the sheet's file name without ``.csv``. Where
    a sheet's first line names it (``# wrdscore rating sheet set1-rater2: ...``), a file
    named like a sheet must carry that name, the sheet must rate that set, and no two
    files may be the same sheet.

    Parameters
    ----------
    study : Study
        From :func:`~wrdscore.human_eval.read_study`.
    paths : sequence of Path
        The sheets (see :func:`expand_ratings`).

    Returns
    -------
    HumanRatings
        In the study's pair order, with rater-level scores.
    """
    by_id = {p.id: i for i, p in enumerate(study.pairs)}
    names = [p.stem for p in paths]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise WrdscoreError(f"two sheets share the rater name {twice[0]} (file names must differ)")
    matrix = np.full((len(paths), len(study.pairs)), np.nan)
    titled: dict[str, Path] = {}
    # Each set's sheets among the ratings, by the sheet they say they are (or file name).
    rated: dict[str, list[str]] = {}
    for r, path in enumerate(paths):
        scores, title = _read_sheet(path, study, by_id)
        rated.setdefault(study.pairs[next(iter(scores))].set, []).append(title or path.stem)
        if title is not None and title in titled:
            raise WrdscoreError(
                f"{titled[title]} and {path} are both sheet {title} (their first lines say "
                "so): the same rater twice"
            )
        if title is not None:
            titled[title] = path
        for index, value in scores.items():
            matrix[r, index] = value
    unrated = [p for i, p in enumerate(study.pairs) if not np.isfinite(matrix[:, i]).any()]
    if unrated:
        raise WrdscoreError(
            f"{counted(len(unrated), 'pair')} {'has' if len(unrated) == 1 else 'have'} no "
            f"rating, e.g. {unrated[0].id} of set "
            f"{unrated[0].set}: no sheet for that set among the ratings"
        )
    return HumanRatings(
        [p.id for p in study.pairs],
        [p.set for p in study.pairs],
        [p.reference for p in study.pairs],
        [p.prediction for p in study.pairs],
        np.nanmean(matrix, axis=0),
        names,
        matrix,
        [p.code_item or "" for p in study.pairs] if study.has_code else None,
        tuple(_missing_sheets(study, rated)),
    )


def _missing_sheets(study: Study, rated: dict[str, list[str]]) -> list[str]:
    """A note for each set of the study's design with fewer sheets among the ratings
    than its raters (``study.json``'s ``raters``), naming the missing sheets where the
    sheets given say which they are."""
    raters = study.info.get("raters")
    if not isinstance(raters, int):
        return []
    notes = []
    for name in dict.fromkeys(p.set for p in study.pairs):
        got = rated.get(name, [])
        if len(got) >= raters:
            continue
        designed = [sheet_name(int(name), r) for r in range(1, raters + 1)]
        missing = [s for s in designed if s not in got] if name.isdigit() else []
        which = f" ({', '.join(missing)} missing)" if len(missing) == raters - len(got) else ""
        notes.append(
            f"set {name} has {len(got)} of the {raters} raters' sheets of the design{which}: "
            "it is analysed with the raters it has"
        )
    return notes


def _code_key(item: CodeItem) -> tuple[str, str | None]:
    """What makes two methods' code the same: the source and the name masked in it."""
    return (item, None) if isinstance(item, str) else (item["code"], item.get("name"))


def _lines_of(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _published_file(path: Path, scale: float) -> list[tuple[str, str, str, str, float]]:
    """Rows ``(set, id, reference, prediction, score)``; the set is the file stem unless
    a header names a ``set`` column."""
    rows: list[tuple[str, str, str, str, float]] = []
    columns: list[int] | None = None
    expected: tuple[str, ...] = PUBLISHED_COLUMNS
    for line, row in csv_rows(path):
        where = f"{path}:{line}"
        if not row or not "".join(row).strip():
            continue
        names = [c.strip().lower() for c in row]
        if (
            columns is None
            and not rows
            and sorted(names)
            in (
                sorted(PUBLISHED_COLUMNS),
                sorted((*PUBLISHED_COLUMNS, SET_COLUMN)),
            )
        ):
            expected = tuple(c for c in (*PUBLISHED_COLUMNS, SET_COLUMN) if c in names)
            columns = [names.index(c) for c in expected]
            continue
        if len(row) != len(expected):
            raise WrdscoreError(f"{where}: {len(row)} fields, expected {','.join(expected)}")
        ref_at, pred_at, score_at, *set_at = columns or (0, 1, 2)
        reference, prediction = row[ref_at].strip(), row[pred_at].strip()
        if not reference or not prediction:
            raise WrdscoreError(f"{where}: empty reference or prediction")
        set_name = row[set_at[0]].strip() if set_at else path.stem
        if not set_name:
            raise WrdscoreError(f"{where}: empty set")
        score = _score(row[score_at], scale, where)
        rows.append((set_name, f"{path.stem}:{line}", reference, prediction, score))
    if not rows:
        raise WrdscoreError(f"{path}: no rated pairs")
    return rows


def load_published_pairs(
    paths: Sequence[str | os.PathLike[str]], scale: float | None = None
) -> HumanRatings:
    """Read published ``reference,prediction,score`` files; each file is one set.

    A file with a header may add a ``set`` column (in any position); its rows then
    belong to the set it names, so one file can hold several sets (and several files
    the same set). Without it, a file's set is its name without ``.csv``.

    Parameters
    ----------
    paths : sequence of path-like
        CSV files, folders whose ``*.csv`` files are read in name order, or the name
        of a rated set shipped in the package (``"wrdscore-paper"``, see
        :data:`PACKAGED_RATINGS`); an existing file or folder of that name wins.
    scale : float, optional
        Highest possible score of the files: ``10`` maps 0-10 to 0-1 (default 1). A
        packaged set knows its own scale; a different ``scale`` for it is an error.

    Returns
    -------
    HumanRatings
        Ids are ``<file stem>:<line>``; no rater-level scores.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "set1.csv"
    >>> _ = f.write_text("get name,name,8\\nrun,go,2.5\\n")
    >>> load_published_pairs([f], scale=10).human.tolist()
    [0.8, 0.25]
    >>> len(load_published_pairs(["wrdscore-paper"]))
    150
    """
    if scale is not None and not scale > 0:
        raise WrdscoreError(f"the scale must be positive, got {scale}")
    files: list[tuple[Path, float]] = []
    for given in paths:
        p = Path(given)
        file_scale = 1.0 if scale is None else scale
        if not p.exists() and str(given) in PACKAGED_RATINGS:
            own = PACKAGED_RATINGS[str(given)]
            if scale is not None and scale != own:
                raise WrdscoreError(
                    f"{given}: its scores are on 0-{own:g}, not 0-{scale:g}; leave out --scale"
                )
            p, file_scale = packaged_ratings_path(str(given)), own
        if p.is_dir():
            inside = sorted(p.glob("*.csv"))
            if not inside:
                raise WrdscoreError(f"{p}: no .csv files in the folder")
            files.extend((f, file_scale) for f in inside)
        elif p.is_file():
            files.append((p, file_scale))
        else:
            names = ", ".join(PACKAGED_RATINGS)
            raise WrdscoreError(f"{p}: no such file or folder (packaged rating sets: {names})")
    rows = [r for f, s in files for r in _published_file(f, s)]
    return HumanRatings(
        [r[1] for r in rows],
        [r[0] for r in rows],
        [r[2] for r in rows],
        [r[3] for r in rows],
        np.array([r[4] for r in rows], dtype=np.float64),
        [],
        None,
    )


def load_paper_ratings() -> HumanRatings:
    """The WRDScore paper's 150 human-rated pairs, shipped in the package.

    Three sets of 50 (``set1_res`` to ``set3_res``), each score the mean of three
    developers' 0-10 ratings, mapped to 0-1 (Mussabayev 2024; MIT licence, see
    ``wrdscore/data/wrdscore-paper/``).

    Examples
    --------
    >>> r = load_paper_ratings()
    >>> len(r), r.references[0], r.predictions[0], round(float(r.human[0]), 2)
    (150, 'get long null', 'as long', 0.4)
    """
    return load_published_pairs([PAPER_RATINGS])


def select(ratings: HumanRatings, indices: Sequence[int] | NDArray[np.intp]) -> HumanRatings:
    """The rated pairs at ``indices``, in that order, with their rater-level scores.

    Raters who rated none of the selected pairs are left out, so agreement statistics
    of a subset only count the raters of that subset.

    Examples
    --------
    >>> r = HumanRatings(["a", "b", "c"], ["1", "1", "2"], ["x", "y", "z"], ["x", "q", "z"],
    ...                  np.array([1.0, 0.2, 0.8]), [], None)
    >>> part = select(r, [2])
    >>> part.ids, part.sets, part.human.tolist()
    (['c'], ['2'], [0.8])
    """
    at = np.asarray(indices, dtype=np.intp)
    raters, by_rater = ratings.raters, ratings.by_rater
    if by_rater is not None:
        by_rater = by_rater[:, at]
        active = np.any(np.isfinite(by_rater), axis=1)
        raters = [r for r, keep in zip(raters, active, strict=True) if keep]
        by_rater = by_rater[active]
    return HumanRatings(
        [ratings.ids[i] for i in at],
        [ratings.sets[i] for i in at],
        [ratings.references[i] for i in at],
        [ratings.predictions[i] for i in at],
        ratings.human[at],
        raters,
        by_rater,
        None if ratings.codes is None else [ratings.codes[i] for i in at],
    )


def deduplicate(ratings: HumanRatings) -> tuple[HumanRatings, NDArray[np.intp]]:
    """One row per distinct (reference, prediction) pair, its score the mean of its rows.

    Pairs are compared by sub-tokens, and where the raters saw code by their code too
    (the same names on two methods are two questions); the first row's id, set and texts
    are kept, and rater-level scores are dropped (a repeated pair may have had different
    raters).

    Returns
    -------
    (HumanRatings, ndarray of int)
        The distinct pairs, and the index of each one's first row in ``ratings``.

    Examples
    --------
    >>> r = HumanRatings(["a", "b"], ["1", "2"], ["get x"] * 2, ["x"] * 2,
    ...                  np.array([0.25, 0.75]), [], None)
    >>> dedup, kept = deduplicate(r)
    >>> dedup.human.tolist(), kept.tolist()
    ([0.5], [0])
    """
    groups: dict[tuple[object, ...], list[int]] = {}
    codes = ratings.codes
    for i, (ref, pred) in enumerate(zip(ratings.references, ratings.predictions, strict=True)):
        key = pair_key(ref, pred) + (() if codes is None else (_code_key(codes[i]),))
        groups.setdefault(key, []).append(i)
    first = np.array([members[0] for members in groups.values()], dtype=np.intp)
    distinct = HumanRatings(
        [ratings.ids[i] for i in first],
        [ratings.sets[i] for i in first],
        [ratings.references[i] for i in first],
        [ratings.predictions[i] for i in first],
        np.array([ratings.human[m].mean() for m in groups.values()]),
        [],
        None,
        None if codes is None else [codes[i] for i in first],
    )
    return distinct, first
