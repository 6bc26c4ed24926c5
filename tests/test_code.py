"""Reading a method's code for code-aware scoring (issue 25): every rule of read_code,
checked by hand and against javalang's tokenizer, and the code that ingest keeps."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import javalang
import pytest
from corpus_fixtures import java_identifiers, method_record, write_records
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.corpora import (
    MAX_CODE_CHARS,
    STRING_POLICIES,
    TARGETS,
    CorpusMethod,
    corpus_methods,
    declared_name,
    detect_language,
    extract_file,
    ingest,
    open_corpus,
    read_code,
    segment,
    split_identifier,
)
from wrdscore.corpora._code import _read_code, code_words, read_code_words
from wrdscore.corpus_inputs import StoredCode
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.code import read_codes

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "project"

GET_USER_NAME = """\
/** Gets the user's <b>name</b>, see {@link #getUserName}. */
@Override @javax.annotation.Nullable
public String getUserName() {
    log("getUserName called", 3); // cheap: no lookup
    var cached = this.userName;
    return cached == null ? getUserName() : cached;
}"""


def test_name_target_masks_the_name_and_drops_comments_and_the_rest():
    # By hand: comments, annotation names, keywords, `var`, `this`, `null`, the number,
    # the string and every occurrence of the name dropped.
    assert read_code(GET_USER_NAME) == [
        "string",
        "log",
        *["cached", "user", "name"],
        *["cached", "cached"],
    ]


def test_comments_read_as_the_signal_s_candidate_rule_and_masked_there_too():
    # Not the chosen rule (read_code drops comments), but the candidate the held-out
    # signal measured: Javadoc words read as `context` reads them, the name masked.
    assert _read_code(GET_USER_NAME, comments=True)[:9] == [
        *["gets", "the", "user", "s", "name", "see"],
        *["string", "log", "cheap"],
    ]
    assert _read_code(GET_USER_NAME, comments=False) == read_code(GET_USER_NAME)


def test_summary_target_removes_comments_and_does_not_mask():
    assert read_code(GET_USER_NAME, target="summary") == [
        "string",
        *["get", "user", "name"],
        "log",
        *["cached", "user", "name"],
        *["cached", "get", "user", "name", "cached"],
    ]


def test_kept_strings_give_their_words_and_the_name_is_masked_in_them_too():
    assert read_code(GET_USER_NAME, strings="keep")[:3] == ["string", "log", "called"]
    code = 'void f() { s = "a\\tfor-value\\u00e9x" + """\n  text block\n  """; }'
    assert read_code(code, strings="keep") == ["s", "a", "value", "x", "text", "block"]
    assert read_code(code, strings="drop") == ["s"]


def test_a_leaked_name_is_masked_everywhere_but_its_words_elsewhere_stay():
    # The field userName is evidence, not the answer; the name itself, in the
    # declaration, the recursive call, the Javadoc link and a kept string, is gone.
    tokens = read_code(GET_USER_NAME, strings="keep")
    assert "get" not in tokens
    masked_by_hand = GET_USER_NAME.replace("getUserName", "_")
    # (``_`` is no Java name, so this snippet's language is given: issue 34.)
    assert tokens == read_code(masked_by_hand, strings="keep", name="noSuchName", language="java")
    # The given name wins over the declared one; a summary masks nothing.
    assert "get" in read_code(GET_USER_NAME, name="log")
    assert "log" not in read_code(GET_USER_NAME, name="log")


def test_without_a_declaration_nothing_is_masked():
    assert declared_name("return size(items) + 1;") is None
    assert read_code("return size(items) + 1;") == ["size", "items"]


@pytest.mark.parametrize(
    ("snippet", "name", "tokens"),
    [
        # A bare method, a whole class, members that only parse inside a class.
        ("int size() { return n; }", "size", ["n"]),
        ("class A { int size() { return n; } }", "size", ["a", "n"]),
        ("int n; int size() { return n; }", "size", ["n", "n"]),
        # Cut short (a method over the cap, a pasted fragment): the name is still found.
        (
            "int sizeOf(List<X> xs) {\n  for (X x : xs) { total += x.size(",
            "sizeOf",
            ["list", "x", "xs", "x", "x", "xs", "total", "x", "size"],
        ),
        # The outer method, not one in an anonymous class inside it.
        (
            "void start() { new Thread() { public void run() { go(); } }.start(); }",
            "start",
            ["thread", "run", "go"],
        ),
    ],
)
def test_snippets_of_any_shape(snippet, name, tokens):
    assert declared_name(snippet) == name
    assert read_code(snippet) == tokens


def test_literal_true_false_null_and_numbers_are_dropped_unless_asked():
    code = "boolean isOn() { return x == null ? false : 0x1F > 2; }"
    assert read_code(code) == ["x"]
    assert _read_code(code, literals=True) == ["x", "null", "false"]


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("", "error: empty code"),
        ("  \n\t ", "error: empty code"),
        ("int f() {\0}", "error: binary code (contains NUL bytes)"),
        ("x" * (MAX_CODE_CHARS + 1), f"error: code of {MAX_CODE_CHARS + 1:,} characters is over"),
        (b"int f() {}", "error: code must be a string, not bytes"),
    ],
)
def test_bad_code_is_a_one_line_error(code, message):
    with pytest.raises(WrdscoreError) as err:
        read_code(code)
    assert f"error: {err.value}".startswith(message) and "\n" not in str(err.value)
    with pytest.raises(WrdscoreError):
        declared_name(code)


def test_code_of_exactly_the_cap_is_read():
    body = "int f() { return x; }\n"
    code = body + " " * (MAX_CODE_CHARS - len(body))
    assert len(code) == MAX_CODE_CHARS and read_code(code) == ["x"]


@pytest.mark.parametrize(("option", "value"), [("target", "title"), ("strings", "split")])
def test_unknown_options_are_one_line_errors(option, value):
    with pytest.raises(WrdscoreError, match="choose one of"):
        read_code("int f() {}", **{option: value})
    assert TARGETS == ("name", "summary") and STRING_POLICIES == ("drop", "keep")


# --- against an independent computation: javalang's tokenizer -----------------------


def _javalang_identifiers(code: str, mask: str | None = None) -> list[str]:
    """Identifier sub-tokens as javalang lexes them: comments and literals are not
    identifiers; an annotation's (dotted) name follows ``@``; ``var`` and ``yield``
    are contextual keywords."""
    tokens = list(javalang.tokenizer.tokenize(code))
    out: list[str] = []
    annotation = False
    for i, token in enumerate(tokens):
        before = tokens[i - 1].value if i else ""
        if isinstance(token, javalang.tokenizer.Identifier):
            annotation = before == "@" or (annotation and before == ".")
            if not annotation and token.value not in ("var", "yield", mask):
                out += split_identifier(token.value)
        elif token.value != ".":
            annotation = False
    return out


def _example_methods() -> list[tuple[str, str]]:
    records = []
    for path in sorted(EXAMPLES.rglob("*.java")):
        result = extract_file(path.read_bytes())
        records += [(r["name"], r["code"]) for r in result.records]
    return records


def test_example_methods_agree_with_javalangs_tokenizer():
    methods = _example_methods()
    assert len(methods) > 20
    for name, code in methods:
        assert read_code(code, target="summary") == _javalang_identifiers(code), name
        # Names: the same identifiers with the declared name masked (comments apart).
        assert _read_code(code, comments=False) == _javalang_identifiers(code, name), name


_identifiers = java_identifiers(17)


@settings(max_examples=60, deadline=None)
@given(name=_identifiers, ids=st.lists(_identifiers, min_size=3, max_size=3))
def test_generated_methods(name, ids):
    a, b, c = ids
    code = (
        f"/** Calls {name} on {a}. */\n"
        f"int {name}(int {a}) {{ return {name}({b}) + {c}.length; }} // {name}\n"
    )
    split = split_identifier
    masked = [t for x in ids if x != name for t in split(x)]  # an id may equal the name
    assert read_code(code, target="summary") == [
        *split(name),
        *split(a),
        *split(name),
        *split(b),
        *split(c),
        "length",
    ]
    assert read_code(code) == [*masked, "length"]
    commented = _read_code(code, comments=True)
    assert commented == ["calls", "on", *([] if a == name else split(a)), *masked, "length"]
    assert _javalang_identifiers(code) == read_code(code, target="summary")


# --- what ingest keeps ---------------------------------------------------------------

_SPANS = """\
class A {
    /** Doc. */
    @Deprecated(since = "9") public static <T extends Comparable<T>> T max(T[] xs) {
        return xs[0];
    }
    // make it final
    int plain() { return 1; }
    public @SuppressWarnings("x") final void mixed() {}
    abstract void none();
}
"""


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_both_parsers_keep_the_same_source_text(parser):
    result = extract_file(_SPANS.encode(), parser, fallback=False)
    assert result.status == "parsed"
    assert [r["code"] for r in result.records] == [
        '@Deprecated(since = "9") public static <T extends Comparable<T>> T max(T[] xs) {\n'
        "    return xs[0];\n}",
        "int plain() { return 1; }",
        'public @SuppressWarnings("x") final void mixed() {}',
        "abstract void none();",
    ]
    assert not any(r["code_truncated"] for r in result.records)


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_a_method_over_the_cap_keeps_whole_lines_up_to_it(parser, tmp_path):
    lines = "".join(f"        call{i}();\n" for i in range(MAX_CODE_CHARS // 10))
    source = f"class Big {{\n    void big() {{\n{lines}    }}\n    void small() {{}}\n}}\n"
    result = extract_file(source.encode(), parser, fallback=False)
    big, small = result.records
    assert big["code_truncated"] and not small["code_truncated"]
    assert len(big["code"]) <= MAX_CODE_CHARS and big["code"].endswith("();\n")
    assert big["code"].startswith("void big() {\n    call0();\n")
    tokens = read_code(big["code"])  # cut short, but still read, with the name masked
    assert tokens[:2] == ["call", "0"] and "big" not in tokens
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Big.java").write_text(source)
    manifest = ingest([tmp_path / "src"], tmp_path / "c", jobs=1, quiet=True, parser=parser)
    assert manifest["counts"]["methods_code_truncated"] == 1
    assert manifest["format"] == 4


def test_corpus_methods_give_ids_references_and_code(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "A.java").write_text(
        "class A {\n  /** Gets x. */\n  int getX() { return x; }\n"
        "  void f() {} void f(int y) {}\n}\n"
    )
    ingest([tmp_path / "src"], tmp_path / "c", jobs=1, quiet=True)
    names = list(corpus_methods(tmp_path / "c"))
    assert names == [
        CorpusMethod(0, "A.java:3:getX", "getX", "int getX() { return x; }", "getX"),
        CorpusMethod(1, "A.java:4:f", "f", "void f() {}", "f"),
        CorpusMethod(2, "A.java:4:f#2", "f", "void f(int y) {}", "f"),
    ]
    summaries = [m.reference for m in corpus_methods(tmp_path / "c", target="summary")]
    assert summaries == ["Gets x.", None, None]
    with pytest.raises(WrdscoreError, match="unknown target 'title'"):
        next(corpus_methods(tmp_path / "c", target="title"))


def test_a_java_method_cut_at_the_cap_is_parsed_as_java_not_told(tmp_path):
    # Cut at a line, this switch is no longer valid Java, and told from its code it reads
    # as PHP (as 15 of OpenJDK 17's cut methods read as Go, C or PHP): score --strings
    # keep and format 3 corpora parsed a corpus's Java that way, keywords as words.
    cases = "".join(
        f"      case {i}: {{\n        Object v{i} = (Object) stack.get(top - 1);\n"
        f"        result = new Symbol({i}, v{i});\n      }}\n      return result;\n"
        for i in range(400)
    )
    # The comment's length puts the cut where the rest reads as PHP.
    body = f"    // {'x' * 12}\n    switch (n) {{\n{cases}    }}\n"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "P.java").write_text(
        f"class P {{\n  public Object act(int n) throws Exception {{\n{body}}}\n}}\n"
    )
    ingest([tmp_path / "src"], tmp_path / "c", jobs=1, quiet=True)
    (m,) = corpus_methods(tmp_path / "c", code=True)
    assert len(m.code) <= MAX_CODE_CHARS and detect_language(str(m.code)) == "php"
    parsed = read_codes([{"code": m.code, "name": m.name}], "name", "keep").tokens
    assert "case" not in parsed[0] and "throws" not in parsed[0]
    assert parsed == [read_code(m.code, name=m.name, strings="keep", language="java")]
    stored = read_code_words(m.words, target="name", name=m.name)
    assert read_code(m.code, name=m.name, language="java") == stored
    assert m.code.language == "java"


def test_corpus_methods_of_several_sources_name_the_source(tmp_path):
    for d in ("one", "two"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "A.java").write_text("class A { void run() {} }")
    ingest([tmp_path / "one", tmp_path / "two"], tmp_path / "c", jobs=1, quiet=True)
    assert [m.id for m in corpus_methods(tmp_path / "c")] == ["0/A.java:1:run", "1/A.java:1:run"]


def test_an_older_corpus_names_the_re_ingest_command(tmp_path):
    old = write_records(
        tmp_path / "old",
        [method_record("getX")],
        {"format": 2, "sources": [{"path": "/data/my src"}], "counts": {"methods": 1}},
    )
    with pytest.raises(WrdscoreError) as err:
        next(corpus_methods(old))
    assert str(err.value) == (
        f"corpus {old} has format 2, without the methods' code; re-ingest it with "
        f"`wrdscore ingest '/data/my src' -o {old} --force` to score against code"
    )
    open_corpus(old).require_context()  # still fine for what it has


def test_records_on_disk_carry_the_code_and_its_words_last(tmp_path):
    ingest([EXAMPLES], tmp_path / "c", jobs=1, quiet=True)
    with gzip.open(tmp_path / "c" / "methods.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    assert all(list(r)[-2:] == ["code", "code_words"] and r["code"] for r in records)
    assert all(declared_name(r["code"]) == r["name"] for r in records)
    assert all(r["code_words"] == code_words(r["code"]) for r in records)


# --- the identifiers stored at ingest (format 4) against a parse -----------------------


def _jdk_records(every: int = 40) -> list[dict]:
    """The records of every ``every``-th Java file of the JDK's src.zip, when there is one."""
    import zipfile

    archive = Path("/usr/lib/jvm/openjdk-17/lib/src.zip")
    if not archive.is_file():
        return []
    with zipfile.ZipFile(archive) as zf:
        files = sorted(n for n in zf.namelist() if n.endswith(".java"))[::every]
        return [r for f in files for r in extract_file(zf.read(f)).records if r["code"]]


