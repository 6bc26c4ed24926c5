"""Reading code items: each method's tokens as scoring reads them, and the predictions'.

A code item is a method's source, an object ``{"code": source, "name": name}``, a
corpus's :class:`~wrdscore.corpus_inputs.StoredCode` or None (unknown code). Reading is
:mod:`wrdscore.corpora`'s, one call per item (:func:`~wrdscore.corpora.read_method`, from
the source or a stored method's words); this module turns a batch of items into
:class:`ReadCode` once, for every metric that reads them alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, cast

import numpy as np

from wrdscore.corpora import MAX_CODE_CHARS, CodeTokens, code_token_ids
from wrdscore.corpus_inputs import StoredCode
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._tokenise import Prediction, Tokens, tokens_of
from wrdscore.metrics._validate import MAX_TOKENS, ItemError, check_text_sizes

#: One method's code: its source text, or ``{"code": source, "name": declared_name}``
#: (``name`` optional: the name to mask when the target is a name; by default the
#: name the source declares), a corpus's :class:`StoredCode`, or None where a
#: method's code is unknown (a corpus record whose declaration the parser could not
#: place): its support is then 0.
CodeItem = str | Mapping[str, Any] | StoredCode | None


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
    many were read unmasked (``allow_unmasked``: their name was not found declared).
    :func:`read_stored_codes` gives the tokens as :class:`CodeTokens`."""

    tokens: list[Tokens] | CodeTokens
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
    from wrdscore.corpora import UnmaskedCode, read_code_words, read_method

    out: list[Tokens] = []
    languages: list[str | None] = []
    unmasked = 0
    # The languages stored items were read in, each checked once.
    checked: dict[str, str] = {}
    for i, item in enumerate(code):
        # Strings and the objects of a --code file (a plain dict with a string "code")
        # without the general checks: this loop runs once per method.
        if item is None:
            out.append([])
            languages.append(None)
            continue
        if type(item) is StoredCode and strings == "drop" and item.words is not None:
            # What read_method does with stored words, without its MethodCode and the
            # two copies of the tokens (a third of reading OpenJDK's code, warm).
            languages.append(_stored_language(item, language, checked, offset + i))
            try:
                tokens = read_code_words(item.words, target=target, name=item.name,
                                         segmented=segmented)  # fmt: skip
            except WrdscoreError as exc:
                raise ItemError("code", offset + i, f"cannot be read: {exc}") from None
            out.append(tokens)
            continue
        words, read_in = None, language
        if type(item) is StoredCode:
            # What ingest read from the code: no parse under the default reading, in the
            # record's language (a parse tells it).
            source, name, words = item.code, item.name, item.words
            if strings == "drop":
                read_in = language or item.language
            elif source is None:
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
                language=read_in,
                words=words,
                segmented=segmented,
                allow_unmasked=allow_unmasked,
            )
        except UnmaskedCode as exc:
            raise ItemError("code", offset + i, exc.problem, allow=exc.allow) from None
        except WrdscoreError as exc:
            raise ItemError("code", offset + i, f"cannot be read: {exc}") from None
        out.append(list(read.tokens))
        languages.append(read.language)
        unmasked += read.unmasked is not None
    return ReadCode(out, languages, unmasked)


def _said_language(item: StoredCode, language: str | None) -> str:
    """The language a stored method is read in: ``language``, else its record's, else Java."""
    return language or item.language or "java"


def _checked_language(said: str, index: int) -> str:
    """``said`` if the toolkit reads it; an :class:`ItemError` at ``index`` if not."""
    # Imported here, and called once per language of a batch (an import per item,
    # through the package's lazy exports, cost more than reading the item).
    from wrdscore.corpora import check_language

    try:
        return check_language(said)
    except WrdscoreError as exc:
        raise ItemError("code", index, f"cannot be read: {exc}") from None


def _stored_language(
    item: StoredCode, language: str | None, checked: dict[str, str], index: int
) -> str:
    """:func:`_said_language` of one item, each language checked once per batch through
    ``checked``; an :class:`ItemError` at ``index`` for an unknown one."""
    said = _said_language(item, language)
    found = checked.get(said)
    if found is None:
        found = checked[said] = _checked_language(said, index)
    return found


def _stored_languages(
    code: Sequence[StoredCode | None], language: str | None, offset: int
) -> list[str | None]:
    """:func:`_said_language` of each stored item (None for unknown code), each distinct
    language checked once: a call per item was a quarter of reading OpenJDK's stored
    identifiers as token ids."""
    said = [None if item is None else _said_language(item, language) for item in code]
    for name in dict.fromkeys(said):
        if name is not None:
            # Named at its first item, as the per-item check names the first bad one.
            _checked_language(name, offset + said.index(name))
    return said


def read_stored_codes(
    code: Sequence[CodeItem],
    target: str,
    offset: int = 0,
    segmented: bool = False,
    language: str | None = None,
) -> ReadCode | None:
    """:func:`read_codes` under the default reading (``strings="drop"``) of a batch of a
    corpus's methods with stored identifiers (and unknown code, None), its tokens as
    token ids (:func:`~wrdscore.corpora.code_token_ids`: the same tokens,
    without a list of strings per method); None for a batch with any other item.

    Raises
    ------
    ItemError
        An item whose record's language is unknown, numbered from ``offset``.
    """
    if not all(
        item is None or (type(item) is StoredCode and item.words is not None) for item in code
    ):
        return None
    items = cast("list[StoredCode | None]", list(code))  # as checked above
    stored = [item for item in items if item is not None]
    languages = _stored_languages(items, language, offset)
    tokens = code_token_ids(
        [item.words for item in stored],
        [item.name if target == "name" else None for item in stored],
        segmented,
    )
    if len(stored) < len(code):
        # Unknown code has no tokens.
        at = np.flatnonzero([item is not None for item in code])
        offsets = np.zeros(len(code) + 1, dtype=np.int64)
        offsets[at + 1] = tokens.lengths()
        tokens = CodeTokens(tokens.ids, np.cumsum(offsets), tokens.vocabulary)
    return ReadCode(tokens, languages)


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
    check_text_sizes([], predictions, offset, (set(), set(map(type, predictions))))
    tokens = [tokens_of(p, "prediction", offset + i, split) for i, p in enumerate(predictions)]
    for i, t in enumerate(tokens):
        if len(t) > MAX_TOKENS:
            raise ItemError(
                "prediction",
                offset + i,
                f"has {len(t):,} sub-tokens, more than the {MAX_TOKENS:,} an item may have",
            )
    return tokens
