"""A corpus's stored identifiers read as token ids (``corpora._code_ids``): the same tokens
as ``read_code_words`` method by method, and the same code support as scoring their token
lists, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.corpora._code import read_code_words
from wrdscore.corpora._code_ids import CodeTokens, code_token_ids
from wrdscore.corpus_inputs import StoredCode
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.metrics import get_metric
from wrdscore.metrics._code_read import read_codes, read_stored_codes
from wrdscore.metrics._validate import ItemError

# Identifiers as code has them: camelCase, snake_case, acronyms, digits, run-together
# words, Java's contextual keywords, non-ASCII letters, and an empty one (two spaces).
IDENTIFIERS = [
    "getUserName",
    "user_name",
    "HTTPResponse",
    "getURLs",
    "toASN1Primitive",
    "indexof",
    "istimeoutsetinrequestcontext",
    "var",
    "yield",
    "size",
    "i",
    "Größe",
    "café",
    "x2",
    "_",
    "$tmp",
    "",
]
WORDS = st.lists(st.sampled_from(IDENTIFIERS), max_size=12).map(" ".join)


def _expected(words: list[str], masks: list[str | None], segmented: bool) -> list[list[str]]:
    return [
        read_code_words(w, target="name", name=m, segmented=segmented)
        for w, m in zip(words, masks, strict=True)
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(WORDS, st.one_of(st.none(), st.sampled_from(IDENTIFIERS))), max_size=8),
    st.booleans(),
)
def test_the_ids_read_as_read_code_words_reads_each_method(methods, segmented):
    words = [w for w, _ in methods]
    masks = [m for _, m in methods]
    got = code_token_ids(words, masks, segmented)
    assert list(got) == _expected(words, masks, segmented)
    assert got.lengths().tolist() == [len(t) for t in got]


def test_run_together_words_are_segmented_only_when_asked():
    words = ["istimeoutsetinrequestcontext getUserName", "getUserName"]
    assert code_token_ids(words, ["getUserName", None])[0] == ["istimeoutsetinrequestcontext"]
    both = code_token_ids(words, ["getUserName", None], segmented=True)
    assert both[0] == ["is", "timeout", "set", "in", "request", "context"]
    assert both[1] == ["get", "user", "name"]


def test_code_tokens_index_slice_and_take():
    code = code_token_ids(["getSize size", "", "size_of getSize"], [None, None, None])
    assert code[-1] == ["size", "of", "get", "size"]
    assert code[1:] == [[], ["size", "of", "get", "size"]]
    with pytest.raises(IndexError):
        code[3]
    taken = code.take([2, 0, 2])
    assert isinstance(taken, CodeTokens)
    assert list(taken) == [code[2], code[0], code[2]]
    assert list(code.take([])) == []


def test_a_batch_of_stored_methods_reads_as_read_codes_does():
    items = [
        StoredCode(None, "getSize", "getSize size count"),
        None,
        StoredCode(None, "run", "", "python"),
        StoredCode(None, "f", "f var yield", "java"),
    ]
    for target in ("name", "summary"):
        for segmented in (False, True):
            lists = read_codes(items, target, "drop", segmented=segmented)
            ids = read_stored_codes(items, target, segmented=segmented)
            assert ids is not None and isinstance(ids.tokens, CodeTokens)
            assert list(ids.tokens) == lists.tokens
            assert ids.languages == lists.languages
            assert ids.unmasked == lists.unmasked == 0
    # Any other item (a source to parse) is read as before.
    assert read_stored_codes([*items, "int f() { return 1; }"], "name") is None
    assert read_stored_codes([StoredCode("int f() {}", "f", None)], "name") is None  # type: ignore[arg-type]


def test_an_unknown_record_language_names_its_item():
    items = [StoredCode(None, "f", "f g"), StoredCode(None, "g", "g h", "cobol")]
    with pytest.raises(ItemError, match=r"code 8.*cobol"):
        read_stored_codes(items, "name", offset=6)
    # Each language is checked once: the first item in an unknown one is named, as
    # read_codes names it, and a language given for the batch is the one checked.
    items = [StoredCode(None, "f", "f", "cobol"), None, StoredCode(None, "g", "g", "ada"),
             StoredCode(None, "h", "h", "cobol")]  # fmt: skip
    with pytest.raises(ItemError, match=r"code 7.*cobol"):
        read_stored_codes(items, "name", offset=6)
    with pytest.raises(ItemError, match=r"code 7.*cobol"):
        read_codes(items, "name", "drop", offset=6)
    found = read_stored_codes(items, "name", language="python")
    assert found is not None and found.languages == ["python", None, "python", "python"]


@pytest.fixture(scope="module")
def emb():
    rng = np.random.default_rng(7)
    vocab = [
        "get",
        "set",
        "user",
        "name",
        "size",
        "count",
        "of",
        "by",
        "id",
        "value",
        "key",
        "find",
        "request",
        "context",
    ]
    return TokenEmbeddings.from_vectors({w: rng.normal(size=8) for w in vocab}, name="ids")


@pytest.mark.parametrize("oov", ["zero", "drop"])
def test_the_best_match_of_token_ids_equals_that_of_token_lists(emb, oov):
    rng = np.random.default_rng(3)
    pool = [*IDENTIFIERS, "findUserById", "keyValue", "countOf", "setKey", "idValue"]
    words = [" ".join(rng.choice(pool, size=int(rng.integers(1, 40)))) for _ in range(80)]
    masks = [str(rng.choice(pool)) for _ in words]
    metric = get_metric("wrd", embeddings=emb, oov=oov)
    ids = code_token_ids(words, masks, segmented=True)
    lists = list(ids)
    both = [i for i, t in enumerate(lists) if t]
    preds = [list(rng.choice(["get", "user", "size", "key", "by", "nothing"], size=3))]
    preds = [preds[0][: 1 + i % 3] for i in both]
    by_ids = metric._code_support(ids.take(both), preds)
    by_lists = metric._code_support([lists[i] for i in both], preds)
    assert np.array_equal(by_ids.values["code"], by_lists.values["code"])
    assert np.array_equal(by_ids.degenerate, by_lists.degenerate)
    assert by_ids.oov_count == by_lists.oov_count
    for distinct in (False, True):
        a = metric.code_coverage(ids.take(both), preds, distinct=distinct)
        b = metric.code_coverage([lists[i] for i in both], preds, distinct=distinct)
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
