r"""Reading a method's code as the sub-tokens that code-aware scoring compares with.

A predicted name or summary is judged against its method's code (issue 25) by
comparing the prediction's sub-tokens with the code's. :func:`read_code` turns the
source text of one method (or any Java fragment) into those sub-tokens. It lexes the
snippet with tree-sitter-java, which reads a bare method, a whole class or a
fragment (a snippet that does not parse alone is parsed again inside a class; where
neither parses, tree-sitter's error recovery still classifies the tokens it can), and
keeps, in source order:

* **identifiers** (names of types, variables, fields, parameters, called methods,
  labels), each split into lower-case sub-tokens by
  :func:`~wrdscore.corpora.split_identifier` (``getUserName`` -> ``get user name``),
  exactly as names are split everywhere else in the toolkit;
* **string literals** (text blocks included) only with ``strings="keep"``: their
  words, split like identifiers (escapes such as ``\n`` separate words). The default
  ``"drop"`` leaves them out: messages, keys and formats say how the method reports
  rather than what it does, and the held-out signal found no gain in keeping them
  (mean AUC 0.827 against 0.825, a tie that goes to the simpler reading);

and drops

* **comments and Javadoc**, for both targets: a reference summary was taken from the
  Javadoc, so a summary would otherwise be scored against itself; for names, the
  held-out signal found that comments add nothing (``scripts/code_support_signal.py``:
  mean AUC 0.791 without them, 0.793 with them, a tie that goes to the simpler
  reading; docs/history.md);
* **Java keywords, operators, punctuation, number and character literals** and the
  literals ``true``, ``false`` and ``null``: they are in nearly every method
  (``return``, ``public``, ``if``, ``0``) and say nothing about what this one does,
  so they would only give every prediction the same free matches (keeping ``true``,
  ``false`` and ``null`` changed the held-out signal's mean AUC by 0.0001);
  identifiers spelled ``var`` or ``yield`` (contextual keywords) go with them;
* **annotation names** (``@Override``, ``@Test``): they describe the declaration,
  not what it does (the ``context`` field leaves them out for the same reason);
* with target ``"name"``, **the method's own declared name, everywhere**: the
  declaring identifier, recursive calls and the word in kept strings. Otherwise the
  code gives the answer away and the true name wins by being copied (on the held-out
  projects, unmasked code lifts the true name's mean AUC against its siblings from
  0.79 to 0.89). It is masked whole (an identifier or word equal to the name), so a
  field ``userName`` in ``getUserName`` still counts: that is evidence, not the
  answer. The name is ``name`` when given, else :func:`declared_name`.

Segmentation of run-together words is not done here: the metrics engine applies it
to every token list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain

from tree_sitter import Node, Query, QueryCursor

from wrdscore.corpora._context import (
    _CODE_SPACES,
    _DOC_SPACES,
    _HTML_TAG,
    _identifier_tokens,
    _word_tokens,
    _words,
)
from wrdscore.corpora._defaults import (
    DEFAULT_STRINGS,
    DEFAULT_TARGET,
    MAX_CODE_CHARS,
    STRING_POLICIES,
    TARGETS,
)
from wrdscore.corpora._languages import (
    WRAP_HEAD,
    WRAP_TAIL,
    check_language,
    clean_java,
    detect_language,
)
from wrdscore.corpora._treesitter import _LANGUAGE, warm_up
from wrdscore.errors import WrdscoreError

_CAPTURES = Query(
    _LANGUAGE,
    """
    (identifier) @id
    (type_identifier) @id
    (line_comment) @comment
    (block_comment) @comment
    (string_literal) @string
    (marker_annotation name: (_) @annotation)
    (annotation name: (_) @annotation)
    (true) @literal
    (false) @literal
    (null_literal) @literal
    """,
)
_DECLARED = Query(_LANGUAGE, "(method_declaration name: (identifier) @name)")


def _check(source: object) -> bytes:
    if not isinstance(source, str):
        raise WrdscoreError(f"code must be a string, not {type(source).__name__}")
    if not source.strip():
        raise WrdscoreError("empty code: a method's source is needed")
    if "\0" in source:
        raise WrdscoreError("binary code (contains NUL bytes)")
    if len(source) > MAX_CODE_CHARS:
        raise WrdscoreError(
            f"code of {len(source):,} characters is over the cap of {MAX_CODE_CHARS:,}"
        )
    return source.encode("utf-8", "replace")


def code_language(source: str, language: str | None = None) -> str:
    """The language ``source`` is read in: ``language`` if given, else the one a
    :class:`~wrdscore.corpora.SourceCode` says, else the one it is told to be in.

    Raises
    ------
    WrdscoreError
        An unknown ``language``, or code whose language cannot be told
        (:func:`~wrdscore.corpora._languages.detect_language`).
    """
    if language is not None:
        return check_language(language)
    said = getattr(source, "language", None)
    if isinstance(said, str):
        return said
    return detect_language(source)


def _language_and_parse(
    source: str, data: bytes, language: str | None
) -> tuple[str, tuple[Node, int, int] | None]:
    """The language to read ``source`` in, and its Java parse where that decided it.

    Code that Java parses cleanly is Java (the first rule of
    :func:`~wrdscore.corpora._languages.detect_language`): that is found by the parse
    reading it needs anyway, so Java costs one parse, as before other languages.
    """
    if language is None and not isinstance(getattr(source, "language", None), str):
        parsed = _parse(data)
        if clean_java(parsed[0], data):
            return "java", parsed
    return code_language(source, language), None


def _parse(data: bytes) -> tuple[Node, int, int]:
    """The parsed snippet's root and the byte range of the snippet in what was parsed."""
    parser = warm_up()
    root = parser.parse(data).root_node
    if not root.has_error:
        return root, 0, len(data)
    wrapped = parser.parse(WRAP_HEAD + data + WRAP_TAIL).root_node
    if not wrapped.has_error:
        return wrapped, len(WRAP_HEAD), len(WRAP_HEAD) + len(data)
    return root, 0, len(data)


