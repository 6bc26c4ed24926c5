"""The languages whose code the toolkit reads, and how it tells them apart.

One table, :data:`GRAMMARS`, says for each language what its tree-sitter grammar
calls an identifier, a function, a comment, a string and a documentation comment;
one reader (:mod:`wrdscore.corpora._reader`) reads every language through it, Java
included, whose rules (chosen with a held-out signal) became every language's. Java's
few particulars (annotations, a method whose body is broken, its two extraction
parsers) are fields of its entry. Each grammar is a PyPI package (MIT) imported the
first time code in its language is read, so that start-up pays for none of them.

A snippet without a language is given one by :func:`detect_language` (the rule is
there): code Java parses cleanly is Java, as every snippet was before other languages
were read (so C, C++ or C# that is also valid Java is read as Java: give their
language); otherwise the grammar whose parse is least wrong wins, and a tie it cannot
break is refused with one line that names the tied languages. A
:class:`SourceCode` is a snippet that says its language.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import version

from tree_sitter import Language, Node, Parser

from wrdscore.corpora._defaults import PARSERS
from wrdscore.errors import WrdscoreError


@dataclass(frozen=True)
class RoleRule:
    """One place a grammar gives code words a role (:func:`~._roles.code_roles`).

    Every node of type ``node`` gives ``role`` to the identifiers in its child ``field``
    (``None``: the node itself; ``"*"``: every named child; ``":last"``: the last named
    child). With ``whole``, to every identifier within; otherwise only to the head:
    the child itself where it is an identifier, else what
    :attr:`Grammar.role_heads` says its type names, looked for again.
    """

    role: str
    node: str
    field: str | None = None
    whole: bool = False


@dataclass(frozen=True)
class Grammar:
    """How one language's tree-sitter grammar names the parts the reader needs.

    Attributes
    ----------
    name : str
        The language's name (``--language``, a ``CODE.jsonl`` line's ``language``).
    package : str
        The PyPI package of the grammar.
    module, function : str
        The grammar's module and the function in it that gives the language.
    extensions : tuple of str
        File extensions of the language, lower case, for ingest.
    identifiers : frozenset of str
        Node types read as identifiers (leaves; a sigil such as Ruby's ``@`` is removed).
    functions : frozenset of str
        Node types of named function and method declarations.
    anonymous : frozenset of str
        Node types of functions without a name of their own (lambdas, arrow functions),
        which take the name they are bound to (``bindings``).
    bindings : dict
        Parent node type -> the field that names a bound anonymous function
        (``f = lambda x: ...``, ``const f = (x) => ...``).
    scopes : frozenset of str
        Node types (classes, modules, namespaces) whose name is part of a record's type.
    comments : frozenset of str
        Comment node types.
    strings : frozenset of str
        String literal node types (read only with ``strings="keep"``).
    not_words : frozenset of bytes
        Identifiers that are not words of the code (Python's ``self`` and ``cls``).
    wrap : (bytes, bytes) or None
        A snippet with syntax errors is parsed again between these (a method alone is
        an error in PHP, as in Java), and read so where that has fewer errors.
    file_function : str or None
        The function giving the language of whole files, where it is another than
        ``function`` (PHP: files mix HTML and code, snippets are code alone).
    doc_prefix : str or None
        A comment that starts so, just before a function, documents it (``/**``);
        ``None``: the function's first statement is its docstring (Python).
    sigils : bytes
        Characters removed from the start of an identifier (Ruby's ``@``); none in Java,
        where ``$`` is a letter.
    annotations : frozenset of str
        Node types whose ``name`` is not read (Java's ``@Override``: it describes the
        declaration, not what the method does).
    literals : frozenset of str
        Node types of the literal words (``true``, ``false``, ``null``) that a reading
        of the held-out signal could keep (``literals=True``); never read by default.
    wrap_only_clean : bool
        Read a snippet wrapped only where the wrapped parse has no error at all
        (Java's rule, from before other languages were read), not where it has fewer.
    broken_heads : bool
        A snippet whose parse finds no function but has errors (a method cut by the
        cap, a fragment) is searched for a declaration by parsing its head again with
        an empty body (Java).
    doc_skips_comments : bool
        The last ``doc_prefix`` comment before a function documents it even with other
        comments between (javac's rule for Javadoc); otherwise only the one just before.
    extractors : tuple of str
        The parsers that extract a file's methods at ingest, the first by default and
        the next its fallback (Java: tree-sitter, then javalang,
        :data:`~wrdscore.corpora.PARSERS`); empty: the table's reader.
    roles : tuple of RoleRule
        Where the grammar puts each role of a code word (:mod:`._roles`); empty: the
        roles of this language's code are not read yet.
    role_heads : dict
        Node type -> the field (``"*"``: every named child) that holds what a node of
        that type names, for rules that read heads (``this.total = x`` writes
        ``total``, ``items[i] = x`` writes ``items``).
    """

    name: str
    package: str
    module: str
    function: str
    extensions: tuple[str, ...]
    identifiers: frozenset[str]
    functions: frozenset[str]
    comments: frozenset[str]
    strings: frozenset[str]
    doc_prefix: str | None
    scopes: frozenset[str] = frozenset()
    anonymous: frozenset[str] = frozenset()
    bindings: dict[str, str] = field(default_factory=dict)
    not_words: frozenset[bytes] = frozenset()
    wrap: tuple[bytes, bytes] | None = None
    file_function: str | None = None
    sigils: bytes = b"@$"
    annotations: frozenset[str] = frozenset()
    literals: frozenset[str] = frozenset()
    wrap_only_clean: bool = False
    broken_heads: bool = False
    doc_skips_comments: bool = False
    extractors: tuple[str, ...] = ()
    roles: tuple[RoleRule, ...] = ()
    role_heads: dict[str, str] = field(default_factory=dict)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_C_LIKE_COMMENTS = _set("comment")
# A method alone is an error in these languages; as a class body, it is a method (in
# Java, a fragment that does not parse alone, a member with a field, statements with a
# method, usually does as a class body). The wrapper's own tokens are never read.
_CLASS_BODY = (b"class _Snippet {\n", b"\n}\n")
_JS_BINDINGS = {
    "variable_declarator": "name",
    "assignment_expression": "left",
    "pair": "key",
    "public_field_definition": "name",
    "field_definition": "property",
}

# Java's roles: what a return statement, a condition (of if, while, do, for, a ternary
# and a switch) holds; what an assignment or ++/-- writes; the methods invoked (a method
# reference's method too); the parameters of the method and its lambdas; type names;
# local variables (loops', catch clauses', resources' and patterns' included).
_JAVA_ROLES = (
    RoleRule("returned", "return_statement", whole=True),
    RoleRule("written", "assignment_expression", "left"),
    RoleRule("written", "update_expression", "*"),
    RoleRule("called", "method_invocation", "name"),
    RoleRule("called", "method_reference", ":last"),
    *(
        RoleRule("condition", kind, "condition", whole=True)
        for kind in (
            "if_statement",
            "while_statement",
            "do_statement",
            "for_statement",
            "ternary_expression",
            "switch_expression",
        )
    ),
    RoleRule("parameter", "formal_parameter", "name"),
    RoleRule("parameter", "lambda_expression", "parameters"),
    RoleRule("type", "type_identifier"),
    RoleRule("local", "local_variable_declaration", "declarator"),
    *(
        RoleRule("local", kind, "name")
        for kind in (
            "enhanced_for_statement",
            "catch_formal_parameter",
            "resource",
            "instanceof_expression",
        )
    ),
)

GRAMMARS: dict[str, Grammar] = {
    g.name: g
    for g in (
        Grammar(
            "java",
            "tree-sitter-java",
            "tree_sitter_java",
            "language",
            (".java",),
            identifiers=_set("identifier type_identifier"),
            functions=_set("method_declaration"),
            scopes=_set(
                "class_declaration interface_declaration enum_declaration "
                "record_declaration annotation_type_declaration"
            ),
            comments=_set("line_comment block_comment"),
            # Text blocks are string literals too.
            strings=_set("string_literal"),
            doc_prefix="/**",
            wrap=_CLASS_BODY,
            sigils=b"",
            annotations=_set("marker_annotation annotation"),
            literals=_set("true false null_literal"),
            wrap_only_clean=True,
            broken_heads=True,
            doc_skips_comments=True,
            extractors=PARSERS,
            roles=_JAVA_ROLES,
            role_heads={
                "field_access": "field",
                "array_access": "array",
                "variable_declarator": "name",
                "inferred_parameters": "*",
            },
        ),
        Grammar(
            "python",
            "tree-sitter-python",
            "tree_sitter_python",
            "language",
            (".py", ".pyi"),
            identifiers=_set("identifier"),
            functions=_set("function_definition"),
            anonymous=_set("lambda"),
            bindings={"assignment": "left"},
            scopes=_set("class_definition"),
            comments=_set("comment"),
            strings=_set("string concatenated_string"),
            not_words=frozenset({b"self", b"cls"}),
            doc_prefix=None,
        ),
        Grammar(
            "javascript",
            "tree-sitter-javascript",
            "tree_sitter_javascript",
            "language",
            (".js", ".mjs", ".cjs", ".jsx"),
            identifiers=_set(
                "identifier property_identifier shorthand_property_identifier "
                "shorthand_property_identifier_pattern private_property_identifier"
            ),
            functions=_set("function_declaration generator_function_declaration method_definition"),
            anonymous=_set("arrow_function function_expression generator_function"),
            bindings=_JS_BINDINGS,
            scopes=_set("class_declaration class"),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string template_string"),
            doc_prefix="/**",
            wrap=_CLASS_BODY,
        ),
        Grammar(
            "typescript",
            "tree-sitter-typescript",
            "tree_sitter_typescript",
            "language_typescript",
            (".ts", ".mts", ".cts"),
            identifiers=_set(
                "identifier property_identifier shorthand_property_identifier "
                "shorthand_property_identifier_pattern private_property_identifier "
                "type_identifier"
            ),
            functions=_set(
                "function_declaration generator_function_declaration method_definition "
                "function_signature method_signature abstract_method_signature"
            ),
            anonymous=_set("arrow_function function_expression generator_function"),
            bindings=_JS_BINDINGS,
            scopes=_set("class_declaration abstract_class_declaration interface_declaration"),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string template_string"),
            doc_prefix="/**",
            wrap=_CLASS_BODY,
        ),
        Grammar(
            "go",
            "tree-sitter-go",
            "tree_sitter_go",
            "language",
            (".go",),
            identifiers=_set("identifier field_identifier type_identifier package_identifier"),
            functions=_set("function_declaration method_declaration"),
            anonymous=_set("func_literal"),
            bindings={"var_spec": "name"},
            comments=_C_LIKE_COMMENTS,
            strings=_set("interpreted_string_literal raw_string_literal"),
            doc_prefix="//",
        ),
        Grammar(
            "php",
            "tree-sitter-php",
            "tree_sitter_php",
            # Reads code with or without the ``<?php`` tag (the full grammar takes a
            # snippet without it for HTML text, with no error).
            "language_php_only",
            (".php",),
            identifiers=_set("name"),
            functions=_set("function_definition method_declaration"),
            anonymous=_set("anonymous_function arrow_function"),
            bindings={"assignment_expression": "left"},
            scopes=_set(
                "class_declaration interface_declaration trait_declaration enum_declaration"
            ),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string encapsed_string heredoc nowdoc"),
            not_words=frozenset({b"this"}),
            doc_prefix="/**",
            wrap=_CLASS_BODY,
            file_function="language_php",
        ),
        Grammar(
            "ruby",
            "tree-sitter-ruby",
            "tree_sitter_ruby",
            "language",
            (".rb",),
            identifiers=_set(
                "identifier constant instance_variable class_variable global_variable"
            ),
            functions=_set("method singleton_method"),
            anonymous=_set("lambda"),
            bindings={"assignment": "left"},
            scopes=_set("class module"),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string"),
            doc_prefix="#",
        ),
        Grammar(
            "c_sharp",
            "tree-sitter-c-sharp",
            "tree_sitter_c_sharp",
            "language",
            (".cs",),
            identifiers=_set("identifier"),
            functions=_set("method_declaration local_function_statement"),
            anonymous=_set("lambda_expression"),
            bindings={"variable_declarator": "name"},
            scopes=_set(
                "class_declaration struct_declaration interface_declaration "
                "record_declaration namespace_declaration"
            ),
            comments=_C_LIKE_COMMENTS,
            strings=_set(
                "string_literal verbatim_string_literal raw_string_literal "
                "interpolated_string_expression"
            ),
            doc_prefix="///",
        ),
        Grammar(
            "c",
            "tree-sitter-c",
            "tree_sitter_c",
            "language",
            (".c", ".h"),
            identifiers=_set("identifier field_identifier type_identifier"),
            functions=_set("function_definition"),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string_literal concatenated_string"),
            doc_prefix="/**",
        ),
        Grammar(
            "cpp",
            "tree-sitter-cpp",
            "tree_sitter_cpp",
            "language",
            (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
            identifiers=_set("identifier field_identifier type_identifier namespace_identifier"),
            functions=_set("function_definition"),
            anonymous=_set("lambda_expression"),
            bindings={"init_declarator": "declarator"},
            scopes=_set("class_specifier struct_specifier namespace_definition"),
            comments=_C_LIKE_COMMENTS,
            strings=_set("string_literal raw_string_literal concatenated_string"),
            doc_prefix="/**",
        ),
    )
}

#: Every language the toolkit reads, Java first (every snippet was Java before the others).
LANGUAGES: tuple[str, ...] = tuple(GRAMMARS)

_languages: dict[str, Language] = {}
_parsers: dict[str, Parser] = {}


class SourceCode(str):
    """A snippet's source text that says its language.

    A ``str``, so it goes wherever a method's source goes (a ``CODE.jsonl`` item, a
    metric's ``code``); :func:`~wrdscore.corpora.read_code` reads it in its
    ``language`` instead of telling the language from the code. ``score --language`` and
    a ``CODE.jsonl`` line's ``language`` key make their sources so.

    Examples
    --------
    >>> code = SourceCode("print(x)", "python")
    >>> code == "print(x)", code.language
    (True, 'python')
    """

    language: str

    def __new__(cls, text: str, language: str) -> SourceCode:
        self = super().__new__(cls, text)
        self.language = check_language(language)
        return self

    def __reduce__(self) -> tuple[type[SourceCode], tuple[str, str]]:
        # Pickled (to worker processes) with its language.
        return (SourceCode, (str(self), self.language))


def check_language(language: object) -> str:
    """``language`` if the toolkit reads it, else a one-line error naming those it reads."""
    if isinstance(language, str) and language in LANGUAGES:
        return language
    raise WrdscoreError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")


def grammar_language(name: str, files: bool = False) -> Language:
    """The tree-sitter language of ``name``, its grammar imported on first use; with
    ``files``, the one for whole files (:attr:`Grammar.file_function`)."""
    g = GRAMMARS[name]
    function = (g.file_function or g.function) if files else g.function
    hit = _languages.get(function + name)
    if hit is None:
        try:
            module = importlib.import_module(g.module)
        except ImportError:
            raise WrdscoreError(
                f"reading {name} code needs the grammar {g.package}: pip install {g.package}"
            ) from None
        hit = _languages[function + name] = Language(getattr(module, function)())
    return hit


def parser(name: str, files: bool = False) -> Parser:
    """The process's parser of language ``name``, built on first use (building one
    costs more than parsing a small file); with ``files``, the one for whole files."""
    key = f"{name} files" if files else name
    hit = _parsers.get(key)
    if hit is None:
        hit = _parsers[key] = Parser(grammar_language(name, files))
    return hit


def grammar_version(name: str) -> str:
    """The installed version of the grammar of ``name``, for manifests."""
    package = GRAMMARS[name].package
    return f"{package} {version(package)}"


def language_of_path(path: str) -> str | None:
    """The language of a source file by its extension, or ``None`` for other files.

    Examples
    --------
    >>> language_of_path("src/app/Main.java"), language_of_path("pkg/util.PY")
    ('java', 'python')
    >>> language_of_path("README.md") is None
    True
    """
    ext = os.path.splitext(path)[1].lower()
    for g in GRAMMARS.values():
        if ext in g.extensions:
            return g.name
    return None


def count_errors(root: Node) -> int:
    """How much of a parse is wrong: the bytes under its ``ERROR`` nodes, and one for
    each token the parser found missing.

    Bytes, not errors: a method cut short is two missing tokens in its own grammar,
    but one error node over most of it in another.
    """
    if not root.has_error:
        return 0
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            count += max(node.end_byte - node.start_byte, 1)
        elif node.is_missing:
            count += 1
        else:
            stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


def clean_java(root: Node, data: bytes) -> bool:
    """Whether a Java parse of ``data`` makes it Java: no syntax error, and no names
    starting with ``$`` (valid Java, but PHP's variables: a PHP method alone parses as a
    Java method)."""
    if root.has_error:
        return False
    return b"$" not in data or not _dollar_names(root)


def _dollar_names(root: Node) -> bool:
    """Whether a clean Java parse has identifiers that start with ``$``: valid Java,
    but PHP's variables (a PHP method alone parses as a Java method)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            if node.text is not None and node.text.startswith(b"$"):
                return True
        else:
            stack.extend(node.children)
    return False


def _identifier_count(name: str, root: Node, start: int, end: int) -> int:
    """The identifiers of a parse within bytes ``start:end`` (the snippet, unwrapped)."""
    kinds = GRAMMARS[name].identifiers
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            count += start <= node.start_byte < end
        else:
            stack.extend(node.children)
    return count


# Ties broken because one grammar extends the other and reads the tie the same way.
_SUPERSETS = ({"javascript", "typescript"}, {"c", "cpp"})


def detect_language(source: str) -> str:
    """The language of a snippet: the grammar that parses it with the fewest errors.

    Code that Java parses without error is Java (the toolkit read every snippet as
    Java before, and C-like code valid in Java reads the same), unless it has names
    starting with ``$`` (PHP's variables); so is code whose Java parse is at most
    twice as wrong as the best parse (:func:`count_errors`), since a Java method cut
    short reads badly in every grammar, unless it has such names and PHP reads it as
    well. Otherwise the grammar with the fewest errors
    wins; between grammars with as few, the one that reads fewer of the snippet's
    words as identifiers (it knows more of them as its keywords: C reads
    ``function f(a)`` as a function of type ``function``). A tie between JavaScript
    and TypeScript is JavaScript, one between C and C++ is C; any other tie is
    refused.

    Raises
    ------
    WrdscoreError
        One line naming the tied languages, when no grammar is clearly best.

    Examples
    --------
    >>> detect_language("def get_name(self):\\n    return self.name\\n")
    'python'
    >>> detect_language("func (u *User) Name() string { return u.name }")
    'go'
    >>> detect_language("int size() { return items.length; }")
    'java'
    """
    return _detect(str(source))


# Telling a language costs a parse per grammar, 38 times reading the code in a known
# one (15 ms against 0.4 ms a Python function): the same code, scored against every
# prediction made for its method, is told once. (At most 1,024 snippets are kept: 16 MB
# if every one were at the cap, MAX_CODE_CHARS.)
@lru_cache(maxsize=1024)
def _detect(source: str) -> str:
    """:func:`detect_language` of a plain string (the cache's key)."""
    data = source.encode("utf-8", "replace")
    java = snippet_root("java", data, detecting=True)
    if clean_java(java[0], data):
        # One parse, as before other languages were read: 4,281 methods of OpenJDK and
        # the examples all parse so, where comparing every grammar took 5.6 ms a method
        # and read 3 of them as C# or C (a variable ``string``, ``register``).
        return "java"
    parses = {name: snippet_root(name, data, detecting=True) for name in GRAMMARS if name != "java"}
    parses["java"] = java
    errors = {name: count_errors(root) for name, (root, _, _) in parses.items()}
    fewest = min(errors.values())
    # Names starting with $ are PHP's variables: code with them that PHP reads as well
    # as Java gets none of Java's precedence, or a PHP method that Java parses cleanly
    # (``public function getName() { return $this->name; }``) would still be Java, by
    # the rule for code cut short.
    php_like = errors["php"] <= errors["java"] and b"$" in data and _dollar_names(java[0])
    if not php_like and errors["java"] <= 2 * fewest:
        # A Java method cut short (the cap, a fragment) reads badly in every grammar,
        # and some other grammar reads some of it a little better.
        return "java"
    best = {name for name, count in errors.items() if count == fewest}
    if len(best) > 1:
        # A grammar that parses everything takes a keyword for a name (C's reading of
        # ``function f(a)`` has a type ``function``): the one that reads fewer of the
        # snippet's words as names understands more of it.
        names = {name: _identifier_count(name, *parses[name]) for name in best}
        least = min(names.values())
        best = {name for name, count in names.items() if count == least}
    if len(best) == 1:
        return best.pop()
    for family in _SUPERSETS:
        if best <= family:
            return min(family, key=LANGUAGES.index)
    tied = ", ".join(sorted(best, key=LANGUAGES.index))
    raise WrdscoreError(
        f"cannot tell the code's language: it parses as {tied} equally well; "
        "give the language (--language, or a 'language' key)"
    )


def snippet_root(name: str, data: bytes, *, detecting: bool = False) -> tuple[Node, int, int]:
    """A snippet parsed as language ``name``: the root, and the byte range of the
    snippet in what was parsed (the grammar's ``wrap`` is not the snippet's).

    A snippet with errors is parsed again wrapped, and read so where that has fewer
    errors; or, in a grammar :attr:`Grammar.wrap_only_clean`, where that has none,
    except when ``detecting`` its language, which compares every grammar by errors.
    Python cut from a class, indented as a whole, is parsed as it is: the grammar reads
    it as it reads the same code at the margin (3,703 indented methods of the standard
    library parse the same either way).
    """
    g = GRAMMARS[name]
    root = parser(name).parse(data).root_node
    if g.wrap is None or not root.has_error:
        return root, 0, len(data)
    head, tail = g.wrap
    wrapped = parser(name).parse(head + data + tail).root_node
    if (
        not wrapped.has_error
        if g.wrap_only_clean and not detecting
        else count_errors(wrapped) < count_errors(root)
    ):
        return wrapped, len(head), len(head) + len(data)
    return root, 0, len(data)
