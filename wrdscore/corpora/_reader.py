"""Reading code in every language but Java, through the table of :mod:`._languages`.

The rules are Java's (:mod:`wrdscore.corpora._code`): identifiers in source order,
split into sub-tokens; keywords, operators, literals, comments and documentation
dropped (string literals kept only with ``strings="keep"``, docstrings never); the
declared name masked everywhere with target ``"name"``. What differs between
languages is only what their grammars call those things, which the table says:

* the declared name is the first function in source order, named or an anonymous
  one bound to a name (``f = lambda x: ...``, ``const f = (x) => ...``);
* identifiers that are not words (Python's ``self`` and ``cls``, PHP's ``$this``)
  are dropped, and a sigil (Ruby's ``@``, ``@@``, ``$``) is removed;
* the documentation of a function (Python's docstring, a ``/**`` comment before it,
  C#'s ``///``, Go's and Ruby's line comments before it) gives a record's summary at
  ingest and is never read as code.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
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
from wrdscore.corpora._javadoc import first_sentence
from wrdscore.corpora._languages import (
    GRAMMARS,
    Grammar,
    grammar_language,
    parser,
    snippet_root,
)
from wrdscore.corpora._scope import MethodFound, ParseFailure, method_source

_queries: dict[str, Query] = {}


def _query(g: Grammar) -> Query:
    hit = _queries.get(g.name)
    if hit is None:
        patterns = [f"({kind}) @id" for kind in sorted(g.identifiers)]
        patterns += [f"({kind}) @comment" for kind in sorted(g.comments)]
        patterns += [f"({kind}) @string" for kind in sorted(g.strings)]
        hit = _queries[g.name] = Query(grammar_language(g.name), "\n".join(patterns))
    return hit


def _inside(nodes: list[Node], start: int, end: int) -> list[Node]:
    return [n for n in nodes if start <= n.start_byte and n.end_byte <= end]


def _text(node: Node) -> bytes:
    assert node.text is not None
    return node.text


def _word(text: bytes) -> bytes:
    # Ruby's @name, @@name and $name are the identifier name.
    return text.lstrip(b"@$")


def _name_node(g: Grammar, node: Node) -> Node | None:
    """The node naming function ``node``, or ``None`` for an anonymous one left unbound."""
    if node.type in g.anonymous:
        parent = node.parent
        field = g.bindings.get(parent.type) if parent is not None else None
        if parent is None or field is None:
            return None
        named = parent.child_by_field_name(field)
        # ``obj.f = ...`` names ``f``; a destructuring pattern names nothing.
        while named is not None and named.type not in g.identifiers:
            named = named.child_by_field_name("property") or named.child_by_field_name("attribute")
        return named
    name = node.child_by_field_name("name")
    if name is not None:
        return name
    # C and C++ name a function inside its declarator (pointers, references, A::f).
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in g.identifiers:
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = declarator.child_by_field_name("name")
        if inner is None and declarator.type in ("destructor_name", "operator_name"):
            return declarator
        declarator = inner
    return declarator


def functions(
    g: Grammar, root: Node, start: int = 0, end: int | None = None
) -> Iterator[tuple[Node, Node]]:
    """``(function, its name)`` of every named or bound function, in source order
    (those within bytes ``start:end`` of what was parsed)."""
    kinds = g.functions | g.anonymous
    stack = [root]
    found = []
    while stack:
        node = stack.pop()
        if node.type in kinds:
            name = _name_node(g, node)
            if name is not None and name.text:
                found.append((node, name))
        stack.extend(node.children)
    stop = root.end_byte if end is None else end
    found = [(f, n) for f, n in found if start <= f.start_byte and f.end_byte <= stop]
    found.sort(key=lambda pair: pair[0].start_byte)
    return iter(found)


def declared_name(language: str, data: bytes) -> str | None:
    """The name of the first function ``data`` declares, or ``None``."""
    g = GRAMMARS[language]
    first = next(functions(g, *snippet_root(language, data)), None)
    return None if first is None else _text(first[1]).decode("utf-8", "replace")


def _docstrings(g: Grammar, root: Node) -> set[int]:
    """Start bytes of the docstrings under ``root`` (Python: a body's first string)."""
    if g.doc_prefix is not None:
        return set()
    found = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("module", "block"):
            first = node.named_children[0] if node.named_children else None
            if first is not None and first.type == "expression_statement":
                value = first.named_children[0] if first.named_children else None
                if value is not None and value.type in g.strings:
                    found.add(value.start_byte)
        stack.extend(node.children)
    return found


def identifier_words(language: str, data: bytes) -> list[bytes]:
    """The identifiers of ``data`` in source order, sigils removed, non-words left out."""
    g = GRAMMARS[language]
    root, start, end = snippet_root(language, data)
    ids = _inside(QueryCursor(_query(g)).captures(root).get("id", []), start, end)
    words = (_word(_text(n)) for n in sorted(ids, key=lambda n: n.start_byte))
    return [w for w in words if w and w not in g.not_words]


def read(language: str, data: bytes, *, mask: bytes | None, strings: str) -> list[str]:
    """The code's sub-tokens (the module docstring's rules), leaving out ``mask``."""
    g = GRAMMARS[language]
    root, start, end = snippet_root(language, data)
    captures = QueryCursor(_query(g)).captures(root)
    pieces: list[tuple[int, tuple[str, ...] | list[str]]] = []
    for node in _inside(captures.get("id", []), start, end):
        word = _word(_text(node))
        if word and word != mask and word not in g.not_words:
            pieces.append((node.start_byte, _identifier_tokens[word]))
    if strings == "keep":
        docs = _docstrings(g, root)
        for node in _inside(captures.get("string", []), start, end):
            if node.start_byte not in docs and not _nested(node, g.strings):
                words = [w for w in _words(_text(node), _CODE_SPACES) if w != mask]
                pieces.append((node.start_byte, [t for w in words for t in _word_tokens[w]]))
    pieces.sort(key=lambda piece: piece[0])
    return list(chain.from_iterable(tokens for _, tokens in pieces))


def _nested(node: Node, kinds: frozenset[str]) -> bool:
    parent = node.parent
    return parent is not None and parent.type in kinds


_DOC_LINE = re.compile(r"^\s*(?:///?|#)[ \t]?", re.MULTILINE)
_XML_TAG = re.compile(r"</?\w[^<>]*>")
_SENTENCE_END = re.compile(r"\.(?=\s|$)")
_SPACES = re.compile(r"\s+")


def _sentence(text: str) -> str | None:
    """The first sentence of a documentation text (up to a blank line or a ``.``)."""
    paragraph = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0]
    end = _SENTENCE_END.search(paragraph)
    if end is not None:
        paragraph = paragraph[: end.end()]
    sentence = _SPACES.sub(" ", paragraph).strip()
    return sentence or None