def _inside(nodes: list[Node], start: int, end: int) -> Iterable[Node]:
    if start == 0:
        return nodes  # not wrapped: every node is the snippet's
    return [n for n in nodes if start <= n.start_byte and n.end_byte <= end]


def _first_declared(root: Node, start: int, end: int) -> str | None:
    names = _inside(QueryCursor(_DECLARED).captures(root).get("name", []), start, end)
    first = min(names, key=lambda n: n.start_byte, default=None)
    if first is not None:
        return _text(first)
    if not (root.has_error and root.text):
        return None
    base = root.start_byte  # the root's text starts after any leading whitespace
    return _declared_in_head(root.text[max(start - base, 0) : end - base])


# How many ``{`` a broken snippet's declaration head may be looked for before.
_HEAD_TRIES = 4


def _declared_in_head(data: bytes) -> str | None:
    """The name of a method whose body is broken (cut by the cap, or a fragment).

    The declaration's head, up to one of its first ``{``, is parsed again with an
    empty body; the first ``{`` that gives a clean method declaration is the body's.
    """
    parser = warm_up()
    brace = data.find(b"{")
    for _ in range(_HEAD_TRIES):
        if brace < 0:
            return None
        head = parser.parse(data[: brace + 1] + b"}").root_node
        if not head.has_error:
            names = QueryCursor(_DECLARED).captures(head).get("name", [])
            return _text(min(names, key=lambda n: n.start_byte)) if names else None
        brace = data.find(b"{", brace + 1)
    return None


def declared_name(source: str, language: str | None = None) -> str | None:
    """The name of the first (outermost) method declared in ``source``, if any.

    Parameters
    ----------
    source : str
        A method, a class or a fragment of code.
    language : str, optional
        Its language (default: :func:`code_language` detects it).

    Returns
    -------
    str or None
        ``None`` when ``source`` declares no method (a constructor is not one).

    Raises
    ------
    WrdscoreError
        For empty, binary or over-cap code.

    Examples
    --------
    >>> declared_name("int size() { return new Object() { int hash() { return 1; } }.hash(); }")
    'size'
    >>> declared_name("return x + 1;") is None
    True
    """
    data = _check(source)
    language, parsed = _language_and_parse(source, data, language)
    if language != "java":
        from wrdscore.corpora import _reader

        return _reader.declared_name(language, data)
    return _first_declared(*(parsed or _parse(data)))