def test_stored_words_read_as_a_parse_of_every_example_and_jdk_method(tmp_path):
    """What ``score --corpus`` reads from a format 4 corpus (the stored identifiers,
    masked by the record's name and split) is read_code of the source, for both targets."""
    ingest([EXAMPLES], tmp_path / "c", jobs=1, quiet=True)
    corpus = [(m.name, m.code, m.words) for m in corpus_methods(tmp_path / "c")]
    jdk = [(r["name"], r["code"], r["code_words"]) for r in _jdk_records()]
    tricky = [("g", s, code_words(s)) for s in _TRICKY]
    assert len(corpus) > 20 and all(w is not None for _, _, w in corpus + jdk + tricky)
    for target in TARGETS:
        items = [StoredCode(code, name, words) for name, code, words in corpus + jdk + tricky]
        got = read_codes(items, target, "drop").tokens
        assert len(got) == len(items)
        for tokens, (name, code, _) in zip(got, corpus + jdk + tricky, strict=True):
            assert tokens == read_code(code, target=target, name=name), (name, code[:80])
        # Segmented per identifier (memoised) as segmenting the whole method's tokens.
        assert read_codes(items, target, "drop", segmented=True).tokens == [segment(t) for t in got]
        parsed = [{"code": code, "name": name} for name, code, _ in corpus + jdk + tricky]
        # The tricky snippets are masked as "g", which most do not declare: allowed.
        segmented = read_codes(parsed, target, "drop", segmented=True, allow_unmasked=True).tokens
        assert segmented == [segment(t) for t in got]
    # The name masked wherever it stands whole, also in a call; its words elsewhere stay.
    leaked = "int getX() { return getX() + getXOr(x); }"
    assert read_code_words(code_words(leaked), target="name", name="getX") == [
        "get", "x", "or", "x",
    ]  # fmt: skip


