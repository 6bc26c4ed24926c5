"""The shared sub-token splitter: a table of real identifiers plus properties."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wrdscore.corpora import split_identifier, to_tokens

# Real method, field and class names from the JDK and common libraries.
CASES = [
    ("toASN1Primitive", "to asn 1 primitive"),
    ("parseHTTPResponse", "parse http response"),
    ("XMLHttpRequest", "xml http request"),
    ("md5Hex", "md 5 hex"),
    ("getUserName", "get user name"),
    ("toString", "to string"),
    ("hashCode", "hash code"),
    ("equals", "equals"),
    ("getURL", "get url"),
    ("getURLs", "get urls"),
    ("getIDsFor", "get ids for"),
    ("HTMLEditorKit", "html editor kit"),
    ("isUTF8", "is utf 8"),
    ("sha256Hex", "sha 256 hex"),
    ("encodeBase64String", "encode base 64 string"),
    ("readInt32", "read int 32"),
    ("utf8ToUtf16", "utf 8 to utf 16"),
    ("getX", "get x"),
    ("setX509Certificate", "set x 509 certificate"),
    ("MAX_VALUE", "max value"),
    ("DEFAULT_BUFFER_SIZE", "default buffer size"),
    ("serialVersionUID", "serial version uid"),
    ("snake_case_name", "snake case name"),
    ("_internalHelper", "internal helper"),
    ("__init__", "init"),
    ("$jacocoInit", "jacoco init"),
    ("access$000", "access 000"),
    ("lambda$main$0", "lambda main 0"),
    ("ArrayList", "array list"),
    ("ConcurrentHashMap", "concurrent hash map"),
    ("IOException", "io exception"),
    ("URLClassLoader", "url class loader"),
    ("getHTTPSURL", "get httpsurl"),
    ("html5Parser", "html 5 parser"),
    ("IPv4Address", "i pv 4 address"),
    ("a", "a"),
    ("A", "a"),
    ("ABC", "abc"),
    ("newJDBCConnection", "new jdbc connection"),
    ("get2DPoint", "get 2 d point"),
    ("ÜberClass", "über class"),
    ("größeBerechnen", "größe berechnen"),
    ("名前を取得", "名前を取得"),
    ("getNombreÑandú", "get nombre ñandú"),
    ("update image", "update image"),
    ("set artwork entry", "set artwork entry"),
    ("Returns the HTTPResponse, or null.", "returns the http response or null"),
    ("", ""),
    ("___", ""),
    ("  ", ""),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_real_identifiers(name, expected):
    assert split_identifier(name) == (expected.split() if expected else [])


def test_combining_mark_stays_with_its_letter():
    decomposed = unicodedata.normalize("NFD", "getCafé")
    assert split_identifier(decomposed) == ["get", unicodedata.normalize("NFD", "café")]


def test_to_tokens_splits_every_piece():
    assert to_tokens(["get", "userName"]) == ["get", "user", "name"]
    assert to_tokens("get user name") == ["get", "user", "name"]
    with pytest.raises(TypeError):
        to_tokens(["get", 3])  # type: ignore[list-item]


def _kept(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "LNM"


@given(st.text())
def test_joining_tokens_never_loses_a_letter(text):
    expected = "".join(c.lower() for c in text if _kept(c))
    assert "".join(split_identifier(text)) == expected


@given(st.text())
def test_tokens_are_nonempty_without_separators(text):
    for tok in split_identifier(text):
        assert tok
        assert not any(c.isspace() or c in "_$" for c in tok)


ascii_ident = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,30}", fullmatch=True)


@given(ascii_ident)
def test_splitting_is_idempotent_on_java_identifiers(name):
    tokens = split_identifier(name)
    assert split_identifier(" ".join(tokens)) == tokens
    assert all(t == t.lower() for t in tokens)


@given(st.lists(st.one_of(st.text(), st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True))))
def test_to_tokens_of_a_list_is_every_piece_split(pieces):
    # to_tokens takes a shortcut for pieces that are already sub-tokens; it must agree
    # with the splitter on every piece.
    assert to_tokens(pieces) == [t for p in pieces for t in split_identifier(p)]


@given(st.text(alphabet="aAbBsSzZ09_ $xXyYLl.", max_size=16))
def test_ascii_fast_path_follows_the_character_rules(text):
    # ASCII text goes through one regular expression; it must split exactly as the
    # character-by-character rules that every other text follows.
    from wrdscore.corpora._tokenize import _split_cached, _split_chars

    assert _split_cached.__wrapped__(text) == _split_chars(text)


def test_ascii_fast_path_on_the_hard_cases():
    from wrdscore.corpora._tokenize import _split_chars

    for name in ["getURLs", "URLsFoo", "URLse", "ABs1", "aBs", "ABCsx", "HTTPResponse", "A1b"]:
        assert split_identifier(name) == list(_split_chars(name)), name


@given(st.lists(st.text(alphabet="ab1 A_", max_size=4), max_size=5))
def test_token_list_fast_path_is_every_piece_split(pieces):
    assert to_tokens(pieces) == [t for p in pieces for t in split_identifier(p)]
