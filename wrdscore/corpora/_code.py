r"""Reading a method's code as the sub-tokens that code-aware scoring compares with.

A predicted name or summary is judged against its method's code (issue 25) by
comparing the prediction's sub-tokens with the code's. :func:`read_method` reads the
source text of one method (or any fragment) once, in its language, and gives all that
scoring needs: those sub-tokens, the language, the name masked, the identifiers and the
documentation kept apart (:class:`MethodCode`); :func:`read_code` gives the sub-tokens
alone. Every language is read by one reader (:mod:`wrdscore.corpora._reader`) through
the grammar table (:mod:`wrdscore.corpora._languages`), by rules set for Java. Java is
lexed with tree-sitter-java, which reads a bare method, a whole class or a fragment (a
snippet that does not parse alone is parsed again inside a class; where neither parses,
tree-sitter's error recovery still classifies the tokens it can, each read as the whole
word it is in), and keeps, in source order:

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
  answer. The name is ``name`` when given, else :func:`declared_name`. Masking
  never fails silently: :func:`read_method` refuses code that, read in its language,
  declares no function, or not the ``name`` given (a wrong language, a wrong name),
  unless told to read it unmasked (``allow_unmasked``), which it then says.

Segmentation of run-together words is not done here: the metrics engine applies it
to every token list.
"""

from __future__ import annotations

from typing import NamedTuple

from tree_sitter import Node

from wrdscore.corpora import _reader
from wrdscore.corpora._defaults import (
    DEFAULT_STRINGS,
    DEFAULT_TARGET,
    MAX_CODE_CHARS,
    RESERVED_WORDS,
    STRING_POLICIES,
    TARGETS,
)
from wrdscore.corpora._languages import (
    check_language,
    clean_java,
    detect_language,
    snippet_root,
)
from wrdscore.errors import WrdscoreError


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


def _check_options(target: str, strings: str) -> None:
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    if strings not in STRING_POLICIES:
        raise WrdscoreError(
            f"unknown string policy {strings!r}: choose one of {', '.join(STRING_POLICIES)}"
        )


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


def _tree(source: str, data: bytes, language: str | None) -> _reader.Tree:
    """``source`` parsed in its language (``language``, a
    :class:`~wrdscore.corpora.SourceCode`'s, or told from the code).

    Code that Java parses cleanly is Java (the first rule of
    :func:`~wrdscore.corpora._languages.detect_language`): that is found by the parse
    reading it needs anyway, so Java costs one parse, as before other languages.
    """
    if language is None and not isinstance(getattr(source, "language", None), str):
        parsed = snippet_root("java", data)
        if clean_java(parsed[0], data):
            return _reader.parse("java", data, parsed)
    return _reader.parse(code_language(source, language), data)


#: How code whose name cannot be masked is read all the same, said after the refusal.
ALLOW_UNMASKED = "allow it unmasked (--allow-unmasked)"


class UnmaskedCode(WrdscoreError):
    """Code refused because its name cannot be masked (:func:`read_method`).

    ``problem`` says why, with the remedy every caller has (its language); the message
    ends with ``allow``, how to read it unmasked all the same (the option of ``score``,
    ``compare`` and ``explain``), which a caller without that option leaves out (a
    study: :meth:`wrdscore.metrics.base.ItemError.without_allow`).
    """

    def __init__(self, problem: str) -> None:
        super().__init__(f"{problem} or {ALLOW_UNMASKED}")
        self.problem, self.allow = problem, ALLOW_UNMASKED


class MethodCode(NamedTuple):
    """What code-aware scoring reads from one method's code (:func:`read_method`).

    Immutable, as a frozen dataclass would be, and a tuple because one is made per
    method of a corpus read from its stored words, where a frozen dataclass cost 5 us a
    method against 0.6 us (as much again as the reading itself).

    Attributes
    ----------
    language : str
        The language it was read in (:data:`~wrdscore.corpora.LANGUAGES`).
    tokens : tuple of str
        The lower-case sub-tokens scoring compares with, in source order, the
        ``masked`` name left out (:func:`read_code`).
    masked : str or None
        The name masked (target ``"name"``), or None where nothing was (target
        ``"summary"``). Where ``unmasked`` says why the name could not be found
        declared, the name given, masked wherever it occurs (if at all), or None.
    words : str or None
        The identifiers before masking and splitting, in source order, joined by
        single spaces (:func:`code_words`; what ingest stores); None where they are
        not valid UTF-8.
    docstring : str or None
        The documentation of the declared function as written (Javadoc, a docstring,
        the comments before it), kept apart from the tokens; None where it has none,
        or where the code was not parsed (read from stored words).
    unmasked : str or None
        Why the name could not be masked, where code was read unmasked because
        ``allow_unmasked`` said so; None otherwise.
    """

    language: str
    tokens: tuple[str, ...]
    masked: str | None
    words: str | None
    docstring: str | None = None
    unmasked: str | None = None

    @property
    def reserved(self) -> frozenset[str]:
        """The words the language reserves (:data:`~wrdscore.corpora.RESERVED_WORDS`):
        reading drops them, yet a prediction made of them copied them from the code."""
        return RESERVED_WORDS.get(self.language, frozenset())