def test_stored_words_are_not_read_where_strings_are_kept():
    source = 'void g() { h("stored words"); }'
    item = StoredCode(source, "g", code_words(source))
    kept = read_codes([item], "name", "keep").tokens
    assert kept == [read_code(source, name="g", strings="keep")]
    assert kept != read_codes([item], "name", "drop").tokens


def test_code_that_read_code_refuses_stores_no_words():
    assert code_words("   ") is None
    assert code_words("x" * (MAX_CODE_CHARS + 1)) is None
    assert code_words("int f() { return 1; }") == "f"


# --- the fast reader against the previous one ----------------------------------------


def _previous_read_code(source, *, target="name", name=None, strings="drop", comments=False):
    """read_code as it was before the speed-up (commit 44a31e7): every identifier's
    annotation checked through its parents, every piece sorted by position."""
    from itertools import chain

    import tree_sitter_java
    from tree_sitter import Language, Parser, Query, QueryCursor

    from wrdscore.corpora._code import declared_name
    from wrdscore.corpora._context import (
        _CODE_SPACES,
        _DOC_SPACES,
        _HTML_TAG,
        _word_tokens,
        _words,
    )

    java = Language(tree_sitter_java.language())
    query = Query(
        java,
        """
        (identifier) @id
        (type_identifier) @id
        (line_comment) @comment
        (block_comment) @comment
        (string_literal) @string
        (marker_annotation name: (_) @annotation)
        (annotation name: (_) @annotation)
        """,
    )
    data = source.encode()
    # Alone, or as a class body where only that parses cleanly.
    head, tail = b"class _Snippet {\n", b"\n}\n"
    root, start, end = Parser(java).parse(data).root_node, 0, len(data)
    if root.has_error:
        wrapped = Parser(java).parse(head + data + tail).root_node
        if not wrapped.has_error:
            root, start, end = wrapped, len(head), len(head) + len(data)

    def _inside(nodes, start, end):
        return [n for n in nodes if start <= n.start_byte and n.end_byte <= end]

    def _tokens(words, mask):
        return list(chain.from_iterable(_word_tokens[w] for w in words if w != mask))

    captures = QueryCursor(query).captures(root)
    mask = None
    if target == "name":
        found = name if name is not None else declared_name(source, "java")
        mask = found.encode() if found else None
    annotations = {(n.start_byte, n.end_byte) for n in captures.get("annotation", [])}

    def annotated(node):
        parent = node.parent
        while parent is not None and parent.type == "scoped_identifier":
            node, parent = parent, parent.parent
        return (node.start_byte, node.end_byte) in annotations

    pieces = [
        (n.start_byte, _word_tokens[n.text])
        for n in _inside(captures.get("id", []), start, end)
        if n.text != mask and not annotated(n)
    ]
    if comments:
        for n in _inside(captures.get("comment", []), start, end):
            plain = _HTML_TAG.sub(b" ", n.text).replace(b"&", b" &")
            pieces.append((n.start_byte, _tokens(_words(plain, _DOC_SPACES), mask)))
    if strings == "keep":
        for n in _inside(captures.get("string", []), start, end):
            pieces.append((n.start_byte, _tokens(_words(n.text, _CODE_SPACES), mask)))
    pieces.sort(key=lambda piece: piece[0])
    return list(chain.from_iterable(tokens for _, tokens in pieces))