def _text(node: Node) -> str:
    assert node.text is not None
    return node.text.decode("utf-8", "replace")


def read_code(
    source: str,
    *,
    target: str = DEFAULT_TARGET,
    name: str | None = None,
    strings: str = DEFAULT_STRINGS,
    language: str | None = None,
) -> list[str]:
    """The sub-tokens of a method's code that code-aware scoring reads.

    The rules (which tokens are kept, why, and how the name is masked) are in the
    module docstring, :mod:`wrdscore.corpora._code`, and on the docs' code-aware
    scoring page.

    Parameters
    ----------
    source : str
        The method's source text (at most :data:`MAX_CODE_CHARS` characters); a
        whole class or a fragment also works.
    target : {"name", "summary"}
        What the predictions are: ``"name"`` masks the method's declared name
        everywhere. (Comments are removed for both.)
    name : str, optional
        The name to mask with target ``"name"`` (default: :func:`declared_name`;
        nothing is masked when the code declares no method). Ignored for summaries.
    strings : {"drop", "keep"}
        Leave string literals out, or keep their words.
    language : str, optional
        The code's language, one of :data:`~wrdscore.corpora.LANGUAGES` (default: the
        language of a :class:`~wrdscore.corpora.SourceCode`, else told from the code:
        :func:`code_language`). Other languages than Java are read by the
        same rules through their own grammars (:mod:`wrdscore.corpora._reader`).

    Returns
    -------
    list of str
        Lower-case sub-tokens in source order (empty when the code has no words).

    Raises
    ------
    WrdscoreError
        One line, for empty code, binary code (NUL bytes), code over
        :data:`MAX_CODE_CHARS`, an unknown ``target``, ``strings`` or ``language``,
        or code whose language cannot be told.

    Examples
    --------
    >>> src = '''/** Gets the user's name, see {@link #getUserName}. */
    ... @Override public String getUserName() {
    ...     log("getUserName called"); // cheap
    ...     return userName == null ? getUserName() : userName;
    ... }'''
    >>> read_code(src)
    ['string', 'log', 'user', 'name', 'user', 'name']
    >>> read_code(src, target="summary", strings="keep")  # doctest: +NORMALIZE_WHITESPACE
    ['string', 'get', 'user', 'name', 'log', 'get', 'user', 'name', 'called',
     'user', 'name', 'get', 'user', 'name', 'user', 'name']
    >>> py = "def get_user_name(self, user_id):\\n    return self.users[user_id]"
    >>> read_code(py, language="python")
    ['user', 'id', 'users', 'user', 'id']
    """
    return _read(source, target=target, name=name, strings=strings, language=language)[0]


def read_code_and_language(
    source: str,
    *,
    target: str = DEFAULT_TARGET,
    name: str | None = None,
    strings: str = DEFAULT_STRINGS,
    language: str | None = None,
) -> tuple[list[str], str]:
    """:func:`read_code`, and the language the code was read in.

    Code-aware scoring needs both: the language's reserved words
    (:data:`~wrdscore.corpora.RESERVED_WORDS`), which reading drops, still count as
    words a prediction copied from the code. Telling the language costs nothing more
    here, where reading needs it anyway.

    Examples
    --------
    >>> read_code_and_language("def load_all(self, path):\\n    return open(path)")
    (['path', 'open', 'path'], 'python')
    """
    return _read(source, target=target, name=name, strings=strings, language=language)


