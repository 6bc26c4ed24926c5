"""Scoring against a method's code: code support, combined scores and their checks.

A prediction is judged the way people judge it, by reading the method: *code support*
is how well the prediction is grounded in the words of the method's code (read by
:func:`wrdscore.corpora.read_code`: identifiers split into sub-tokens, keywords and
punctuation dropped, the declared name masked when the target is a name). Each metric
that can read code says which of its values against the code is the support
(:attr:`~wrdscore.metrics.Metric.code_key`): for precision/recall metrics the precision,
the prediction's tokens matched onto the code's (the code says far more than any name,
so recall against it means nothing), for single-valued similarities the value itself.

With references too, the *combined* value is

.. math:: \\mathrm{combined} = (1 - w)\\, s_{\\mathrm{ref}} + w\\, s_{\\mathrm{code}}

with ``s_ref`` the metric's headline value against the reference and ``w`` the
metric's ``code_weight``. Its default, 0.5, is chosen on principle, not fitted: the
reference and the code are two independent views of what the method does, neither
known to be the better judge of a prediction, so they count evenly. (The only ratings
in this repository have no code, so nothing here could have been fitted to them.)

This module holds the helpers (reading code items, checks, the mix);
:meth:`~wrdscore.metrics.Metric.score` with ``code`` puts them together, and the
arithmetic of each metric stays in its module
(:meth:`~wrdscore.metrics.Metric._code_support`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import MAX_CODE_CHARS, STRING_POLICIES, TARGETS
from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics._code_support import PRIOR_LABEL
from wrdscore.metrics._flatten import (
    MAX_TOKENS,
    ItemError,
    Prediction,
    Tokens,
    _check_text_sizes,
    _tokens_of,
    gc_paused,
)

if TYPE_CHECKING:
    from wrdscore.metrics._metric import Metric


class StoredCode(NamedTuple):
    """A corpus method's code with the identifiers ingest read from it (format 4).

    ``words`` is the record's ``code_words``: under the default reading
    (``strings="drop"``) :func:`read_codes` splits them instead of parsing ``code``,
    with the same tokens as a parse (:func:`wrdscore.corpora._code.read_code_words`);
    under any other reading it parses ``code``, masking ``name``. ``code`` is None
    where the corpus's source was not read (:func:`corpus_inputs` with ``code=False``):
    then only the default reading can score it. ``language`` is the record's (Java
    where it has none): the priors count that language's reserved words as copied.
    """

    code: str | None
    name: str
    words: str
    language: str = "java"


#: One method's code: its source text, or ``{"code": source, "name": declared_name}``
#: (``name`` optional: the name to mask when the target is a name; by default the
#: name the source declares), a corpus's :class:`StoredCode`, or None where a
#: method's code is unknown (a corpus record whose declaration the parser could not
#: place): its support is then 0.
CodeItem = str | Mapping[str, Any] | StoredCode | None

#: The values scoring against code adds: the support, and (with references) the mix.
CODE_KEYS = ("code", "combined")
#: The even mean of the reference's and the code's view (see the module docstring).
DEFAULT_CODE_WEIGHT = 0.5


def check_code_options(code_weight: object, target: object, strings: object) -> None:
    """Refuse a code weight outside [0, 1], an unknown target or string policy."""
    if not (
        isinstance(code_weight, int | float)
        and not isinstance(code_weight, bool)
        and math.isfinite(code_weight)
        and 0.0 <= code_weight <= 1.0
    ):
        raise WrdscoreError(f"code weight must be a number from 0 to 1, not {code_weight!r}")
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    if strings not in STRING_POLICIES:
        raise WrdscoreError(
            f"unknown string policy {strings!r}; choose one of {', '.join(STRING_POLICIES)}"
        )


def code_item(item: object, i: int) -> tuple[str, str | None]:
    """``(source, name to mask or None)`` of code item ``i``; an :class:`ItemError` if bad."""
    if isinstance(item, str):
        return item, None
    if isinstance(item, Mapping):
        source, name = item.get("code"), item.get("name")
        if isinstance(source, str) and (name is None or isinstance(name, str)):
            return source, name
    raise ItemError(
        "code",
        i,
        "must be a string (the method's source) or an object with a string 'code' "
        "(and optionally a string 'name')",
    )


class ReadCode(NamedTuple):
    """What :func:`read_codes` read: each item's sub-tokens, the language each was
    read in (a stored item's is its record's; None where there is no code), and how
    many were read unmasked (``allow_unmasked``: their name was not found declared)."""

    tokens: list[Tokens]
    languages: list[str | None]
    unmasked: int = 0


def read_codes(
    code: Sequence[CodeItem],
    target: str,
    strings: str,
    offset: int = 0,
    segmented: bool = False,
    language: str | None = None,
    allow_unmasked: bool = False,
) -> ReadCode:
    """What scoring reads from each code item (:func:`wrdscore.corpora.read_method`):
    its sub-tokens, with run-together words segmented when ``segmented`` (a metric's
    ``segment``), the language each was read in, and how many were read unmasked.

    A method longer than :data:`~wrdscore.corpora.MAX_CODE_CHARS` characters is cut
    at a line as ingest cuts it (:func:`~wrdscore.corpora.capped_code`), not refused;
    :func:`long_code` counts such items.

    Raises
    ------
    ItemError
        An item that is not code, code the reader refuses (empty, binary), or, without
        ``allow_unmasked``, code whose name cannot be masked (a wrong language or
        name), numbered from ``offset``.
    """
    from wrdscore.corpora import read_method

    out: list[Tokens] = []
    languages: list[str | None] = []
    unmasked = 0
    for i, item in enumerate(code):
        # Strings and the objects of a --code file (a plain dict with a string "code")
        # without the general checks: this loop runs once per method.
        if item is None:
            out.append([])
            languages.append(None)
            continue
        words = None
        if type(item) is StoredCode:
            # What ingest read from the code: no parse under the default reading.
            source, name, words = item.code, item.name, item.words
            if source is None and strings != "drop":
                raise ItemError(
                    "code", offset + i, f"was not read from the corpus (strings={strings!r})"
                )
        elif type(item) is str:
            source, name = item, None
        elif (
            type(item) is dict
            and type(item.get("code")) is str
            and type(item.get("name", "")) is str
        ):
            source, name = item["code"], item.get("name")
        else:
            source, name = code_item(item, offset + i)
        if source is not None and len(source) > MAX_CODE_CHARS:
            from wrdscore.corpora import SourceCode, capped_code

            cut = capped_code(source)[0]
            # A slice of a SourceCode is a plain str: keep the language it was given,
            # or the cut method would be told from its code (or refused as untellable).
            source = SourceCode(cut, source.language) if isinstance(source, SourceCode) else cut
        try:
            read = read_method(
                source,
                target=target,
                name=name,
                strings=strings,
                # Stored words were read in their record's language; a parse tells it.
                language=(language or item.language)
                if words is not None and strings == "drop"
                else language,
                words=words,
                segmented=segmented,
                allow_unmasked=allow_unmasked,
            )
        except WrdscoreError as exc:
            problem = str(exc)
            if not problem.startswith("cannot be masked"):
                problem = f"cannot be read: {problem}"
            raise ItemError("code", offset + i, problem) from None
        out.append(list(read.tokens))
        languages.append(read.language)
        unmasked += read.unmasked is not None
    return ReadCode(out, languages, unmasked)


def long_code(code: Sequence[CodeItem]) -> int:
    """How many code items :func:`read_codes` cuts: sources over
    :data:`~wrdscore.corpora.MAX_CODE_CHARS` characters (a corpus's are cut at ingest).

    Examples
    --------
    >>> long_code(["int f() {}", {"code": "x" * 20_000}, None, "y" * 16_385])
    2
    """
    return sum(
        len(source) > MAX_CODE_CHARS
        for source in (
            item.get("code") if isinstance(item, Mapping) else item
            for item in code
            if not isinstance(item, StoredCode)
        )
        if isinstance(source, str)
    )


def prediction_tokens(
    predictions: Sequence[Prediction], offset: int, split: Callable[..., Tokens]
) -> list[Tokens]:
    """Check and tokenise predictions alone (reference-free scoring), with ``split``: the
    metric's own tokeniser (:meth:`Metric.tokens`), so cleaning and segmentation apply."""
    if isinstance(predictions, str):
        raise WrdscoreError("predictions must be a list of items, not a single string")
    predictions = list(predictions)
    if not predictions:
        raise WrdscoreError("nothing to score: no pairs given")
    _check_text_sizes([], predictions, offset, (set(), set(map(type, predictions))))
    tokens = [_tokens_of(p, "prediction", offset + i, split) for i, p in enumerate(predictions)]
    for i, t in enumerate(tokens):
        if len(t) > MAX_TOKENS:
            raise ItemError(
                "prediction",
                offset + i,
                f"has {len(t):,} sub-tokens, more than the {MAX_TOKENS:,} an item may have",
            )
    return tokens


def code_fields(metric: Metric) -> dict[str, str]:
    """The signature fields of scoring against code (only when code is read)."""
    return {
        "code": "yes",
        "cw": f"{metric.code_weight:g}",
        "tgt": metric.target,
        # With allow_unmasked, code whose name is not found declared is scored unmasked.
        "mask": "none"
        if metric.target != "name"
        else "name-if-declared"
        if metric.allow_unmasked
        else "name",
        "str": metric.strings,
        # The language given for all code (--language), or auto: each item's own (a
        # CODE.jsonl line's language key, a corpus record's) or, without one, the one
        # detect_language tells (Java if Java parses it cleanly, else the grammar that
        # parses it with the fewest errors).
        "lang": metric.language or "auto",
        # The priors scaling every code support, and the empty-code rule of combine.
        "prior": PRIOR_LABEL,
        "empty": "ref",
    }


def refuse_code(metric: Metric) -> None:
    """A one-line error when ``metric`` cannot score against code with its settings."""
    if metric.code_key is None:
        why = metric.no_code_reason or "it has no value that reads code"
        raise WrdscoreError(f"metric {metric.name!r} cannot score against code: {why}")
    if getattr(metric, "rescale", False):
        raise WrdscoreError(
            f"metric {metric.name!r}: rescaling does not apply to code support (the "
            "baselines are for pairs of names); score against code without --rescale"
        )
    if getattr(metric, "centering", None) == "batch":
        raise WrdscoreError(
            f"metric {metric.name!r}: centering 'batch' does not apply to code support "
            "(the code is not part of the batch mean); choose another centering"
        )


def combine(
    values: dict[str, NDArray[np.float64]] | None,
    support: NDArray[np.float64],
    primary: str,
    weight: float,
    nothing: NDArray[np.bool_],
) -> dict[str, NDArray[np.float64]]:
    """The values of a code-aware result: the reference's, ``code``, and ``combined``.

    Where a pair's code had ``nothing`` to match (no code token with weight), the code
    cannot judge its prediction: ``combined`` is the reference's value, so an empty
    method never punishes a perfect prediction.

    Examples
    --------
    >>> out = combine({"f1": np.array([1.0, 0.5])}, np.array([0.0, 0.7]), "f1", 0.5,
    ...               np.array([True, False]))
    >>> out["combined"].tolist()
    [1.0, 0.6]
    """
    if values is None:
        return {"code": support}
    mixed = (1.0 - weight) * values[primary] + weight * support
    return {**values, "code": support, "combined": np.where(nothing, values[primary], mixed)}


def corpus_inputs(
    corpus_dir: str | Path,
    predictions: str | Path,
    target: str,
    workdir: Path,
    *,
    code: bool = True,
) -> tuple[list[str], list[CodeItem], Path]:
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
    with gc_paused():
        return _corpus_inputs(corpus_dir, predictions, target, workdir, code)


def _corpus_inputs(
    corpus_dir: str | Path, predictions: str | Path, target: str, workdir: Path, code: bool
) -> tuple[list[str], list[CodeItem], Path]:
    import json

    from wrdscore.corpora import corpus_methods
    from wrdscore.corpora._corpus import method_items
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
    items: list[CodeItem] = [
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
