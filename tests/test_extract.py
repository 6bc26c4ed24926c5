"""The pure per-file extraction: which declarations are methods, their scopes and summaries."""

from __future__ import annotations

import pytest
from corpus_fixtures import java_identifiers
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.corpora import extract_file, first_sentence, split_identifier
from wrdscore.corpora._javalang import extract_javalang
from wrdscore.corpora._treesitter import extract_treesitter

# Java 17: records, sealed types, switch expressions, text blocks, generics, annotations,
# enums with bodies, default interface methods, nested/local/anonymous classes, unicode.
JAVA17 = """\
package demo;

import java.util.*;

/** A shape. */
public sealed interface Shape permits Circle, Square {
    /** Area of the shape. Always positive. */
    double area();

    default String describe() {
        return \"\"\"
            a shape with area
            \"\"\" + area();
    }

    static <T extends Shape> List<T> sortedByArea(List<T> shapes) {
        return shapes.stream().sorted(Comparator.comparingDouble(Shape::area)).toList();
    }
}

record Circle(double radius) implements Shape {
    Circle {
        if (radius < 0) throw new IllegalArgumentException();
    }

    @Override
    public double area() { return Math.PI * radius * radius; }
}

final class Square implements Shape {
    private final double side;

    Square(double side) { this.side = side; }

    @Override
    public double area() { return side * side; }

    int kind(Object o) {
        return switch (o) {
            case Integer i -> i;
            default -> { yield 0; }
        };
    }

    static class Builder<B extends Builder<B>> {
        B withSide(double s) { return null; }

        class Inner { void touch() {} }
    }

    @interface Marker { String value() default ""; int priority(); }

    void local() {
        class Helper { int helpOut() { return 1; } }
        Runnable r = new Runnable() {
            @Override public void run() { Runnable q = () -> {}; }
        };
        Runnable lambda = () -> System.out.println("not a method");
    }
}

enum Op {
    PLUS {
        @Override int apply(int a, int b) { return a + b; }
    },
    MINUS {
        @Override int apply(int a, int b) { return a - b; }
    };

    abstract int apply(int a, int b);

    static Op größteOperation() { return PLUS; }
}
"""

# (name, type, line) of every method above, worked out by hand.
JAVA17_METHODS = [
    ("area", "Shape", 8),
    ("describe", "Shape", 10),
    ("sortedByArea", "Shape", 16),
    ("area", "Circle", 27),
    ("area", "Square", 36),
    ("kind", "Square", 38),
    ("withSide", "Square.Builder", 46),
    ("touch", "Square.Builder.Inner", 48),
    ("local", "Square", 53),
    ("helpOut", "Square.local.Helper", 54),
    ("run", "Square.local.<anonymous>", 56),
    ("apply", "Op.PLUS", 64),
    ("apply", "Op.MINUS", 67),
    ("apply", "Op", 70),
    ("größteOperation", "Op", 72),
]

# Java 8 only, so javalang can parse it too; return types on the name's line.
JAVA8 = """\
package old;

/**
 * A container of {@code int} values.
 */
public class Box<T> {
    /** Creates nothing. */
    public Box() { new Thread(new Runnable() { public void run() {} }) { public void start() {} }; }

    /**
     * Returns the {@link java.util.List list} of values, e.g. a copy.
     * @return values
     */
    public java.util.List<T> getValues() { return null; }

    /* not javadoc */
    private static int parseHTTPResponse(String s) { return 0; }

    static final Object HOLDER = new Object() { public String toString() { return "h"; } };

    interface Visitor { void visitNode(Object n); default void reset() {} }

    enum Level { LOW, HIGH { boolean isHigh() { return true; } };
                 boolean isHigh() { return false; } }

    void outer() { class Local { void inner() {} } }
}
"""

JAVA8_METHODS = [
    ("run", "Box.<init>.<anonymous>", 8, None),
    ("start", "Box.<init>.<anonymous>", 8, None),
    ("getValues", "Box", 14, "Returns the list of values, e.g."),
    ("parseHTTPResponse", "Box", 17, None),
    ("toString", "Box.<anonymous>", 19, None),
    ("visitNode", "Box.Visitor", 21, None),
    ("reset", "Box.Visitor", 21, None),
    ("isHigh", "Box.Level.HIGH", 23, None),
    ("isHigh", "Box.Level", 24, None),
    ("outer", "Box", 26, None),
    ("inner", "Box.outer.Local", 26, None),
]


def _found(result):
    return [(r["name"], r["type"], r["line"]) for r in result.records]