_WRAPPERS = frozenset(
    {
        "export_statement",
        "decorated_definition",
        "template_declaration",
        "lexical_declaration",
        "variable_declaration",
        "variable_declarator",
        "expression_statement",
        "assignment",
    }
)


def _doc_node(g: Grammar, function: Node) -> list[Node]:
    """The documentation of ``function``: its docstring, or the comments just before it."""
    if g.doc_prefix is None:
        body = function.child_by_field_name("body")
        first = body.named_children[0] if body is not None and body.named_children else None
        if first is not None and first.type == "expression_statement" and first.named_children:
            value = first.named_children[0]
            if value.type in g.strings:
                return [value]
        return []
    # An export, a decorator, a template or a binding wraps the declaration: its
    # comment is theirs.
    node = function
    while (
        node.prev_named_sibling is None
        and node.parent is not None
        and node.parent.type in _WRAPPERS
    ):
        node = node.parent
    comments = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in g.comments:
        comments.append(prev)
        if g.doc_prefix == "/**":
            break  # one block comment
        prev = prev.prev_named_sibling
    comments.reverse()
    if not comments or not _text(comments[0]).decode("utf-8", "replace").startswith(g.doc_prefix):
        return []
    return comments


def summary(g: Grammar, docs: list[Node]) -> str | None:
    """The first sentence of a function's documentation, as plain text."""
    if not docs:
        return None
    text = b"\n".join(_text(n) for n in docs).decode("utf-8", "replace")
    if g.doc_prefix == "/**":
        return first_sentence(text)
    if g.doc_prefix is None:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None
        return _sentence(inspect.cleandoc(value)) if isinstance(value, str) else None
    return _sentence(_XML_TAG.sub(" ", _DOC_LINE.sub("", text)))


