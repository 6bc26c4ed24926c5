"""Reading code in every language, Java included, through the table of :mod:`._languages`.

The rules were set for Java and chosen with a held-out signal (docs/history.md; the
list is :mod:`wrdscore.corpora._code`'s): identifiers in source order, split into
sub-tokens; keywords, operators, literals, comments and documentation dropped (string
literals kept only with ``strings="keep"``, docstrings never); the declared name
masked everywhere with target ``"name"``. What differs between languages is only what
their grammars call those things, which the table says:

* the declared name is the first function in source order, named or an anonymous
  one bound to a name (``f = lambda x: ...``, ``const f = (x) => ...``); where a Java
  snippet's parse finds none but has errors, the head of a broken declaration is
  parsed again (:attr:`~._languages.Grammar.broken_heads`);
* identifiers that are not words (Python's ``self`` and ``cls``, PHP's ``$this``)
  are dropped, a sigil (Ruby's ``@``, ``@@``, ``$``) is removed, and Java's
  annotation names are left out;
* the documentation of a function (Python's docstring, a ``/**`` comment before it,
  C#'s ``///``, Go's and Ruby's line comments before it) gives a record's summary at
  ingest and is never read as code;
* in a parse with errors, an identifier is read as the whole word around it: a
  grammar's error recovery can start a token inside a word (Python's ``!s``
  conversion reads ``!socket`` as ``!s`` and ``ocket``).
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import NamedTuple

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
from wrdscore.corpora._segment import segment

_queries: dict[str, Query] = {}


def _query(g: Grammar) -> Query:
    """One query for everything the reader takes from a grammar's parse."""
    hit = _queries.get(g.name)
    if hit is None:
        patterns = [f"({kind}) @id" for kind in sorted(g.identifiers)]
        patterns += [f"({kind}) @comment" for kind in sorted(g.comments)]
        patterns += [f"({kind}) @string" for kind in sorted(g.strings)]
        patterns += [f"({kind} name: (_) @annotation)" for kind in sorted(g.annotations)]
        patterns += [f"({kind}) @literal" for kind in sorted(g.literals)]
        patterns += [f"({kind}) @function" for kind in sorted(g.functions | g.anonymous)]
        hit = _queries[g.name] = Query(grammar_language(g.name), "\n".join(patterns))
    return hit


# Java's query is built on import, as the Java reader's was: scoring imports the reader
# before forking its workers (``CodeScorer.prepare``), which then share it.
_query(GRAMMARS["java"])


def _inside(nodes: list[Node], start: int, end: int) -> list[Node]:
    return [n for n in nodes if start <= n.start_byte and n.end_byte <= end]


def _text(node: Node) -> bytes:
    assert node.text is not None
    return node.text


class Tree(NamedTuple):
    """A snippet parsed in its language, with the nodes the reader takes from it.

    ``start`` and ``end`` are the snippet's bytes in what was parsed (a wrapped
    snippet is parsed after the wrapper's head). A tuple: one is made per method read.
    """

    grammar: Grammar
    root: Node
    start: int
    end: int
    captures: dict[str, list[Node]]


def parse(language: str, data: bytes, parsed: tuple[Node, int, int] | None = None) -> Tree:
    """``data`` parsed as ``language`` (or its ``parsed`` root and range, where telling
    the language parsed it already)."""
    g = GRAMMARS[language]
    root, start, end = parsed or snippet_root(language, data)
    return Tree(g, root, start, end, QueryCursor(_query(g)).captures(root))


# Bytes of a word: ASCII letters, digits and ``_``, and every byte of a UTF-8 letter.
_WORD_BYTES = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" + bytes(range(0x80, 0x100))
)