def _read_code(
    source: str,
    *,
    target: str = DEFAULT_TARGET,
    name: str | None = None,
    strings: str = DEFAULT_STRINGS,
    comments: bool = False,
    literals: bool = False,
    language: str | None = "java",
) -> list[str]:
    """:func:`read_code`, with the rules the held-out signal chose between as options.

    ``comments`` (read the words of comments and Javadoc) and ``literals`` (keep
    ``true``, ``false``, ``null``) exist for ``scripts/code_support_signal.py``, which
    measured each candidate rule; :func:`read_code` is the chosen one. They read Java
    only: ``language`` defaults to it here.
    """
    return _read(
        source,
        target=target,
        name=name,
        strings=strings,
        comments=comments,
        literals=literals,
        language=language,
    )[0]


def _read(
    source: str,
    *,
    target: str,
    name: str | None,
    strings: str,
    comments: bool = False,
    literals: bool = False,
    language: str | None,
) -> tuple[list[str], str]:
    """The tokens :func:`_read_code` reads, and the language it read them in."""
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    if strings not in STRING_POLICIES:
        raise WrdscoreError(
            f"unknown string policy {strings!r}: choose one of {', '.join(STRING_POLICIES)}"
        )
    data = _check(source)
    language, parsed = _language_and_parse(source, data, language)
    if language != "java":
        from wrdscore.corpora import _reader

        masked = name if target == "name" and name is not None else None
        if target == "name" and masked is None:
            masked = _reader.declared_name(language, data)
        tokens = _reader.read(
            language,
            data,
            mask=masked.encode("utf-8", "replace") if masked else None,
            strings=strings,
        )
        return tokens, language
    root, start, end = parsed or _parse(data)
    captures = QueryCursor(_CAPTURES).captures(root)
    mask: bytes | None = None
    if target == "name":
        found = name if name is not None else _first_declared(root, start, end)
        mask = found.encode("utf-8", "replace") if found else None
    ids = _identifiers(captures, start, end)
    if not (comments or literals or strings == "keep"):
        # The chosen rule: the identifiers alone, masked and split.
        return _mask_split(_source_order(root, ids), mask), language
    pieces: list[tuple[int, list[str] | tuple[str, ...]]] = []
    words = _identifier_tokens
    for node in ids:
        text = node.text
        assert text is not None
        if text != mask:
            pieces.append((node.start_byte, words[text]))
    if comments:
        for node in _inside(captures.get("comment", []), start, end):
            assert node.text is not None
            plain = _HTML_TAG.sub(b" ", node.text).replace(b"&", b" &")
            pieces.append((node.start_byte, _tokens(_words(plain, _DOC_SPACES), mask)))
    if strings == "keep":
        for node in _inside(captures.get("string", []), start, end):
            assert node.text is not None
            pieces.append((node.start_byte, _tokens(_words(node.text, _CODE_SPACES), mask)))
    if literals:
        for node in _inside(captures.get("literal", []), start, end):
            pieces.append((node.start_byte, [_text(node)]))
    pieces.sort(key=lambda piece: piece[0])
    return list(chain.from_iterable(tokens for _, tokens in pieces)), language


def _identifiers(captures: dict[str, list[Node]], start: int, end: int) -> list[Node]:
    """The snippet's identifier nodes that the reader keeps (annotation names left out)."""
    ids = _inside(captures.get("id", []), start, end)
    annotated = captures.get("annotation")
    if annotated:
        # Only an identifier that starts before the last annotation's name ends can be
        # part of one: the others skip the walk up their parents.
        annotations = {(n.start_byte, n.end_byte) for n in annotated}
        last = max(e for _, e in annotations)
        ids = [n for n in ids if n.start_byte >= last or not _annotated(n, annotations)]
    return list(ids)


def _source_order(root: Node, ids: list[Node]) -> list[bytes]:
    """The identifiers' text in source order (the query gives them in pattern order).

    Slices of the parsed bytes, not each node's text: half the cost per identifier.
    """
    parsed = root.text
    assert parsed is not None
    # The root's text starts where the root does, after any leading whitespace, while
    # byte ranges count from the start of what was parsed.
    base = root.start_byte
    return [parsed[at - base : stop - base] for at, stop in sorted(n.byte_range for n in ids)]


