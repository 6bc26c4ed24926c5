"""Method extraction with tree-sitter-java: fast, error-tolerant, all of modern Java.

Java's first extractor (:attr:`~wrdscore.corpora._languages.Grammar.extractors`); its
grammar and parser are the table's, which reads Java's code as every language's.
"""

from __future__ import annotations

from importlib.metadata import version

from tree_sitter import Node, Parser, Query, QueryCursor

from wrdscore.corpora._context import context_tokens
from wrdscore.corpora._javadoc import first_sentence
from wrdscore.corpora._languages import GRAMMARS, grammar_language, parser
from wrdscore.corpora._scope import (
    ANONYMOUS,
    CONSTRUCTOR,
    MethodFound,
    ParseFailure,
    method_source,
)

_METHODS = Query(grammar_language("java"), "(method_declaration name: (identifier) @name) @method")
_TYPE_DECLARATIONS = GRAMMARS["java"].scopes
_CONSTRUCTORS = frozenset({"constructor_declaration", "compact_constructor_declaration"})


def parser_version() -> str:
    """Versions of the parser packages, for the manifest."""
    return f"tree-sitter {version('tree-sitter')}, tree-sitter-java {version('tree-sitter-java')}"


def warm_up() -> Parser:
    """The process's Java parser, built on first use (pool workers build it at start)."""
    return parser("java")


def _text(node: Node | None) -> str:
    assert node is not None and node.text is not None
    return node.text.decode("utf-8", errors="replace")


def _scope_part(node: Node) -> str | None:
    kind = node.type
    if kind in _TYPE_DECLARATIONS:
        return _text(node.child_by_field_name("name"))
    if kind == "class_body":
        parent = node.parent
        if parent is not None and parent.type == "object_creation_expression":
            return ANONYMOUS
        return None
    if kind == "enum_constant":
        return _text(node.child_by_field_name("name"))
    if kind == "method_declaration":
        return _text(node.child_by_field_name("name"))
    if kind in _CONSTRUCTORS:
        return CONSTRUCTOR
    return None


def _scope(body: Node, cache: dict[int, str]) -> str:
    """Dotted names of the types (and members, for local types) around ``body``."""
    hit = cache.get(body.id)
    if hit is not None:
        return hit
    parts = []
    node: Node | None = body
    while node is not None:
        part = _scope_part(node)
        if part is not None:
            parts.append(part)
        node = node.parent
    scope = ".".join(reversed(parts))
    cache[body.id] = scope
    return scope


def _javadoc(method: Node) -> bytes | None:
    # Like javac (and javalang): the last /** comment before the declaration counts,
    # even with other comments in between.
    prev = method.prev_sibling
    while prev is not None and prev.type in ("block_comment", "line_comment"):
        text = prev.text
        assert text is not None
        if text.startswith(b"/**") and not text.startswith(b"/**/"):
            return text
        prev = prev.prev_sibling
    return None


def _context(source: bytes, method: Node, name: Node, javadoc: bytes | None) -> list[str]:
    # The declaration after its modifiers, where javalang's position is too.
    first = method.child(0)
    assert first is not None
    if first.type == "modifiers":
        first = method.child(1)
        assert first is not None
    return context_tokens(
        source, first.start_byte, method.end_byte, name.start_byte, name.end_byte, javadoc
    )


def _first_error(root: Node) -> str:
    node = root
    while True:
        if node.is_missing:
            return f"line {node.start_point.row + 1}: missing {node.type}"
        if node.is_error:
            return f"line {node.start_point.row + 1}: syntax error"
        child = next((c for c in node.children if c.has_error), None)
        if child is None:
            return f"line {node.start_point.row + 1}: syntax error"
        node = child


def extract_treesitter(source: bytes) -> tuple[list[MethodFound], ParseFailure | None]:
    """Find every method declaration in one Java file.

    Parameters
    ----------
    source : bytes
        UTF-8 Java source (lines ending in LF or CRLF: :func:`extract_file` has made
        lone CRs LFs).

    Returns
    -------
    methods : list of MethodFound
        In source order; after a syntax error, only methods whose own subtree is
        error-free (their ``type`` may still be wrong where recovery lost a class).
    failure : ParseFailure or None
        Where the first syntax error is, or ``None`` for a clean parse.

    Examples
    --------
    >>> methods, failure = extract_treesitter(b"class A { int getX() { return 1; } }")
    >>> [(m.name, m.type, m.line) for m in methods], failure
    ([('getX', 'A', 1)], None)
    """
    tree = warm_up().parse(source)
    root = tree.root_node
    captures = QueryCursor(_METHODS).captures(root).get("method", [])
    cache: dict[int, str] = {}
    methods = []
    for node in sorted(captures, key=lambda n: n.start_byte):
        if node.has_error:
            continue
        name = node.child_by_field_name("name")
        assert name is not None and node.parent is not None
        javadoc = _javadoc(node)
        methods.append(
            MethodFound(
                _text(name),
                _scope(node.parent, cache),
                name.start_point.row + 1,
                first_sentence(javadoc.decode("utf-8", "replace")) if javadoc else None,
                _context(source, node, name, javadoc),
                method_source(source, node.start_byte, node.end_byte),
            )
        )
    failure = ParseFailure("tree-sitter", _first_error(root)) if root.has_error else None
    return methods, failure
