"""Scoring a model's output on an ingested corpus: its references, code and predictions.

:func:`corpus_inputs` reads what ``wrdscore score --corpus`` scores from a corpus (each
method's name or summary, and its code as :class:`StoredCode`, the identifiers ingest
read from it) and lines up the predictions with its records, by order or by id;
:func:`corpus_item_names` names a corpus's pair in error messages;
:func:`corpus_comparison` reads two systems' predictions for ``wrdscore compare
--corpus``. Reading is :mod:`wrdscore.corpora`'s; scoring the items is
:mod:`wrdscore.metrics`'.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from wrdscore.errors import WrdscoreError, counted


class StoredCode(NamedTuple):
    """A corpus method's code with the identifiers ingest read from it (format 4).

    ``words`` is the record's ``code_words``: under the default reading
    (``strings="drop"``) :func:`~wrdscore.metrics.code.read_codes` splits them instead
    of parsing ``code``, with the same tokens as a parse
    (:func:`wrdscore.corpora.read_code_words`);
    under any other reading it parses ``code``, masking ``name``. ``code`` is None
    where the corpus's source was not read (:func:`corpus_inputs` with ``code=False``):
    then only the default reading can score it. ``language`` is the record's (Java
    where it has none): the priors count that language's reserved words as copied.
    """

    code: str | None
    name: str
    words: str
    language: str = "java"


#: What :func:`corpus_inputs` gives for a method's code: its stored identifiers, its
#: source and name (a corpus without stored identifiers), or None where the parser could
#: not place its declaration (its support is then 0).
CorpusCode = StoredCode | dict[str, str | None] | None


def corpus_inputs(
    corpus_dir: str | Path,
    predictions: str | Path,
    target: str,
    workdir: Path,
    *,
    code: bool = True,
) -> tuple[list[str], list[CorpusCode], Path]:
    """References, code and a predictions file for scoring a model's output on a corpus.

    The references are the methods' names (``target="name"``) or Javadoc summaries
    (``"summary"``; a method without one has an empty reference), the code each
    method's source with its declared name (masked when the target is a name). The
    predictions are aligned by record order (a text or JSON-lines file with one item
    per record of the corpus), or by id: a ``.jsonl`` file of objects
    ``{"id": ID, "prediction": ITEM}``, ``ID`` as
    :func:`~wrdscore.corpora.corpus_methods` gives it, scoring only those methods, in
    the file's order (a model's test set that is a subset of the corpus). Then the
    predictions are rewritten, in order, to ``workdir``.

    With ``code=False`` the source of a method with stored identifiers (format 4) is
    not read (its :class:`StoredCode` has ``code=None``): enough when every metric
    reads code under the default ``strings="drop"``, and it spares decoding every
    method's source (:func:`~wrdscore.corpora.corpus_methods`).

    Raises
    ------
    WrdscoreError
        A corpus without code (older format: the message names the re-ingest
        command), an unknown or repeated id, or an id file with another kind of line.
    """
    # Reading makes a few objects per record, none in cycles, which the collector
    # would otherwise scan again and again as the lists grow.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _corpus_inputs(corpus_dir, predictions, target, workdir, code)
    finally:
        if enabled:
            gc.enable()


def _corpus_inputs(
    corpus_dir: str | Path, predictions: str | Path, target: str, workdir: Path, code: bool
) -> tuple[list[str], list[CorpusCode], Path]:
    import json

    from wrdscore.corpora import corpus_methods, method_items
    from wrdscore.inputs import id_predictions

    predictions = Path(predictions)
    by_id = id_predictions(predictions)
    chosen: list[tuple[str | None, str | None, str, str | None, str]]
    if by_id is None:
        # By record order, no method's id is needed: not built (nor its fields read).
        chosen = list(method_items(corpus_dir, target=target, code=code))
        path = predictions
    else:
        wanted = {i: k for k, i in enumerate(by_id)}
        found: list[Any] = [None] * len(by_id)
        for m in corpus_methods(corpus_dir, target=target, code=code):
            k = wanted.get(m.id)
            if k is not None:
                found[k] = m
        missing = [i for i, m in zip(by_id, found, strict=True) if m is None]
        if missing:
            raise WrdscoreError(
                f"{predictions}: {counted(len(missing), 'id')} not in corpus {corpus_dir}, "
                f"the first {missing[0]!r}"
            )
        chosen = [(m.reference, m.code, m.name, m.words, m.language) for m in found]
        path = workdir / "predictions.jsonl"
        path.write_text(
            "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in by_id.values()),
            encoding="utf-8",
        )
    refs = [reference or "" for reference, *_ in chosen]
    # An empty code is a record whose declaration the parser could not place: unknown
    # code, support 0 (counted), not an error that stops the whole run.
    # A format 4 corpus has each method's identifiers: read from them, not parsed again.
    # (code None: not read, which corpus_methods does only where the words are stored.)
    items: list[CorpusCode] = [
        None
        if source == ""
        else {"code": source, "name": name}
        if words is None
        else StoredCode(source, name, words, language)
        for _, source, name, words, language in chosen
    ]
    return refs, items, path


def corpus_item_names(
    corpus_dir: str | Path, target: str, predictions: str | Path
) -> Callable[[int], str]:
    """What error messages call pair ``i`` of a corpus scored by :func:`corpus_inputs`
    with ``predictions``: the corpus and the method's id, so a user can find it
    (``corpus: method 'A.java:3:runFast' (pair 5)``).

    Nothing is read until a message needs a name: the ids of predictions aligned by
    id, or, by record order, the corpus's records up to the one named (scoring by
    record order reads no ids).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import ingest
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A {\\n  void runFast() { go(); }\\n}")
    >>> _ = ingest([d], d / "corpus", jobs=1, quiet=True)
    >>> _ = (d / "preds.txt").write_text("run\\n")
    >>> name = corpus_item_names(d / "corpus", "name", d / "preds.txt")
    >>> name(0).endswith(": method 'A.java:2:runFast' (record 1)")
    True
    """

    def name(i: int) -> str:
        from wrdscore.corpora import corpus_methods
        from wrdscore.inputs import id_predictions

        by_id = id_predictions(predictions)
        if by_id is not None:
            return f"{corpus_dir}: method {list(by_id)[i]!r} (pair {i + 1})"
        methods = corpus_methods(corpus_dir, target=target, code=False)
        method = next(itertools.islice(methods, i, None), None)
        what = "a method" if method is None else f"method {method.id!r}"
        return f"{corpus_dir}: {what} (record {i + 1})"

    return name


def corpus_comparison(
    corpus_dir: str | Path,
    predictions_a: str | Path,
    predictions_b: str | Path,
    target: str,
    workdir: Path,
    *,
    source: bool = True,
) -> tuple[list[str], list[Any], list[Any], list[Any]]:
    """References, code and both systems' predictions on an ingested corpus.

    Each predictions file is read as ``wrdscore score --corpus`` reads one
    (:func:`corpus_inputs`): aligned by record order, or a
    ``.jsonl`` of ``{"id": ..., "prediction": ...}`` objects. A paired comparison needs
    the same methods in the same order, so two files by id must list the same ids in
    the same order, and one by id cannot be compared with one by record order.
    ``source=False`` reads a stored corpus's identifiers, not its sources (enough where
    string literals are dropped: ``corpus_inputs``'s ``code``).

    Raises
    ------
    WrdscoreError
        Files that predict different methods, or in another order (the first place
        they differ is named).
    """
    from wrdscore.inputs import id_predictions, read_items

    ids = [id_predictions(p) for p in (predictions_a, predictions_b)]
    if (ids[0] is None) != (ids[1] is None):
        by_id = predictions_a if ids[0] is not None else predictions_b
        raise WrdscoreError(
            f"{by_id} gives predictions by id, the other file by record order: give both "
            "the same way, so that they predict the same methods"
        )
    if ids[0] is not None and ids[1] is not None and list(ids[0]) != list(ids[1]):
        first, second = list(ids[0]), list(ids[1])
        at = next((i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y), None)
        where = (
            f"line {at + 1} has id {first[at]!r} in {predictions_a}, {second[at]!r} in "
            f"{predictions_b}"
            if at is not None
            else f"{len(first)} ids in {predictions_a}, {len(second)} in {predictions_b}"
        )
        raise WrdscoreError(
            f"both --preds must predict the same methods in the same order: {where}"
        )
    out: list[Any] = []
    for k, path in enumerate((predictions_a, predictions_b)):
        folder = workdir / f"system-{k}"
        folder.mkdir()
        references, code, preds = corpus_inputs(corpus_dir, path, target, folder, code=source)
        out.append((references, code, read_items(preds)))
    (references, code, preds_a), (_, _, preds_b) = out
    return references, code, preds_a, preds_b
