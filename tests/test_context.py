"""Method context: the words of a method's Javadoc and declaration, from both parsers."""

from __future__ import annotations

import gzip
import json

import pytest
from corpus_fixtures import method_record, write_records
from hypothesis import given, settings
from hypothesis import strategies as st
from test_extract import JAVA8, JAVA17

from wrdscore.corpora import (
    _context,
    extract_file,
    ingest,
    open_corpus,
    split_identifier,
)
from wrdscore.corpora._context import (
    _NOT_WORDS,
    CONTEXT_MAX_TOKENS,
    _WordTokens,
    context_tokens,
)
from wrdscore.corpora._ingest import encode_records
from wrdscore.errors import WrdscoreError

# Java 8, so that javalang parses it as well as tree-sitter.
FILES = r"""package ctx;

import java.util.List;

class Files {
    /**
     * Reads the <b>first</b> line of {@code path}, or {@literal null} &amp; more.
     * @param path the file's path
     * @return the line
     * @throws java.io.IOException if reading fails
     */
    @SuppressWarnings("unchecked")
    public static String readFirstLine(java.nio.file.Path path) throws java.io.IOException {
        // Open the file: UTF-8 only.
        List<String> lines = java.nio.file.Files.readAllLines(path);
        return lines.isEmpty() ? null : lines.get(0x0) + "\tend\\n";
    }

    int countDown(int n) { return n <= 0 ? 0 : countDown(n - 1); /* recursive */ }

    abstract static class Shape { abstract double areaOf(Shape other); }

    String label = "gr\u00f6\u00dfe"; /** Die Größe. */ int größe(String ä) { return ä.length(); }
}
"""

# Worked out by hand from the rules in wrdscore/corpora/_context.py.
FILES_CONTEXT = {
    "readFirstLine": (
        # Javadoc: HTML tags, {@code / {@literal, @param / @return / @throws and &amp;
        # are dropped, so is the keyword "null"; block tags' text stays.
        "reads the first line of path or more path the file s path the line "
        "java io io exception reading fails "
        # declaration after the modifiers (the annotation is one of them), without
        # the name: keywords, 0x0 and the escapes \t and \\ are dropped ("\\n" is a
        # backslash then n).
        "string java nio file path path java io io exception "
        "open the file utf only "
        "list string lines java nio file files read all lines path "
        "lines is empty lines get end n"
    ),
    # The declaring name is left out; the recursive call is body text.
    "countDown": "n n count down n recursive",
    "areaOf": "shape other",
    # Non-ASCII letters, and an escape (\u00f6) earlier on the same line, which
    # javalang decodes before it counts columns.
    "größe": "die größe string ä ä length",
}

JAVA17_CONTEXT = {
    "describe": "string a shape with area area",
    "sortedByArea": (
        "t shape list t list t shapes shapes stream sorted comparator comparing double "
        "shape area to list"
    ),
    "kind": "object o o integer i i",
    # A method's context holds the local and anonymous classes and lambdas in it.
    "local": (
        "helper help out runnable r runnable run runnable q runnable lambda "
        "system out println not a method"
    ),
    "größteOperation": "op plus",
}


def _contexts(source: str, parser: str) -> dict[str, list[str]]:
    result = extract_file(source.encode(), parser, fallback=False)
    assert result.status == "parsed"
    return {r["name"]: r["context"].split() for r in result.records}


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_hand_worked_contexts_from_both_parsers(parser):
    contexts = _contexts(FILES, parser)
    assert {name: contexts[name] for name in FILES_CONTEXT} == {
        name: text.split() for name, text in FILES_CONTEXT.items()
    }


@pytest.mark.parametrize("source", [FILES, JAVA8])
def test_both_parsers_give_every_method_the_same_context(source):
    tree_sitter = extract_file(source.encode(), "tree-sitter").records
    javalang = extract_file(source.encode(), "javalang").records
    assert [(r["name"], r["context"]) for r in tree_sitter] == [
        (r["name"], r["context"]) for r in javalang
    ]
    assert any(r["context"] for r in tree_sitter)


def test_java17_contexts():
    contexts = _contexts(JAVA17, "tree-sitter")
    assert {name: contexts[name] for name in JAVA17_CONTEXT} == {
        name: text.split() for name, text in JAVA17_CONTEXT.items()
    }
    # Shape's abstract, documented area(), then Circle's and Square's.
    records = extract_file(JAVA17.encode()).records
    areas = [r["context"].split() for r in records if r["name"] == "area"]
    assert areas == [
        ["area", "of", "the", "shape", "always", "positive"],
        ["math", "pi", "radius", "radius"],
        ["side", "side"],
    ]


def test_context_tokens_are_the_splitter_s_tokens_of_the_kept_words():
    for record in extract_file(FILES.encode()).records:
        assert record["context"] == " ".join(record["context"].split())  # single spaces
        assert all(split_identifier(t) == [t] for t in record["context"].split())


def test_a_long_method_is_cut_at_the_cap_in_source_order():
    names = [f"value{i}Item" for i in range(200)]
    body = "; ".join(f"int {n} = 0" for n in names)
    source = f"class A {{ void fill() {{ {body}; }} }}"
    (record,) = extract_file(source.encode()).records
    expected = [t for n in names for t in split_identifier(n)][:CONTEXT_MAX_TOKENS]
    assert CONTEXT_MAX_TOKENS == 256
    assert record["context"].split() == expected
    # The same cap when the words that fill it come after many dropped ones.
    keywords = " ".join(["this.x = null;"] * 300)
    source = f"class A {{ void fill() {{ {keywords} {body}; }} }}"
    (record,) = extract_file(source.encode()).records
    assert record["context"].split() == ["x"] * 256