def _jdk_sample(every: int = 40) -> list[tuple[str, str]]:
    """Every ``every``-th Java file of the installed JDK's src.zip, when there is one."""
    import zipfile

    archive = Path("/usr/lib/jvm/openjdk-17/lib/src.zip")
    if not archive.is_file():
        return []
    with zipfile.ZipFile(archive) as zf:
        files = sorted(n for n in zf.namelist() if n.endswith(".java"))[::every]
        methods = []
        for f in files:
            result = extract_file(zf.read(f))
            methods += [(r["name"], r["code"]) for r in result.records if r["code"]]
    return methods


# Snippets where the fast paths differ from the general one: annotations (plain,
# scoped, with arguments, after identifiers), fragments that are parsed again inside a
# class, code that parses with errors, and the name in strings and comments.
_TRICKY = [
    GET_USER_NAME,
    "@a.b.C(x = D.E) @F int g(@G.H int y) { @I var z = y; return j(z); }",
    "int x; void g() { x++; }",
    'return g(x) + "g h";',
    'void g( { h("g"); @J',
    "class K { @L void g() { new @M N(); } } // g",
]


def test_the_fast_reader_reads_as_the_previous_one():
    methods = _example_methods() + _jdk_sample() + [("g", s) for s in _TRICKY]
    assert len(methods) > 20
    for name, code in methods:
        for target, strings, comments in [
            ("name", "drop", False),
            ("summary", "keep", False),
            ("name", "keep", True),
        ]:
            given = name if target == "name" else None
            options = {"target": target, "name": given, "strings": strings}
            assert _read_code(code, comments=comments, **options) == _previous_read_code(
                code, comments=comments, **options
            ), (name, code[:80])
        assert read_code(code) == _previous_read_code(code), name  # the name declared


@pytest.mark.parametrize("lead", ["    ", "\n\n  \t", "\n"])
def test_leading_whitespace_reads_as_the_dedented_code(lead):
    # A method cut out of a file keeps its indentation (`sed -n ... Catalog.java`): the
    # root node then starts after the whitespace, and offsets must not shift with it.
    source = (
        "public List<Book> searchTitles(String query) {\n"
        "        List<Book> found = lookup(query);\n"
        "        return found; }"
    )
    indented = lead + source.replace("\n", "\n" + lead)
    for target in TARGETS:
        assert read_code(indented, target=target) == read_code(source, target=target)
    assert code_words(indented) == code_words(source)
    assert read_code(indented) == _javalang_identifiers(indented, "searchTitles")
    broken = lead + "void searchTitles(String query) { if (query"
    assert declared_name(broken) == "searchTitles"
