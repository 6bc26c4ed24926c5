"""The pure per-file step: a source file's bytes in, method records and a status out.

:func:`extract_file` touches no global state beyond a cached parser, so a process
pool (or any distributed executor) can map it over files.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wrdscore.corpora._code import code_words
from wrdscore.corpora._defaults import MAX_CODE_CHARS, PARSERS
from wrdscore.corpora._javalang import extract_javalang
from wrdscore.corpora._languages import GRAMMARS
from wrdscore.corpora._scope import (
    MethodFound,
    ParseFailure,
    lf_line_breaks,
    lf_line_breaks_bytes,
)
from wrdscore.corpora._tokenize import split_identifier
from wrdscore.corpora._treesitter import extract_treesitter

PARSED = "parsed"
FALLBACK = "fallback"
FAILED = "failed"
BINARY = "binary"


class FileResult(NamedTuple):
    """What :func:`extract_file` found in one file.

    Attributes
    ----------
    status : str
        ``"parsed"`` (the chosen parser read it cleanly), ``"fallback"`` (only the
        other parser did), ``"failed"`` (neither did) or ``"binary"`` (NUL bytes:
        not a text file, not parsed).
    records : list of dict
        ``name``, ``tokens``, ``type``, ``line``, ``summary``, ``context`` (the
        context's sub-tokens joined by single spaces), ``code`` (the method's source
        text, capped by :func:`capped_code`; empty where the parser could not place
        it), ``code_words`` (its :func:`~wrdscore.corpora._code.code_words`, None
        where there are none) and ``code_truncated`` (whether the cap cut it) per
        method, in source order.
    reason : str or None
        Why the file failed or was skipped.
    non_utf8 : bool
        The bytes were not valid UTF-8 and were decoded with U+FFFD replacements.
    """

    status: str
    records: list[dict[str, Any]]
    reason: str | None
    non_utf8: bool


def other_parser(parser: str) -> str:
    """The fallback of ``parser``: the other one of :data:`PARSERS`."""
    return PARSERS[1 - PARSERS.index(parser)]


def _run(parser: str, data: bytes, text: str) -> tuple[list[MethodFound], ParseFailure | None]:
    if parser == "tree-sitter":
        return extract_treesitter(data)
    return extract_javalang(text, data)


def capped_code(code: str) -> tuple[str, bool]:
    """``code`` cut to at most :data:`MAX_CODE_CHARS` characters, and whether it was cut.

    A longer method keeps its lines up to the last line break within the cap (its
    first :data:`MAX_CODE_CHARS` characters if that one long line is longer), so no
    identifier is cut in two unless a single line is over the cap.

    Examples
    --------
    >>> capped_code("int f() {}")
    ('int f() {}', False)
    >>> code, cut = capped_code("void f() {\\n" + "  g();\\n" * 5000 + "}")
    >>> cut, len(code) <= MAX_CODE_CHARS, code.endswith("g();\\n")
    (True, True, True)
    """
    if len(code) <= MAX_CODE_CHARS:
        return code, False
    line_end = code.rfind("\n", 0, MAX_CODE_CHARS) + 1
    return code[: line_end or MAX_CODE_CHARS], True


def _records(methods: list[MethodFound], language: str = "java") -> list[dict[str, Any]]:
    records = []
    for m in methods:
        code, cut = capped_code(m.code)
        record = {
            "name": m.name,
            "tokens": split_identifier(m.name),
            "type": m.type,
            "line": m.line,
            "summary": m.summary,
            # One string: a list of hundreds of JSON strings per record costs three
            # times as much to decode, and training reads the corpus once per epoch.
            "context": " ".join(m.context),
            "code": code,
            # Read once here, so scoring against the code need not parse it again.
            "code_words": code_words(code, language) if code else None,
            "code_truncated": cut,
        }
        if language != "java":
            # Only other languages say theirs: a Java corpus stays byte for byte as it
            # was (its rebuild is hashed).
            record["language"] = language
        records.append(record)
    return records


def extract_file(
    data: bytes, parser: str = "tree-sitter", fallback: bool = True, language: str = "java"
) -> FileResult:
    """Extract the method records of one source file.

    The file is decoded as UTF-8 (invalid bytes become U+FFFD and the file is
    flagged; a byte-order mark is dropped) and parsed with ``parser``. If that
    parser reports a syntax error and ``fallback`` is on, the other parser is
    tried and its records are used when it succeeds. When neither parses the file
    cleanly, the file is ``"failed"`` and gives no records: tree-sitter's error
    recovery can lose the enclosing class, so its partial results would carry
    wrong ``type`` values.

    Parameters
    ----------
    data : bytes
        The file's contents.
    parser : {"tree-sitter", "javalang"}
        The parser to try first.
    fallback : bool
        Try the other parser when the first one fails.
    language : str
        The file's language (:data:`~wrdscore.corpora.LANGUAGES`). A language without
        extractors of its own in the table (every one but Java:
        :attr:`~wrdscore.corpora._languages.Grammar.extractors`) is read with its
        tree-sitter grammar only (``parser`` and ``fallback`` are Java's), its functions
        and methods as Java's methods, each record with a ``language`` key.

    Returns
    -------
    FileResult

    Examples
    --------
    >>> r = extract_file(b"class A { /** Gets x. */ int getX() { return 1; } }")
    >>> r.status, [(m["name"], m["tokens"], m["type"], m["line"], m["summary"]) for m in r.records]
    ('parsed', [('getX', ['get', 'x'], 'A', 1, 'Gets x.')])
    >>> extract_file(b"record R(int x) { int twice() { return 2 * x; } }", "javalang").status
    'fallback'
    >>> py = extract_file(b'def get_name(self):\\n    "Get the name."\\n', language="python")
    >>> [(m["name"], m["tokens"], m["summary"], m["language"]) for m in py.records]
    [('get_name', ['get', 'name'], 'Get the name.', 'python')]
    """
    if parser not in PARSERS:
        raise ValueError(f"parser must be one of {PARSERS}, not {parser!r}")
    if b"\0" in data:
        return FileResult(BINARY, [], "binary file (contains NUL bytes)", False)
    try:
        text = data.decode("utf-8")
        non_utf8 = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        data = text.encode("utf-8")
        non_utf8 = True
    if text.startswith("\ufeff"):
        text, data = text[1:], data[3:]
    # Once for both parsers: Java ends lines at CR, LF or CRLF; the parsers count LFs.
    text, data = lf_line_breaks(text), lf_line_breaks_bytes(data)

    if not GRAMMARS[language].extractors:
        from wrdscore.corpora._context import CONTEXT_MAX_TOKENS
        from wrdscore.corpora._reader import extract

        found, problem = extract(language, data, CONTEXT_MAX_TOKENS)
        if problem is None:
            return FileResult(PARSED, _records(found, language), None, non_utf8)
        # As for Java: error recovery can lose a class, so no partial records.
        return FileResult(FAILED, [], str(problem), non_utf8)
    methods, failure = _run(parser, data, text)
    if failure is None:
        return FileResult(PARSED, _records(methods), None, non_utf8)
    failures = [failure]
    if fallback:
        other_methods, other_failure = _run(other_parser(parser), data, text)
        if other_failure is None:
            return FileResult(FALLBACK, _records(other_methods), None, non_utf8)
        failures.append(other_failure)
    return FileResult(FAILED, [], "; ".join(map(str, failures)), non_utf8)
