"""The role of each code word: returned, written, called, tested, a parameter, a type, a local.

Code-aware scoring reads a method's code as a bag of sub-tokens
(:func:`~wrdscore.corpora.read_code`): a word counts wherever it is, so it cannot tell
the value a method returns from its loop counter (issue 41, item 4). :func:`code_roles`
reads the same sub-tokens, in the same order, each with the roles its identifier plays
where it occurs, as the grammar table says (:attr:`~._languages.Grammar.roles`, rules of
:class:`~._languages.RoleRule`):

* ``returned``: in a return statement's expression;
* ``written``: assigned to, or incremented or decremented (the variable, field or
  array written, not the object or index that reaches it);
* ``called``: the name of a method invoked (or referenced, ``this::convert``);
* ``condition``: in the condition of an ``if``, ``while``, ``do``, ``for``, a
  ternary or a ``switch``;
* ``parameter``: a parameter declared (of the method or of a lambda in it; a varargs
  parameter's name is not read as one yet: Java's grammar does not name it by a field);
* ``type``: a type's name;
* ``local``: a local variable declared (loop variables, catch parameters, resources
  and pattern variables included);
* ``other``: none of these (a variable read in an argument, an object whose method is
  called, a field read).

An occurrence can play several roles (``return done ? total : 0`` returns ``done`` and
tests it). Roles are syntactic, by occurrence: a parameter read later is ``other`` there.
It is a measurement (``benchmarks/code_roles.py``); scoring does not read it.

Java's roles are in the table; a language whose entry has none is refused in one line.
A parse with syntax errors is refused as well (its roles come from tree-sitter's error
recovery), unless ``allow_errors`` says to read it, and then :attr:`CodeRoles.failure`
says where the first error is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from tree_sitter import Node

from wrdscore.corpora import _reader
from wrdscore.corpora._code import _check, _mask, _tree
from wrdscore.corpora._context import _identifier_tokens
from wrdscore.corpora._defaults import TARGETS
from wrdscore.corpora._languages import Grammar
from wrdscore.errors import WrdscoreError

#: Every role a code word can have, ``other`` last (an occurrence that has none of the rest).
ROLES: tuple[str, ...] = (
    "returned",
    "written",
    "called",
    "condition",
    "parameter",
    "type",
    "local",
    "other",
)
_OTHER = frozenset({"other"})


class CodeWord(NamedTuple):
    """One sub-token of a method's code as scoring reads it, with the roles of its
    identifier where it occurs (``{"other"}`` where it has none of the rest)."""

    token: str
    roles: frozenset[str]


class CodeRoles(NamedTuple):
    """A method's code words with their roles (:func:`code_roles`).

    Attributes
    ----------
    language : str
        The language it was read in.
    words : tuple of CodeWord
        The sub-tokens :func:`~wrdscore.corpora.read_code` gives (strings dropped),
        in the same order, each with its roles.
    masked : str or None
        The name masked (target ``"name"``), or None (target ``"summary"``).
    failure : str or None
        Where the first syntax error is, where ``allow_errors`` read a parse with
        errors (its roles may be wrong there); None for a clean parse.
    """

    language: str
    words: tuple[CodeWord, ...]
    masked: str | None
    failure: str | None = None

    def by_token(self) -> dict[str, frozenset[str]]:
        """Each distinct sub-token with every role it has anywhere, in first-seen order."""
        out: dict[str, frozenset[str]] = {}
        for word in self.words:
            out[word.token] = out.get(word.token, frozenset()) | word.roles
        return out


def code_roles(
    source: str,
    *,
    target: str = "name",
    name: str | None = None,
    language: str | None = None,
    allow_errors: bool = False,
) -> CodeRoles:
    """Read a method's code words with their roles (see the module).

    Parameters
    ----------
    source : str
        The method's source text, as :func:`~wrdscore.corpora.read_method` takes it.
    target : {"name", "summary"}
        ``"name"`` masks the method's declared name (``name``, default the first
        declared), as scoring reads the code of names.
    name : str, optional
        The name to mask with target ``"name"``.
    language : str, optional
        The code's language (default: told from the code).
    allow_errors : bool
        Read a parse with syntax errors, saying where in :attr:`CodeRoles.failure`,
        instead of refusing it.

    Returns
    -------
    CodeRoles

    Raises
    ------
    WrdscoreError
        One line, for code :func:`~wrdscore.corpora.read_method` refuses, an unknown
        ``target``, a language whose roles are not read, a parse with syntax errors
        (without ``allow_errors``), and, with target ``"name"``, code that does not
        declare the name to mask.

    Examples
    --------
    >>> r = code_roles("int size() { int n = count(); return n; }")
    >>> [(w.token, sorted(w.roles)) for w in r.words]
    [('n', ['local']), ('count', ['called']), ('n', ['returned'])]
    """
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    tree = _tree(source, _check(source), language)
    g = tree.grammar
    if not g.roles:
        raise WrdscoreError(
            f"the roles of {g.name} code are not read yet (its grammar table entry has none)"
        )
    failure = None
    if tree.root.has_error:
        failure = _reader.first_error(tree.root)
        if not allow_errors:
            raise WrdscoreError(
                f"cannot read the roles of code that does not parse as {g.name} "
                f"({failure}); fix it, or allow errors"
            )
    masked = None
    if target == "name":
        masked, unmasked = _mask(tree, _reader.declarations(tree), name)
        if unmasked is not None:
            raise WrdscoreError(unmasked)
    roles = _roles_by_start(g, tree.root)
    mask = masked.encode("utf-8", "replace") if masked else None
    words: list[CodeWord] = []
    for at, word in _reader.identifiers(tree):
        if word == mask:
            continue
        these = roles.get(at) or _OTHER
        words += (CodeWord(token, these) for token in _identifier_tokens[word])
    return CodeRoles(g.name, tuple(words), masked, failure)


def _roles_by_start(g: Grammar, root: Node) -> dict[int, frozenset[str]]:
    """The roles of each identifier of the parse, by its start byte."""
    rules: dict[str, list[tuple[str, str | None, bool]]] = {}
    for rule in g.roles:
        rules.setdefault(rule.node, []).append((rule.role, rule.field, rule.whole))
    found: dict[int, set[str]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for role, field, whole in rules.get(node.type, ()):
            for child in _children(node, field):
                named = _within(g, child) if whole else _heads(g, child)
                for identifier in named:
                    found.setdefault(identifier.start_byte, set()).add(role)
        stack.extend(node.children)
    return {at: frozenset(these) for at, these in found.items()}


def _children(node: Node, field: str | None) -> list[Node]:
    """The children of ``node`` a rule's ``field`` names (see :class:`RoleRule`)."""
    if field is None:
        return [node]
    if field == "*":
        return list(node.named_children)
    if field == ":last":
        return list(node.named_children[-1:])
    return list(node.children_by_field_name(field))


def _heads(g: Grammar, node: Node) -> Iterator[Node]:
    """The identifiers ``node`` names: itself, or what :attr:`Grammar.role_heads` says."""
    if node.type in g.identifiers:
        yield node
        return
    field = g.role_heads.get(node.type)
    if field is not None:
        for child in _children(node, field):
            yield from _heads(g, child)


def _within(g: Grammar, node: Node) -> Iterator[Node]:
    """Every identifier in ``node``'s subtree (``node`` itself, if it is one)."""
    stack = [node]
    while stack:
        here = stack.pop()
        if here.type in g.identifiers:
            yield here
        else:
            stack.extend(here.children)
