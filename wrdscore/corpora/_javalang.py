"""Method extraction with javalang: pure Python, Java 8 grammar."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import javalang
from javalang import tree as jt

from wrdscore.corpora._javadoc import first_sentence
from wrdscore.corpora._scope import ANONYMOUS, CONSTRUCTOR, MethodFound, ParseFailure

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
            isinstance(node, jt.ClassCreator)
            and node.body
            and i + 1 < len(path)
            and path[i + 1] is node.body
        ):
            parts.append(ANONYMOUS)
    return ".".join(parts)


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


def extract_javalang(text: str) -> tuple[list[MethodFound], ParseFailure | None]:
    """Find every method declaration in one Java file.

    javalang either parses a whole file or fails; on failure no methods are returned.
    ``line`` is where javalang places the declaration: the line of its return type.

    Parameters
    ----------
    text : str
        The Java source.

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
        methods = [
            MethodFound(
                node.name,
                _scope(path),
                node.position.line if node.position else 0,
                first_sentence(node.documentation),
            )
            for path, node in unit.filter(jt.MethodDeclaration)
        ]
    except Exception as exc:
        return [], _failure(exc)
    return methods, None
