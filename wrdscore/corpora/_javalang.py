"""Method extraction with javalang: pure Python, Java 8 grammar."""

from __future__ import annotations

import re
from importlib.metadata import version
from typing import Any, AnyStr

import javalang
from javalang import tree as jt

from wrdscore.corpora._context import context_tokens, declaration_span
from wrdscore.corpora._javadoc import first_sentence
from wrdscore.corpora._scope import (
    ANONYMOUS,
    CONSTRUCTOR,
    MethodFound,
    ParseFailure,
    method_source,
)

_NAMED = (
    jt.ClassDeclaration,
    jt.InterfaceDeclaration,
    jt.EnumDeclaration,
    jt.AnnotationDeclaration,
    jt.MethodDeclaration,
)


def parser_version() -> str:
    """Version of the parser package, for the manifest."""
    return f"javalang {version('javalang')}"


def _scope(path: tuple[Any, ...]) -> str:
    """Dotted scope from javalang's ancestor path (nodes interleaved with child lists)."""
    parts = []
    for i, node in enumerate(path):
        if isinstance(node, _NAMED):
            parts.append(node.name)
        elif isinstance(node, jt.ConstructorDeclaration):
            parts.append(CONSTRUCTOR)
        elif isinstance(node, jt.EnumConstantDeclaration) and node.body:
            parts.append(node.name)
        # An anonymous class only when the method is inside its body, not an argument.
        elif (
            # ``new A() {...}``, and ``outer.new Inner() {...}`` (an InnerClassCreator).
            isinstance(node, (jt.ClassCreator, jt.InnerClassCreator))
            and node.body
            and i + 1 < len(path)
            and path[i + 1] is node.body
        ):
            parts.append(ANONYMOUS)
    return ".".join(parts)


# javalang decodes these before it counts columns (even after another backslash).
_UNICODE_ESCAPE = re.compile(r"\\u+[0-9A-Fa-f]{4}")


class _Offsets:
    """Byte offsets of javalang's (line, column) positions in one file."""

    def __init__(self, text: str, data: bytes) -> None:
        # javalang counts lines at "\n" only, and columns in characters from 1,
        # after decoding Unicode escapes.
        self.text, self.data = text, data
        self.ascii = text.isascii()
        self.line_bytes = _line_starts(data)
        self.line_chars = self.line_bytes if self.ascii else _line_starts(text)

    def __call__(self, line: int, column: int) -> int:
        """The byte offset, or -1 past the end (lines counted with escaped breaks)."""
        if not 0 < line <= len(self.line_chars):
            return -1
        chars = self.line_chars[line - 1]
        end = self.text.find("\n", chars)
        raw = self.text[chars : end if end >= 0 else len(self.text)]
        at = _raw_index(raw, column - 1) if "\\u" in raw else column - 1
        if self.ascii:
            return self.line_bytes[line - 1] + at
        return self.line_bytes[line - 1] + len(raw[:at].encode("utf-8"))


def _raw_index(raw: str, decoded: int) -> int:
    """Index in ``raw`` of the character at ``decoded`` once escapes are decoded."""
    at = seen = 0
    for escape in _UNICODE_ESCAPE.finditer(raw):
        plain = escape.start() - at
        if seen + plain > decoded:
            break
        seen += plain + 1
        at = escape.end()
    return at + decoded - seen


def _line_starts(text: AnyStr) -> list[int]:
    """Where each line of ``text`` starts (0 first), in its own units: chars or bytes."""
    newline = b"\n" if isinstance(text, bytes) else "\n"
    starts, at = [0], text.find(newline)
    while at >= 0:
        starts.append(at + 1)
        at = text.find(newline, at + 1)
    return starts