def read_method(
    source: str | None = None,
    *,
    target: str = DEFAULT_TARGET,
    name: str | None = None,
    strings: str = DEFAULT_STRINGS,
    language: str | None = None,
    words: str | None = None,
    segmented: bool = False,
    allow_unmasked: bool = False,
) -> MethodCode:
    """Read one method's code for code-aware scoring: everything scoring needs, once.

    The rules (which tokens are kept, why, and how the name is masked) are in the
    module docstring, :mod:`wrdscore.corpora._code`, and on the docs' code-aware
    scoring page.

    Parameters
    ----------
    source : str, optional
        The method's source text (at most :data:`MAX_CODE_CHARS` characters); a
        whole class or a fragment also works. Needed unless ``words`` are given and
        ``strings`` is ``"drop"``.
    target : {"name", "summary"}
        What the predictions are: ``"name"`` masks the method's name everywhere.
    name : str, optional
        The name to mask with target ``"name"`` (default: the first one the code
        declares). Ignored for summaries.
    strings : {"drop", "keep"}
        Leave string literals out, or keep their words.
    language : str, optional
        The code's language (default: a :class:`~wrdscore.corpora.SourceCode`'s,
        else told from the code: :func:`code_language`); with ``words``, the
        language they were read in (default Java).
    words : str, optional
        The identifiers ingest stored for the method (a corpus record's
        ``code_words``): under ``strings="drop"`` they are read instead of parsing
        ``source``, with the same tokens, masking ``name``, which ingest found
        declared.
    segmented : bool
        Also split run-together words (:func:`~wrdscore.corpora.segment`).
    allow_unmasked : bool
        Read code whose name cannot be found declared as before masking was checked
        (``name`` masked wherever it occurs, or nothing), saying why in
        :attr:`MethodCode.unmasked`, instead of refusing it.

    Returns
    -------
    MethodCode

    Raises
    ------
    WrdscoreError
        One line, for empty, binary or over-cap code, an unknown ``target``,
        ``strings`` or ``language``, code whose language cannot be told, and, with
        target ``"name"`` and without ``allow_unmasked``, code that read in its
        language declares no function, or not ``name``: its name would not be masked,
        and the true name would win by being copied.

    Examples
    --------
    >>> m = read_method("/** Counts. */ int size() { return count; }")
    >>> m.language, m.tokens, m.masked, m.words, m.docstring, "int" in m.reserved
    ('java', ('count',), 'size', 'size count', '/** Counts. */', True)
    >>> read_method("int size() { return count; }", language="python")
    Traceback (most recent call last):
    ...
    wrdscore.corpora._code.UnmaskedCode: cannot be masked: read as python, it declares no \
function or method (is python its language?); give its language or allow it unmasked \
(--allow-unmasked)
    >>> read_method("int size() { return count; }", language="python",
    ...             allow_unmasked=True).tokens
    ('int', 'size', 'count')
    """
    if words is not None and strings == "drop":
        # What ingest read from the code: no parse (the time of reading code). Once per
        # method of a corpus: nothing more than the split (which checks the target).
        return MethodCode(
            check_language(language or "java"),
            tuple(read_code_words(words, target=target, name=name, segmented=segmented)),
            name if target == "name" else None,
            words,
        )
    return _read_method(
        source,
        target=target,
        name=name,
        strings=strings,
        language=language,
        segmented=segmented,
        allow_unmasked=allow_unmasked,
    )


def _read_method(
    source: str | None,
    *,
    target: str,
    name: str | None,
    strings: str,
    language: str | None,
    segmented: bool = False,
    allow_unmasked: bool = False,
    comments: bool = False,
    literals: bool = False,
) -> MethodCode:
    """:func:`read_method` of a parse, with the readings the held-out signal measured as
    options (``comments``, ``literals``: see :func:`_read_code`)."""
    _check_options(target, strings)
    if source is None:
        raise WrdscoreError("no code to read: give its source")
    tree = _tree(source, _check(source), language)
    language = tree.grammar.name
    declared = _reader.declarations(tree)
    masked, unmasked = None, None
    if target == "name":
        masked, unmasked = _mask(tree, declared, name)
        if unmasked is not None and not allow_unmasked:
            raise UnmaskedCode(f"{unmasked}; give its language")
    ids = _reader.identifiers(tree)
    tokens = _reader.read(
        tree,
        ids,
        mask=masked.encode("utf-8", "replace") if masked else None,
        strings=strings,
        comments=comments,
        literals=literals,
    )
    if segmented:
        from wrdscore.corpora._segment import segment

        tokens = segment(tokens)
    # The documentation of the function masked, else of the first one declared.
    function = next((f for f, n in declared if _name(n) == masked), None)
    if function is None and declared:
        function = declared[0][0]
    return MethodCode(
        language,
        tuple(tokens),
        masked,
        _joined(w for _, w in ids),
        None if function is None else _reader.documentation(tree.grammar, function),
        unmasked,
    )