def _whole_words(text: bytes, base: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (sorted byte ranges of identifiers) widened to the words they are in,
    each word once: in a parse with errors, recovery can start a token inside a word."""
    out: list[tuple[int, int]] = []
    for at, stop in spans:
        a, b = at - base, stop - base
        while a > 0 and text[a - 1] in _WORD_BYTES:
            a -= 1
        while b < len(text) and text[b] in _WORD_BYTES:
            b += 1
        if not out or out[-1][0] != a + base:
            out.append((a + base, b + base))
    return out


def identifiers(tree: Tree) -> list[tuple[int, bytes]]:
    """The words of the snippet's identifiers in source order, with where each starts:
    annotation names left out, sigils removed, identifiers that are not words dropped.

    Slices of the parsed bytes, not each node's text: half the cost per identifier.
    """
    g, root = tree.grammar, tree.root
    ids = tree.captures.get("id", [])
    if tree.start:
        ids = _inside(ids, tree.start, tree.end)  # not the wrapper's
    annotated = tree.captures.get("annotation")
    if annotated:
        # Only an identifier that starts before the last annotation's name ends can be
        # part of one: the others skip the walk up their parents.
        annotations = {(n.start_byte, n.end_byte) for n in annotated}
        last = max(e for _, e in annotations)
        ids = [n for n in ids if n.start_byte >= last or not _annotated(n, annotations)]
    parsed = root.text
    assert parsed is not None
    # The root's text starts where the root does, after any leading whitespace, while
    # byte ranges count from the start of what was parsed.
    base = root.start_byte
    spans = sorted(n.byte_range for n in ids)
    if root.has_error:
        spans = _whole_words(parsed, base, spans)
    words = [(at, parsed[at - base : stop - base]) for at, stop in spans]
    if g.sigils:
        words = [(at, w.lstrip(g.sigils)) for at, w in words]
    if g.sigils or g.not_words:
        words = [(at, w) for at, w in words if w and w not in g.not_words]
    return words


def _annotated(node: Node, annotations: set[tuple[int, int]]) -> bool:
    """Whether ``node`` is (part of) an annotation's name, such as ``Override``."""
    parent = node.parent
    # ``@Override`` names an identifier; ``@javax.annotation.Nullable`` a scoped one.
    while parent is not None and parent.type == "scoped_identifier":
        node, parent = parent, parent.parent
    return (node.start_byte, node.end_byte) in annotations


class _SegmentedWordTokens(dict[bytes, list[str]]):
    """An identifier's sub-tokens with run-together words segmented, memoised per
    identifier: segmentation works token by token, so segmenting each identifier's
    tokens once gives what segmenting the whole method's tokens would, for a lookup."""

    def __missing__(self, word: bytes) -> list[str]:
        value = self[word] = segment(list(_identifier_tokens[word]))
        return value


_segmented_word_tokens = _SegmentedWordTokens()


def mask_split(words: Iterable[bytes], mask: bytes | None, segmented: bool = False) -> list[str]:
    """The sub-tokens of ``words`` (identifiers), leaving out those equal to ``mask``.

    The default reading's second half, for a parse and for the identifiers a corpus
    stored alike, so that both give the same tokens.
    """
    tokens: Mapping[bytes, Sequence[str]] = (
        _segmented_word_tokens if segmented else _identifier_tokens
    )
    out: list[str] = []
    extend = out.extend  # bound once: this loop runs once per identifier of the code
    for word in words:
        if word != mask:
            extend(tokens[word])
    return out


def read(
    tree: Tree,
    words: list[tuple[int, bytes]],
    *,
    mask: bytes | None,
    strings: str,
    comments: bool = False,
    literals: bool = False,
) -> list[str]:
    """The snippet's sub-tokens (the module docstring's rules), leaving out ``mask``;
    ``words`` are its :func:`identifiers`. ``comments`` and ``literals`` are readings
    the held-out signal measured and did not choose (``scripts/code_support_signal.py``)."""
    if not (comments or literals or strings == "keep"):
        # The chosen rule: the identifiers alone, masked and split.
        return mask_split((w for _, w in words), mask)
    g, start, end = tree.grammar, tree.start, tree.end
    pieces: list[tuple[int, tuple[str, ...] | list[str]]] = [
        (at, _identifier_tokens[w]) for at, w in words if w != mask
    ]
    if comments:
        for node in _inside(tree.captures.get("comment", []), start, end):
            plain = _HTML_TAG.sub(b" ", _text(node)).replace(b"&", b" &")
            pieces.append((node.start_byte, _tokens(_words(plain, _DOC_SPACES), mask)))
    if strings == "keep":
        docs = _docstrings(g, tree.root)
        for node in _inside(tree.captures.get("string", []), start, end):
            if node.start_byte not in docs and not _nested(node, g.strings):
                pieces.append((node.start_byte, _tokens(_words(_text(node), _CODE_SPACES), mask)))
    if literals:
        for node in _inside(tree.captures.get("literal", []), start, end):
            pieces.append((node.start_byte, [_text(node).decode("utf-8", "replace")]))
    pieces.sort(key=lambda piece: piece[0])
    return list(chain.from_iterable(tokens for _, tokens in pieces))


def _tokens(words: list[bytes], mask: bytes | None) -> list[str]:
    return list(chain.from_iterable(_word_tokens[w] for w in words if w != mask))


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


def _named(g: Grammar, nodes: Iterable[Node], start: int, end: int) -> list[tuple[Node, Node]]:
    """``(function, its name)`` of the named or bound ``nodes`` within bytes
    ``start:end``, in source order."""
    found = []
    for node in nodes:
        if start <= node.start_byte and node.end_byte <= end:
            name = _name_node(g, node)
            if name is not None and name.text:
                found.append((node, name))
    found.sort(key=lambda pair: pair[0].start_byte)
    return found


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
            found.append(node)
        stack.extend(node.children)
    return iter(_named(g, found, start, root.end_byte if end is None else end))


def declarations(tree: Tree) -> list[tuple[Node, Node]]:
    """``(function, its name)`` of every function the snippet declares, in source order."""
    return _named(tree.grammar, tree.captures.get("function", []), tree.start, tree.end)


# How many ``{`` a broken snippet's declaration head may be looked for before.
_HEAD_TRIES = 4


def declared_in_head(tree: Tree) -> str | None:
    """The name of a method whose body is broken (cut by the cap, or a fragment), in a
    grammar that looks for one (:attr:`~._languages.Grammar.broken_heads`).

    The declaration's head, up to one of its first ``{``, is parsed again with an
    empty body; the first ``{`` that gives a clean method declaration is the body's.
    """
    g, root = tree.grammar, tree.root
    if not (g.broken_heads and root.has_error and root.text):
        return None
    base = root.start_byte  # the root's text starts after any leading whitespace
    data = root.text[max(tree.start - base, 0) : tree.end - base]
    brace = data.find(b"{")
    for _ in range(_HEAD_TRIES):
        if brace < 0:
            return None
        head = parser(g.name).parse(data[: brace + 1] + b"}").root_node
        if not head.has_error:
            first = next(functions(g, head), None)
            return None if first is None else _text(first[1]).decode("utf-8", "replace")
        brace = data.find(b"{", brace + 1)
    return None


def declared_name(language: str, data: bytes) -> str | None:
    """The name of the first function ``data`` declares, or ``None``."""
    tree = parse(language, data)
    first = next(iter(declarations(tree)), None)
    if first is None:
        return declared_in_head(tree)
    return _text(first[1]).decode("utf-8", "replace")


def documentation(g: Grammar, function: Node) -> str | None:
    """The documentation of ``function`` as written (its docstring, or the comments
    just before it), or ``None``."""
    whole = function.parent if function.type in g.anonymous and function.parent else function
    docs = _doc_node(g, function if g.doc_prefix is None else whole)
    return b"\n".join(_text(n) for n in docs).decode("utf-8", "replace") if docs else None


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
    return [w for _, w in identifiers(parse(language, data))]


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
    if g.doc_skips_comments:
        # The last documentation comment before the declaration, even with other
        # comments between (javac's rule, as the Java extractor reads Javadoc).
        before = node.prev_sibling
        while before is not None and before.type in g.comments:
            text = _text(before).decode("utf-8", "replace")
            if text.startswith(g.doc_prefix) and not text.startswith("/**/"):
                return [before]
            before = before.prev_sibling
        return []
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
            word = _text(node).lstrip(g.sigils)
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