class _SegmentedWordTokens(dict[bytes, list[str]]):
    """An identifier's sub-tokens with run-together words segmented, memoised per
    identifier: segmentation works token by token, so segmenting each identifier's
    tokens once gives what segmenting the whole method's tokens would, for a lookup."""

    def __missing__(self, word: bytes) -> list[str]:
        from wrdscore.corpora._segment import segment

        value = self[word] = segment(list(_identifier_tokens[word]))
        return value


_segmented_word_tokens = _SegmentedWordTokens()


def _mask_split(words: Iterable[bytes], mask: bytes | None, segmented: bool = False) -> list[str]:
    """The sub-tokens of ``words`` (identifiers), leaving out those equal to ``mask``.

    The second half of the default reading, shared by :func:`read_code` and
    :func:`read_code_words`, so that both give the same tokens.
    """
    tokens: Mapping[bytes, Sequence[str]] = (
        _segmented_word_tokens if segmented else _identifier_tokens
    )
    out: list[str] = []
    for word in words:
        if word != mask:
            out += tokens[word]
    return out


def code_words(source: str, language: str = "java") -> str | None:
    """The identifiers :func:`read_code` reads by default, before masking and splitting.

    ``wrdscore ingest`` stores them with each method (the record's ``code_words``), so
    that scoring a corpus against its code need not parse every method again: what
    tree-sitter costs is most of the time of reading code (docs/code.md, Speed).

    Parameters
    ----------
    source : str
        The method's source text, as :func:`read_code` takes it.

    Returns
    -------
    str or None
        The raw identifiers (annotation names left out, the declared name kept) in
        source order, joined by single spaces (no identifier holds one), or ``None``
        where :func:`read_code` would refuse the code or the identifiers are not valid
        UTF-8: then the code is parsed when it is scored, and refused there.

    Examples
    --------
    >>> code_words("@Override int getX() { return this.x + y; }")
    'getX x y'
    >>> read_code_words('getX x y', target="name", name="getX")
    ['x', 'y']
    """
    try:
        data = _check(source)
    except WrdscoreError:
        return None
    if language != "java":
        from wrdscore.corpora import _reader

        found = _reader.identifier_words(language, data)
        try:
            return " ".join(w.decode("utf-8") for w in found)
        except UnicodeDecodeError:
            return None
    root, start, end = _parse(data)
    words = _source_order(root, _identifiers(QueryCursor(_CAPTURES).captures(root), start, end))
    try:
        return " ".join(w.decode("utf-8") for w in words)
    except UnicodeDecodeError:
        return None


def read_code_words(
    words: str, *, target: str, name: str | None, segmented: bool = False
) -> list[str]:
    """:func:`read_code` of a method under the default reading, from its :func:`code_words`.

    ``read_code_words(code_words(source), target=t, name=n)`` equals
    ``read_code(source, target=t, name=n)`` (``strings="drop"``) whenever
    :func:`code_words` gives words, and costs a few microseconds instead of a parse.
    With target ``"name"``, ``name`` is masked (``None``: nothing is masked; a corpus
    gives the record's name). ``segmented`` also splits run-together words, as
    :func:`~wrdscore.corpora.segment` of the result would, memoised per identifier.

    Raises
    ------
    WrdscoreError
        An unknown ``target``.
    """
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    mask = name.encode("utf-8", "replace") if target == "name" and name else None
    return _mask_split(words.encode("utf-8").split(b" ") if words else (), mask, segmented)


def _annotated(node: Node, annotations: set[tuple[int, int]]) -> bool:
    """Whether ``node`` is (part of) an annotation's name, such as ``Override``."""
    parent = node.parent
    # ``@Override`` names an identifier; ``@javax.annotation.Nullable`` a scoped one.
    while parent is not None and parent.type == "scoped_identifier":
        node, parent = parent, parent.parent
    return (node.start_byte, node.end_byte) in annotations


def _tokens(words: list[bytes], mask: bytes | None) -> list[str]:
    return list(chain.from_iterable(_word_tokens[w] for w in words if w != mask))