def test_java17_every_method_with_its_scope_and_line():
    result = extract_file(JAVA17.encode())
    assert result.status == "parsed" and result.reason is None
    assert _found(result) == JAVA17_METHODS


def test_constructors_lambdas_and_annotation_elements_are_not_methods():
    names = {r["name"] for r in extract_file(JAVA17.encode()).records}
    assert not names & {"Circle", "Square", "value", "priority", "lambda", "q"}


def test_records_carry_split_tokens_and_summaries():
    records = extract_file(JAVA17.encode()).records
    by_name = {r["name"]: r for r in records}
    assert by_name["sortedByArea"]["tokens"] == ["sorted", "by", "area"]
    assert by_name["größteOperation"]["tokens"] == ["größte", "operation"]
    assert records[0]["summary"] == "Area of the shape."
    assert by_name["describe"]["summary"] is None
    assert all(r["tokens"] == split_identifier(r["name"]) for r in records)


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_java8_both_parsers_agree_with_hand_worked_records(parser):
    result = extract_file(JAVA8.encode(), parser)
    assert result.status == "parsed"
    assert [(r["name"], r["type"], r["line"], r["summary"]) for r in result.records] == (
        JAVA8_METHODS
    )


def test_javalang_falls_back_to_tree_sitter_on_java17():
    result = extract_file(JAVA17.encode(), "javalang")
    assert result.status == "fallback"
    assert _found(result) == JAVA17_METHODS


def test_without_fallback_a_javalang_failure_is_a_failure_with_its_reason():
    result = extract_file(JAVA17.encode(), "javalang", fallback=False)
    assert result.status == "failed" and result.records == []
    assert result.reason.startswith("javalang: line ")


def test_tree_sitter_syntax_error_falls_back_to_javalang_when_it_parses():
    # `_` as an identifier is legal Java 8 (javalang) but a keyword since Java 9.
    source = b"class A { int _() { return 1; } void ok() {} }"
    result = extract_file(source)
    assert result.status == "fallback"
    assert [r["name"] for r in result.records] == ["_", "ok"]


def test_a_file_neither_parser_reads_fails_with_both_reasons_and_no_records():
    source = b"class A {\n  void good() {}\n  void bad( {\n}\n"
    for parser in ("tree-sitter", "javalang"):
        result = extract_file(source, parser)
        assert (result.status, result.records) == ("failed", [])
        assert "tree-sitter: line" in result.reason and "javalang: line 3" in result.reason


def test_non_utf8_bytes_are_replaced_and_flagged():
    source = "class A { /** Die Größe. */ int size() { return 0; } }".encode("latin-1")
    result = extract_file(source)
    assert result.non_utf8 and result.status == "parsed"
    assert [(r["name"], r["summary"]) for r in result.records] == [("size", "Die Gr\ufffd\ufffde.")]
    assert not extract_file(b"class A {}").non_utf8


def test_byte_order_mark_is_ignored():
    result = extract_file(b"\xef\xbb\xbfclass A { void f() {} }")
    assert (result.status, _found(result)) == ("parsed", [("f", "A", 1)])


def test_binary_file_is_not_parsed():
    result = extract_file(b"\xca\xfe\xba\xbe\x00\x00\x00\x3d")
    assert result.status == "binary" and result.records == [] and "NUL" in result.reason