def _name(node: Node) -> str:
    assert node.text is not None
    return node.text.decode("utf-8", "replace")


def _mask(
    tree: _reader.Tree, declared: list[tuple[Node, Node]], name: str | None
) -> tuple[str | None, str | None]:
    """The name to mask, and why it cannot be trusted, if it cannot: the code, read in
    its language, declares no function, or not ``name``. (Then the name is ``name``,
    masked wherever it occurs, as before masking was checked, or None.)"""
    language = tree.grammar.name
    names = [_name(n) for _, n in declared]
    if not names:
        head = _reader.declared_in_head(tree)
        names = [] if head is None else [head]
    if name is None and names:
        return names[0], None
    if name is not None and name in names:
        return name, None
    if not names:
        return name, (
            f"cannot be masked: read as {language}, it declares no function or method "
            f"(is {language} its language?)"
        )
    return name, (
        f"cannot be masked: read as {language}, it declares {_listed(names)}, not the "
        f"name {name!r} given (is that its name?)"
    )


def _listed(names: list[str]) -> str:
    first = ", ".join(repr(n) for n in dict.fromkeys(names[:3]))
    return first + (", ..." if len(set(names)) > 3 else "")


def _joined(words: object) -> str | None:
    try:
        return b" ".join(words).decode("utf-8")  # type: ignore[arg-type]
    except UnicodeDecodeError:
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
    tree = _tree(source, _check(source), language)
    first = next(iter(_reader.declarations(tree)), None)
    return _reader.declared_in_head(tree) if first is None else _name(first[1])


def read_code(
    source: str,
    *,
    target: str = DEFAULT_TARGET,
    name: str | None = None,
    strings: str = DEFAULT_STRINGS,
    language: str | None = None,
) -> list[str]:
    """The sub-tokens of a method's code that code-aware scoring reads.

    :attr:`MethodCode.tokens` of :func:`read_method`, except that code whose name
    cannot be masked is read unmasked, not refused (nothing is masked when the code
    declares no method): scoring refuses it, this reader of fragments does not.

    Parameters
    ----------
    source : str
        The method's source text (at most :data:`MAX_CODE_CHARS` characters); a
        whole class or a fragment also works.
    target : {"name", "summary"}
        What the predictions are: ``"name"`` masks the method's declared name
        everywhere. (Comments are removed for both.)
    name : str, optional
        The name to mask with target ``"name"`` (default: :func:`declared_name`).
        Ignored for summaries.
    strings : {"drop", "keep"}
        Leave string literals out, or keep their words.
    language : str, optional
        The code's language, one of :data:`~wrdscore.corpora.LANGUAGES` (default: the
        language of a :class:`~wrdscore.corpora.SourceCode`, else told from the code:
        :func:`code_language`). Every language is read by the same rules through its
        own grammar (:mod:`wrdscore.corpora._reader`).

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
    return _read_code(source, target=target, name=name, strings=strings, language=language)


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
    words a prediction copied from the code. :func:`read_method` gives both, and more.

    Examples
    --------
    >>> read_code_and_language("def load_all(self, path):\\n    return open(path)")
    (['path', 'open', 'path'], 'python')
    """
    read = _read_method(
        source, target=target, name=name, strings=strings, language=language, allow_unmasked=True
    )
    return list(read.tokens), read.language


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
    measured each candidate rule; :func:`read_code` is the chosen one. The signal read
    Java only: ``language`` defaults to it here.
    """
    read = _read_method(
        source,
        target=target,
        name=name,
        strings=strings,
        language=language,
        allow_unmasked=True,
        comments=comments,
        literals=literals,
    )
    return list(read.tokens)


def code_words(source: str, language: str = "java") -> str | None:
    """The identifiers :func:`read_code` reads by default, before masking and splitting.

    ``wrdscore ingest`` stores them with each method (the record's ``code_words``), so
    that scoring a corpus against its code need not parse every method again: what
    tree-sitter costs is most of the time of reading code (docs/code.md, Speed).

    Parameters
    ----------
    source : str
        The method's source text, as :func:`read_code` takes it.
    language : str
        Its language (default Java).

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
    return _joined(_reader.identifier_words(language, data))


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
    return _reader.mask_split(words.encode("utf-8").split(b" ") if words else (), mask, segmented)