def _context_and_code(node: jt.MethodDeclaration, offsets: _Offsets) -> tuple[list[str], str]:
    """The method's context and source text, read from where javalang says it starts.

    javalang reports the position after the modifiers; the name and the end are
    found from there, and the source text starts at the first annotation or
    modifier before it (:func:`_code_start`). Where that position cannot be trusted
    (a Unicode escape of a line break before it shifts javalang's line count), the
    name found there differs from the method's: then only the Javadoc gives context
    and the source text is empty, rather than words taken from the wrong place.
    """
    start = offsets(node.position.line, node.position.column) if node.position else -1
    span = declaration_span(offsets.data, start) if start >= 0 else None
    javadoc = node.documentation.encode("utf-8") if node.documentation else None
    if span is not None:
        name_at, name_end, end = span
        if offsets.data[name_at:name_end].decode("utf-8", "replace") == node.name:
            context = context_tokens(offsets.data, start, end, name_at, name_end, javadoc)
            code_at = _code_start(node, offsets, start)
            return context, method_source(offsets.data, code_at, end)
    return context_tokens(b"", 0, 0, 0, 0, javadoc), ""


# A modifier word ending right before an offset (white space between).
_MODIFIER_BEFORE = re.compile(rb"(?<![\w$])([a-z]+)\s+\Z")


def _code_start(node: jt.MethodDeclaration, offsets: _Offsets, start: int) -> int:
    """Where the declaration starting at ``start`` begins with its annotations and modifiers.

    javalang places annotations but not modifiers: the declaration starts at its
    first annotation, or earlier at the modifiers written before it, which are
    found by walking back over the words of ``node.modifiers`` (only those, and at
    most that many, so a word in a comment before the method is never taken).
    """
    for annotation in node.annotations:
        at = offsets(*annotation.position) if annotation.position else -1
        if 0 <= at < start:
            start = at
    modifiers = set(node.modifiers)
    for _ in range(len(modifiers)):
        word = _MODIFIER_BEFORE.search(offsets.data, max(0, start - 64), start)
        if word is None or word.group(1).decode("ascii") not in modifiers:
            break
        start = word.start()
    return start


def _failure(exc: Exception) -> ParseFailure:
    if isinstance(exc, javalang.parser.JavaSyntaxError):
        at = exc.at
        where = f"line {at.position.line}: " if getattr(at, "position", None) else ""
        return ParseFailure(
            "javalang", f"{where}{exc.description or 'syntax error'} at {at.value!r}"
        )
    if isinstance(exc, javalang.tokenizer.LexerError):
        return ParseFailure("javalang", f"lexer error: {exc}")
    # javalang has crash bugs on some inputs (deep nesting, odd tokens); the file is
    # still reported, with the exception's type, rather than aborting the whole run.
    return ParseFailure("javalang", f"{type(exc).__name__}: {exc}")


def extract_javalang(
    text: str, data: bytes | None = None
) -> tuple[list[MethodFound], ParseFailure | None]:
    """Find every method declaration in one Java file.

    javalang either parses a whole file or fails; on failure no methods are returned.
    ``line`` is where javalang places the declaration: the line of its return type.

    Parameters
    ----------
    text : str
        The Java source (lines ending in LF or CRLF: :func:`extract_file` has made
        lone CRs LFs).
    data : bytes, optional
        ``text`` encoded as UTF-8, if the caller has it.

    Returns
    -------
    methods : list of MethodFound
        In source order.
    failure : ParseFailure or None
        Why the file could not be parsed, or ``None``.

    Examples
    --------
    >>> methods, failure = extract_javalang("class A { int getX() { return 1; } }")
    >>> [(m.name, m.type, m.line) for m in methods], failure
    ([('getX', 'A', 1)], None)
    """
    try:
        unit = javalang.parse.parse(text)
        found = [(_scope(path), node) for path, node in unit.filter(jt.MethodDeclaration)]
    except Exception as exc:
        return [], _failure(exc)
    offsets = _Offsets(text, text.encode("utf-8") if data is None else data)
    methods = [
        MethodFound(
            node.name,
            scope,
            node.position.line if node.position else 0,
            first_sentence(node.documentation),
            *_context_and_code(node, offsets),
        )
        for scope, node in found
    ]
    return methods, None