def _without_name(sentence: str | None, name: str) -> str | None:
    """A summary without the function's name in front (Go's convention, ``PushJob
    appends a job``): a reference summary must not give the name away."""
    if sentence is None or not sentence.startswith(name + " "):
        return sentence
    rest = sentence[len(name) + 1 :]
    return rest[:1].upper() + rest[1:] or None


def _scope(g: Grammar, function: Node) -> str:
    parts = []
    node = function.parent
    while node is not None:
        if node.type in g.scopes:
            name = node.child_by_field_name("name")
            if name is not None and name.text:
                parts.append(_text(name).decode("utf-8", "replace"))
        elif node.type in g.functions:
            name = _name_node(g, node)
            if name is not None and name.text:
                parts.append(_text(name).decode("utf-8", "replace"))
        node = node.parent
    return ".".join(reversed(parts))


def _context(g: Grammar, function: Node, name: Node, docs: list[Node], limit: int) -> list[str]:
    """The words around a function's name, in source order (see :mod:`._context`)."""
    out: list[str] = []
    for doc in docs:
        plain = _HTML_TAG.sub(b" ", _text(doc))
        out += chain.from_iterable(_word_tokens[w] for w in _words(plain, _DOC_SPACES))
    skip = {d.start_byte for d in docs} | {name.start_byte}
    stack = [function]
    pieces: list[tuple[int, tuple[str, ...] | list[str]]] = []
    while stack:
        node = stack.pop()
        if node.start_byte in skip and (node in docs or node == name):
            continue
        if node.type in g.identifiers:
            word = _word(_text(node))
            if word and word not in g.not_words:
                pieces.append((node.start_byte, _identifier_tokens[word]))
        elif node.type in g.comments or node.type in g.strings:
            words = _words(_text(node), _CODE_SPACES)
            pieces.append((node.start_byte, [t for w in words for t in _word_tokens[w]]))
        else:
            stack.extend(node.children)
    pieces.sort(key=lambda piece: piece[0])
    out += chain.from_iterable(tokens for _, tokens in pieces)
    return out[:limit]


def first_error(root: Node) -> str:
    """Where the first syntax error of a parse is, as ``line N: ...``."""
    node = root
    while True:
        if node.is_missing:
            return f"line {node.start_point.row + 1}: missing {node.type}"
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if node.is_error or child is None:
            return f"line {node.start_point.row + 1}: syntax error"
        node = child


def extract(
    language: str, data: bytes, limit: int
) -> tuple[list[MethodFound], ParseFailure | None]:
    """Every named function of a file in ``language``, in source order.

    As for Java, a file with syntax errors gives the functions whose own subtree is
    error-free, with the first error as the failure.
    """
    g = GRAMMARS[language]
    root = parser(language, files=True).parse(data).root_node
    methods = []
    for node, name in functions(g, root):
        if node.has_error:
            continue
        # A bound lambda's record is its whole binding (``f = lambda x: x``), and the
        # comment before the binding documents it.
        whole = node.parent if node.type in g.anonymous and node.parent is not None else node
        docs = _doc_node(g, node if g.doc_prefix is None else whole)
        declared = _text(name).decode("utf-8", "replace")
        methods.append(
            MethodFound(
                declared,
                _scope(g, node),
                name.start_point.row + 1,
                _without_name(summary(g, docs), declared),
                _context(g, node, name, docs, limit),
                method_source(data, whole.start_byte, whole.end_byte),
            )
        )
    failure = (
        ParseFailure(GRAMMARS[language].package, first_error(root)) if root.has_error else None
    )
    return methods, failure