def test_unknown_parser_is_refused():
    with pytest.raises(ValueError, match="parser"):
        extract_file(b"class A {}", "antlr")


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("/** Returns the value. More text. */", "Returns the value."),
        ("/**\n * Multi\n * line summary.\n */", "Multi line summary."),
        ("/** Uses {@code x < y} and {@link Foo#bar}. */", "Uses x < y and Foo#bar."),
        ("/** See {@linkplain Foo the foo}. */", "See the foo."),
        ("/** {@inheritDoc} */", None),
        ("/** <p>Html &amp; entities</p> stay readable */", "Html & entities stay readable"),
        ("/** Version 1.2 is out. */", "Version 1.2 is out."),
        ("/**\n * @param x the x\n */", None),
        ("/** Summary\n * @return a value. */", "Summary"),
        ("/* plain comment */", None),
        ("/**/", None),
        ("/***/", None),
        (None, None),
        # A link target's parameter list may hold spaces; the label follows it.
        ("/** Calls {@link Math#max(long, long) Math.max}. */", "Calls Math.max."),
        ("/** Uses {@link #foo(int, int)}. */", "Uses #foo(int, int)."),
        ("/** See {@link Foo {@code Foo}} now. */", "See Foo now."),
        # {@return} (JDK 16+) expands as javadoc does: "Returns " + text + ".".
        ("/** {@return the name} */", "Returns the name."),
        ("/** {@return the {@code int} value} More. */", "Returns the int value."),
        # Code and literal text is shown as written, angle brackets and braces included.
        ("/** Returns a {@code List<String>}. */", "Returns a List<String>."),
        ("/** Type {@literal <T>} here. */", "Type <T> here."),
        ("/** Set {@code {a, b}} here. */", "Set {a, b} here."),
        ("/** Code {@code &lt;} x. */", "Code &lt; x."),
        # A removed HTML tag separates words, not a word from punctuation.
        ("/** Processes <code>input</code>, at <i>offset</i>. */", "Processes input, at offset."),
        ("/** one<br>two (<b>x</b>) and <p>three. */", "one two (x) and three."),
        ("/** Keeps a real space , here. */", "Keeps a real space , here."),
        # A no-break space after a period does not end the sentence (javadoc's rule).
        ("/** For e.g.&nbsp;the first. Second. */", "For e.g. the first."),
        ("/** For e.g.\u00a0the first. Second. */", "For e.g. the first."),
        # Java ends lines at CR, LF or CRLF.
        ("/**\r * Returns the\r * thing. More.\r */", "Returns the thing."),
        ("/**\r\n * Returns the\r\n * thing. More.\r\n */", "Returns the thing."),
    ],
)
def test_first_sentence(comment, expected):
    assert first_sentence(comment) == expected


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
@pytest.mark.parametrize(
    ("between", "expected"),
    [
        ("", "Doc one."),
        ("// a note\n", "Doc one."),
        ("/* plain */\n", "Doc one."),
        ("/** Doc two. */\n", "Doc two."),
        ("int field;\n", None),
    ],
)
def test_the_last_javadoc_before_a_method_is_its_summary(parser, between, expected):
    source = f"class A {{\n /** Doc one. */\n {between} void f() {{}}\n}}\n"
    result = extract_file(source.encode(), parser)
    assert [r["summary"] for r in result.records] == [expected]


_identifiers = java_identifiers(25)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(_identifiers, min_size=1, max_size=5))
def test_every_declared_method_comes_out_once_in_order(names):
    body = "\n".join(f"  void {n}() {{}}" for n in names)
    source = f"class Generated {{\n{body}\n}}\n".encode()
    for extract in (lambda b: extract_treesitter(b), lambda b: extract_javalang(b.decode())):
        methods, failure = extract(source)
        assert failure is None
        assert [(m.name, m.type, m.line) for m in methods] == [
            (n, "Generated", i + 2) for i, n in enumerate(names)
        ]


_OLD_MAC = (
    "class A {\n  /**\n   * Returns the\n   * thing. More.\n   */\n"
    "  int getX() { return 1; } // one\n  int getY() { return size; }\n}\n"
)


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_lines_end_at_cr_lf_or_crlf(parser, newline):
    # A CR-only (old Mac) file was one line: every method on line 1, the Javadoc's `*`
    # prefixes kept, and tree-sitter's `// one` comment ran to the end of the file.
    result = extract_file(_OLD_MAC.replace("\n", newline).encode(), parser, fallback=False)
    assert result.status == "parsed"
    assert [(r["name"], r["line"], r["summary"], r["context"]) for r in result.records] == [
        ("getX", 6, "Returns the thing.", "returns the thing more"),
        ("getY", 7, None, "size"),
    ]


_QUALIFIED_NEW = b"""class Outer {
  class Inner { void base() {} }
  void go(Outer o) {
    Object a = this.new Inner() { void qual() {} };
    Object b = o.new Inner() { void other() {} };
    Object c = new Inner() { void plain() {} };
    f(this.new Inner() { void arg() {} });
  }
}
"""


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_qualified_inner_class_creation_is_anonymous_in_both_parsers(parser):
    # javalang calls `this.new Inner() {...}` an InnerClassCreator, not a ClassCreator.
    result = extract_file(_QUALIFIED_NEW, parser, fallback=False)
    assert result.status == "parsed"
    assert [(r["name"], r["type"], r["line"]) for r in result.records] == [
        ("base", "Outer.Inner", 2),
        ("go", "Outer", 3),
        ("qual", "Outer.go.<anonymous>", 4),
        ("other", "Outer.go.<anonymous>", 5),
        ("plain", "Outer.go.<anonymous>", 6),
        ("arg", "Outer.go.<anonymous>", 7),
    ]