def test_reading_a_long_method_in_pieces_changes_nothing(monkeypatch):
    # Lines of dropped words first, so the cap is reached only in later pieces; an
    # escape and a text block's line continuation (backslash, line break) on the way.
    lines = ["assert 0x1F + 10L != 2;"] * 400 + ['String s = "a\\tb" + """', "c \\", 'd""";']
    lines += [f"use(item{i}Value, other{i});" for i in range(300)]
    source = "class A {\n  void fill() {\n" + "\n".join(lines) + "\n  }\n}\n"
    assert len(source) > 3 * _context._PIECE
    pieces = _contexts(source, "tree-sitter")["fill"]
    monkeypatch.setattr(_context, "_PIECE", 10**9)
    whole = _contexts(source, "tree-sitter")["fill"]
    assert pieces == whole and len(whole) == 256
    assert whole[:8] == ["string", "s", "a", "b", "c", "d", "use", "item"]


def test_javalang_position_it_cannot_trust_gives_the_javadoc_only():
    # javalang decodes \u000a into a line break before counting lines, so its line
    # for g is one too far; the context then falls back to the Javadoc.
    source = r"class A { /* \u000a */ /** Doc. */ void g(int x) { int y; } }"
    assert _contexts(source, "tree-sitter") == {"g": ["doc", "x", "y"]}
    assert _contexts(source, "javalang") == {"g": ["doc"]}


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('"a\\nb\\u00e9c\\\\d"', ["a", "b", "c", "d"]),  # escapes separate words
        ("0x1F + 10L + 1e5 + 2.5f", []),  # numbers
        ("@Nullable Object o", ["object", "o"]),  # annotations
        ("a&&b", ["a", "b"]),  # "&" is an operator in code
        ("'c' + '\\t'", ["c"]),
        ("var x = new Foo(this, super.y, true)", ["x", "foo", "y"]),
        ("getHTTPResponse_v2$x", ["get", "http", "response", "v", "2", "x"]),
    ],
)
def test_words_of_code(code, expected):
    data = f"void f() {{ {code}; }}".encode()
    assert context_tokens(data, 0, len(data), 5, 6, None) == expected


def test_words_of_javadoc():
    doc = b"/** A &lt;b&gt; {@inheritDoc} <a href='x.html'>link</a> for&nbsp;it. @see Foo#bar */"
    assert context_tokens(b"", 0, 0, 0, 0, doc) == ["a", "b", "link", "it", "foo", "bar"]


@settings(max_examples=300, deadline=None)
@given(st.from_regex(rb"[A-Za-z][A-Za-z0-9_$]{0,15}", fullmatch=True))
def test_word_cache_agrees_with_the_splitter(word):
    expected = [] if word in _NOT_WORDS else split_identifier(word.decode())
    assert list(_WordTokens()[word]) == expected


@settings(max_examples=100, deadline=None)
@given(
    name=st.text(min_size=1, max_size=12),
    summary=st.none() | st.text(max_size=20),
    path=st.text(min_size=1, max_size=12),
    source=st.integers(0, 5),
    words=st.lists(st.from_regex(r"[a-zA-Zäß0-9 ]{1,10}", fullmatch=True), max_size=5),
    code=st.text(max_size=40),
)
def test_encoded_records_equal_json_dumps(name, summary, path, source, words, code):
    context = " ".join(t for w in words for t in split_identifier(w))
    record = {
        "name": name,
        "tokens": split_identifier(name),
        "type": "A.<anonymous>",
        "line": 3,
        "summary": summary,
        "context": context,
        "code": code,
        "code_words": words[0] if words else None,
        "code_truncated": False,
    }
    line = encode_records([record], path, source)
    full = {**record, "path": path, "source": source}
    ordered = {k: full[k] for k in ("name", "tokens", "type", "path", "line", "summary")}
    ordered.update(context=context, source=source, code=code, code_words=record["code_words"])
    assert line == json.dumps(ordered, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_ingest_writes_format_4_with_context(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Files.java").write_text(FILES, encoding="utf-8")
    manifest = ingest([tmp_path / "src"], tmp_path / "c", jobs=1, quiet=True)
    assert manifest["format"] == 4
    corpus = open_corpus(tmp_path / "c")
    corpus.require_context()
    records = {r["name"]: r for r in corpus.iter_methods()}
    assert records["countDown"]["context"] == FILES_CONTEXT["countDown"]
    with gzip.open(tmp_path / "c" / "methods.jsonl.gz", "rt", encoding="utf-8") as fh:
        assert all(json.loads(line)["context"] is not None for line in fh)


def test_an_old_format_corpus_is_refused_for_context_with_one_line(tmp_path):
    corpus = open_corpus(write_records(tmp_path / "c", [method_record("getX")]))
    assert corpus.format == 1
    assert [r["name"] for r in corpus.iter_methods()] == ["getX"]  # names still read
    with pytest.raises(WrdscoreError) as err:
        corpus.require_context()
    message = str(err.value)
    assert "re-ingest" in message and "format 1" in message and "\n" not in message
