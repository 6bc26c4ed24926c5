"""Reading some fields of a corpus's records (FieldReader) and scoring a corpus without
decoding its methods' source (corpus_methods(code=False)): the same values as json.loads
of every record, whatever the strings hold."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from corpus_fixtures import method_record, write_records
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.corpora import RECORD_FIELDS, corpus_methods, ingest, open_corpus
from wrdscore.corpora._corpus import FieldReader, encode_record, method_items
from wrdscore.corpus_inputs import StoredCode, corpus_inputs
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._validate import ItemError
from wrdscore.metrics.code import read_codes

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "project"

# Strings that look like the record's own keys and separators, escapes and line breaks.
TRICKY = st.sampled_from(
    [
        ',"name":"x"',
        '{"code_words":"a"}',
        '\\",\\"line\\":',
        "ends in a backslash \\",
        "\\",
        '"',
        "\u2028\n\r\t",
        "é ☃ \U0001f600",
        "}",
        ",",
    ]
)
TEXT = st.one_of(st.text(max_size=30), TRICKY, st.lists(TRICKY).map("".join))
VALUE = st.one_of(st.none(), st.integers(), TEXT, st.lists(TEXT, max_size=4))


@settings(max_examples=300, deadline=None)
@given(
    record=st.fixed_dictionaries({f: VALUE for f in RECORD_FIELDS}),
    wanted=st.lists(st.sampled_from(RECORD_FIELDS), unique=True, min_size=1),
    compact=st.booleans(),
)
def test_fields_read_as_json_loads_reads_them(record, wanted, compact):
    line = encode_record(record) if compact else json.dumps(record) + "\n"
    expected = json.loads(line)
    # In any order asked, the values json.loads gives, and nothing else.
    assert FieldReader(wanted)(line) == {f: expected[f] for f in wanted}


@given(record=st.fixed_dictionaries({"name": TEXT, "summary": VALUE}))
def test_a_missing_field_is_absent_as_with_json_loads(record):
    line = encode_record(record)
    assert FieldReader(["name", "code_words", "summary"])(line) == record


@pytest.mark.parametrize(
    "line",
    [
        '{"name":"getX","code":"int getX() {","line":3\n',  # truncated
        '{"name":"getX","line":3x}\n',  # junk after a value
        '{"name":"getX","line":}\n',  # no value
        '["name","getX"]\n',  # not an object
    ],
)
def test_invalid_json_is_still_an_error(line):
    with pytest.raises(json.JSONDecodeError):
        FieldReader(["name", "line"])(line)


def test_a_bad_line_is_a_one_line_error_from_the_corpus(tmp_path):
    folder = write_records(tmp_path / "c", [method_record("getX")], {"format": 4})
    methods = folder / "methods.jsonl.gz"
    with gzip.open(methods, "wt", encoding="utf-8") as fh:
        fh.write('{"name":"getX","path":"T.java","line":1x}\n')
    with pytest.raises(WrdscoreError, match=r"line 1 is not valid JSON"):
        list(open_corpus(folder).iter_methods(FieldReader(["name", "line"])))


@pytest.fixture(scope="module")
def example_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("fields") / "c"
    ingest([EXAMPLES], out, jobs=1, quiet=True)
    return out


@pytest.mark.parametrize("target", ["name", "summary"])
def test_corpus_methods_without_code_differ_only_in_the_code(example_corpus, target):
    with gzip.open(example_corpus / "methods.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    full = list(corpus_methods(example_corpus, target=target))
    bare = list(corpus_methods(example_corpus, target=target, code=False))
    assert [m.code for m in full] == [r["code"] for r in records]
    assert [m.words for m in full] == [r["code_words"] for r in records]
    assert [m.reference for m in full] == [r[target] for r in records]
    # CorpusMethod's equality leaves the words out: they are compared above.
    assert [m.words for m in bare] == [m.words for m in full]
    assert bare == [type(m)(m.index, m.id, m.reference, None, m.name, m.words) for m in full]


@pytest.mark.parametrize("target", ["name", "summary"])
@pytest.mark.parametrize("code", [True, False])
def test_method_items_are_corpus_methods_without_ids(example_corpus, target, code):
    methods = corpus_methods(example_corpus, target=target, code=code)
    assert list(method_items(example_corpus, target=target, code=code)) == [
        (m.reference, m.code, m.name, m.words, m.language) for m in methods
    ]
    with pytest.raises(WrdscoreError, match="unknown target 'title'"):
        next(method_items(example_corpus, target="title"))


def test_a_method_without_stored_words_keeps_its_code(tmp_path):
    records = [
        {**method_record("getX"), "code": "int getX() { return x; }", "code_words": None},
        {**method_record("f"), "code": "", "code_words": None},
        {**method_record("g"), "code": "void g() { h(); }", "code_words": "g h"},
    ]
    folder = write_records(tmp_path / "c", records, {"format": 4, "counts": {"methods": 3}})
    assert [m.code for m in corpus_methods(folder, code=False)] == [
        "int getX() { return x; }",
        "",
        None,
    ]
    names = tmp_path / "names.txt"
    names.write_text("a\nb\nc\n")
    _, items, _ = corpus_inputs(folder, names, "name", tmp_path, code=False)
    assert items == [
        {"code": "int getX() { return x; }", "name": "getX"},
        None,
        StoredCode(None, "g", "g h"),
    ]
    read = read_codes(items, "name", "drop")
    assert read.tokens == [["x"], [], ["h"]]
    # The parsed item's language is told from its code; a stored one's is its record's.
    assert read.languages == ["java", None, "java"]
    # Only the default reading can score code that was not read.
    with pytest.raises(ItemError, match="was not read from the corpus"):
        read_codes(items, "name", "keep")
