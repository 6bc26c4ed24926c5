"""Reading code in every language (issue 34): identifiers, masking, docstrings, detection.

Python's reading is checked against Python's own ``tokenize`` and ``ast``; every other
language against hand-written expectations on a small fixture project per language
(tests/data/languages/LANG/).
"""

from __future__ import annotations

import ast
import io
import json
import keyword
import tokenize
from pathlib import Path
from typing import Any

import pytest

from wrdscore.corpora import corpus_methods, ingest, split_identifier
from wrdscore.corpora._code import code_words, declared_name, read_code, read_code_words
from wrdscore.corpora._languages import (
    GRAMMARS,
    LANGUAGES,
    count_errors,
    detect_language,
    language_of_path,
    snippet_root,
)
from wrdscore.corpora._reader import extract
from wrdscore.errors import WrdscoreError

DATA = Path(__file__).parent / "data" / "languages"
PY_FIXTURE = DATA / "python" / "users.py"
# The languages that the table's reader extracts (every one but Java, whose own
# extractors, tree-sitter and javalang, read examples/project): each has a fixture here.
OTHERS = sorted(name for name, g in GRAMMARS.items() if not g.extractors)


def _python_functions(path: Path) -> list[tuple[str, str]]:
    """(name, source) of every function of a Python file, by Python's own ast."""
    text = path.read_text()
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            source = ast.get_source_segment(text, node)
            assert source is not None
            out.append((node.name, source))
    return out


def _tokenize_names(source: str) -> list[str]:
    """NAME tokens that are identifiers: keywords left out (soft keywords such as
    ``match`` are names wherever the fixtures use them)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [t.string for t in tokens if t.type == tokenize.NAME and not keyword.iskeyword(t.string)]


def test_python_identifiers_are_tokenize_names() -> None:
    # On the whole fixture file (docstrings, comments, strings, decorators, lambdas):
    # the identifiers tree-sitter reads are exactly the NAME tokens that are not
    # keywords, in order, less self and cls.
    text = PY_FIXTURE.read_text()
    words = code_words(text, "python")
    assert words is not None
    expected = [n for n in _tokenize_names(text) if n not in ("self", "cls")]
    assert words.split(" ") == expected


@pytest.mark.parametrize(("name", "source"), _python_functions(PY_FIXTURE))
def test_python_function_reading_against_tokenize(name: str, source: str) -> None:
    # Each function read alone (as ast cuts it, body indented): the declared name is
    # ast's, masked everywhere; every other NAME split; docstrings and comments absent.
    source = "    " + source  # as written in a class: indented
    assert declared_name(source, "python") == name
    names = [n for n in _tokenize_names(source) if n not in ("self", "cls", name)]
    expected = [t for n in names for t in split_identifier(n)]
    assert read_code(source, language="python") == expected
    stored = code_words(source, "python")
    assert stored is not None
    assert read_code_words(stored, target="name", name=name) == expected


def test_python_docstrings_and_self_are_not_words() -> None:
    src = (
        "def get_user_name(self, user_id):\n"
        '    """Return the user name of a user id."""\n'
        "    # look it up\n"
        "    return self.names.get(user_id, get_user_name)\n"
    )
    assert read_code(src, language="python") == ["user", "id", "names", "get", "user", "id"]
    # Target summary: the name stays, the docstring and comment still do not count.
    assert read_code(src, target="summary", language="python") == [
        "get", "user", "name", "user", "id", "names", "get", "user", "id", "get", "user", "name",
    ]  # fmt: skip
    # Kept strings are the code's strings, never its docstring.
    with_string = src.replace("get_user_name)\n", '"unknown user")\n')
    kept = read_code(with_string, strings="keep", language="python")
    assert kept[-2:] == ["unknown", "user"] and "return" not in kept
    assert read_code("def f(cls, x): return cls(x)", language="python") == ["x", "x"]


def test_python_lambda_bound_to_a_name_is_masked() -> None:
    src = "normalize_email = lambda address: normalize_email(address.strip())"
    assert declared_name(src, "python") == "normalize_email"
    assert read_code(src, language="python") == ["address", "address", "strip"]


def test_python_read_as_java_no_longer_crashes() -> None:
    # Issue 34: 22 of 532 stdlib methods gave an IndexError in _context (a parser's
    # zero-width missing identifier read as an empty word). This one did.
    src = (
        "def __new__(cls, value, token_type):\n"
        "        self = super().__new__(cls, value)\n"
        "        self.token_type = token_type\n"
        "        return self\n"
    )
    assert read_code(src, language="java")  # read as Java when asked: no crash
    assert read_code(src) == ["value", "token", "type", "super", "value", "token", "type",
                              "token", "type"]  # fmt: skip


# Per language: a snippet, its language, its declared name and its reading (target name).
SNIPPETS = {
    "java": (
        "public String getUserName() { return userName; }",
        "getUserName",
        ["string", "user", "name"],
    ),
    "python": (
        "def get_user_name(self, user_id):\n    return self.users[user_id]",
        "get_user_name",
        ["user", "id", "users", "user", "id"],
    ),
    "javascript": (
        "function getUserName(id) { return users.get(id) || getUserName(0); }",
        "getUserName",
        ["id", "users", "get", "id"],
    ),
    "typescript": (
        "function getUserName(id: number): string { return users.get(id); }",
        "getUserName",
        ["id", "users", "get", "id"],
    ),
    "go": (
        "func (s *Store) GetUserName(id int) string { return s.users[id] }",
        "GetUserName",
        ["s", "store", "id", "int", "string", "s", "users", "id"],
    ),
    "php": (
        "function get_user_name($id) { return $this->users[$id]; }",
        "get_user_name",
        ["id", "users", "id"],
    ),
    "ruby": (
        "def user_name(id)\n  @users.fetch(id) { user_name(0) }\nend",
        "user_name",
        ["id", "users", "fetch", "id"],
    ),
    "c_sharp": (
        "public string GetUserName(int id) => users[id]?.Name ?? GetUserName(0);",
        "GetUserName",
        ["id", "users", "id", "name"],
    ),
    "c": (
        "static const char *user_name(struct store *s, int id) { return s->names[id]; }",
        "user_name",
        ["store", "s", "id", "s", "names", "id"],
    ),
    "cpp": (
        "std::string Store::userName(int id) const { return names_.at(id); }",
        "userName",
        ["std", "string", "store", "id", "names", "at", "id"],
    ),
}


def test_every_language_has_a_snippet_and_a_fixture() -> None:
    assert set(SNIPPETS) == set(LANGUAGES)
    assert {p.name for p in DATA.iterdir()} == set(OTHERS)


@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_reading_and_masking(language: str) -> None:
    source, name, expected = SNIPPETS[language]
    assert declared_name(source, language) == name
    assert read_code(source, language=language) == expected
    # Unmasked, the name's tokens come back (the masking is what removed them).
    summary = read_code(source, target="summary", language=language)
    assert set(split_identifier(name)) <= set(summary)
    stored = code_words(source, language)
    assert stored is not None
    assert read_code_words(stored, target="name", name=name) == expected


@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_detection(language: str) -> None:
    source, _, expected = SNIPPETS[language]
    if language in ("typescript",):
        # Written with types, so JavaScript cannot read it.
        assert detect_language(source) == "typescript"
    assert detect_language(source) == language
    assert read_code(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "public function getName() { return $this->name; }",
        "function find(int $id) { return $id; }",
    ],
)
def test_a_php_method_that_java_parses_cleanly_is_php(source: str) -> None:
    # Valid Java (a type `function`, a lambda `$this -> name`), so Java's parse has no
    # error; its names starting with $ make it PHP, where $this is not a word.
    root, _, _ = snippet_root("java", source.encode(), detecting=True)
    assert count_errors(root) == 0
    assert detect_language(source) == "php"
    assert read_code(source) == read_code(source, language="php")
    assert "this" not in read_code(source)


def test_java_with_a_dollar_name_that_php_cannot_read_stays_java() -> None:
    # $ is a letter of Java names (generated code, this$0): PHP reads this one worse.
    source = "int size() { return $items.length; }"
    assert detect_language(source) == "java"
    assert read_code(source) == ["items", "length"]


@pytest.mark.parametrize("indent", ["    ", "        ", "\t"])
def test_python_cut_from_a_class_reads_as_at_the_margin(indent: str) -> None:
    # As a method is cut from a class (every line indented): the grammar reads it with
    # its indentation as it reads it at the margin, nothing dedented before parsing.
    at_margin = (
        "@property\n"
        "def total_price(self, tax=None):\n"
        '    """The sum of the prices."""\n'
        "    if tax:\n"
        "        return sum(i.price for i in self.items) * tax\n"
        "    return sum(i.price for i in self.items)\n"
    )
    indented = "".join(indent + line for line in at_margin.splitlines(keepends=True))
    root, _, _ = snippet_root("python", indented.encode())
    assert count_errors(root) == 0
    assert detect_language(indented) == "python"
    assert declared_name(indented, "python") == "total_price"
    for strings in ("drop", "keep"):
        expected = read_code(at_margin, language="python", strings=strings)
        assert read_code(indented, language="python", strings=strings) == expected
    assert read_code(indented, language="python") == [
        "property", "tax", "tax", "sum", "i", "price", "i", "items", "tax",
        "sum", "i", "price", "i", "items",
    ]  # fmt: skip


def test_detection_refuses_a_tie_with_one_line() -> None:
    with pytest.raises(WrdscoreError, match=r"^cannot tell the code's language: .*python"):
        detect_language("print(x)")
    with pytest.raises(WrdscoreError, match="cannot tell"):
        read_code("print(x)")


def test_unknown_language_is_one_line() -> None:
    with pytest.raises(WrdscoreError, match=r"^unknown language 'cobol': choose one of java"):
        read_code("x", language="cobol")


def test_language_of_path() -> None:
    assert language_of_path("a/B.java") == "java"
    assert language_of_path("a/b.PY") == "python"
    assert language_of_path("x.tsx") is None  # TSX is its own grammar: not read
    for g in GRAMMARS.values():
        assert all(language_of_path("f" + ext) == g.name for ext in g.extensions)


EXPECTED_FIXTURES = {
    "python": {
        "find_user_by_email": ("UserStore", "Return the user whose e-mail address is given."),
        "from_rows": ("UserStore", "Build a store from (id, email) rows."),
        "add_user": ("UserStore", None),
        "normalize_email": ("", None),
        "fetch_user_names": ("", "Fetch the names of the given users."),
    },
    "javascript": {
        "totalPrice": ("", "Sums the prices of the items in a cart."),
        "addItem": ("Cart", "Adds an item to the cart."),
        "removeUnavailable": ("", "Removes the items that are out of stock."),
    },
    "typescript": {
        "totalPrice": ("", "Sums the prices of the items in a cart."),
        "removeUnavailable": ("", "Removes the items that are out of stock."),
    },
    "go": {
        "PushJob": ("", "Appends a job to the end of the queue."),
        "NewQueue": ("", "Makes an empty queue."),
    },
    "php": {
        "sendToAll": ("Mailer", "Sends a message to every recipient."),
        "format_greeting": ("", "Formats a greeting for a user."),
    },
    "ruby": {
        "stock_level": ("Inventory", "Returns how many items of a product are in stock."),
        "from_products": ("Inventory", "Builds an inventory from a list of products."),
    },
    "c_sharp": {"Deposit": ("Bank.Accounts", "Deposits an amount into an account.")},
    "c": {"buffer_free": ("", "Frees the memory of a buffer.")},
    "cpp": {"valueAt": ("linalg.Matrix", "Returns the value at a row and column.")},
}


@pytest.mark.parametrize("language", OTHERS)
def test_fixture_functions(language: str) -> None:
    (path,) = (DATA / language).iterdir()
    assert language_of_path(path.name) == language
    methods, failure = extract(language, path.read_bytes(), 256)
    assert failure is None
    found = {m.name: m for m in methods}
    for name, (scope, summary) in EXPECTED_FIXTURES[language].items():
        assert (found[name].type, found[name].summary) == (scope, summary)
        # The record's code declares the name, and reads without its documentation.
        assert declared_name(found[name].code, language) == name
        assert name not in found[name].context.__repr__()
    assert all(m.code for m in methods)


def _cli(*args: object) -> Any:
    from typer.testing import CliRunner

    from wrdscore.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


def test_fixture_projects_are_ingested_and_scored(tmp_path: Path) -> None:
    # Every language's fixture project, each file read in the language of its extension.
    corpus = tmp_path / "corpus"
    manifest = ingest([DATA], corpus, jobs=1, quiet=True, language="all")
    assert manifest["counts"]["files_failed"] == 0
    assert set(manifest["grammars"]) == set(LANGUAGES)
    methods = list(corpus_methods(corpus, "summary", code=True))
    by_language: dict[str, int] = {}
    for m in methods:
        language = language_of_path(m.id.split(":")[0])
        assert language is not None
        by_language[language] = by_language.get(language, 0) + 1
        # The stored identifiers are what reading the kept source in its language gives.
        assert m.words == code_words(m.code or "", language), m.id
    assert set(by_language) == set(OTHERS)
    # `corpus records` lists them with their ids, in order.
    listed = _cli("corpus", "records", corpus)
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[0] == "index\tid\treference"
    assert [line.split("\t")[1] for line in lines[1:]] == [m.id for m in methods]
    # A folder that is not a corpus: one line on stderr, nothing on stdout.
    (tmp_path / "not-a-corpus").mkdir()
    not_one = _cli("corpus", "records", tmp_path / "not-a-corpus")
    assert not_one.exit_code == 2 and not not_one.stdout, not_one.stdout
    assert "is not a corpus" in not_one.stderr
    # score --corpus reads every language's code: true names are supported by it.
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(line.split("\t")[2] + "\n" for line in lines[1:]))
    scored = _cli("score", "--corpus", corpus, "--preds", preds, "--metric", "rouge1")
    assert scored.exit_code == 0, scored.output
    assert "code" in scored.output and "combined" in scored.output


def test_ingest_of_one_language_reads_only_its_files(tmp_path: Path) -> None:
    manifest = ingest([DATA], tmp_path / "py", jobs=1, quiet=True, language="python")
    assert manifest["counts"]["files_seen"] == 1
    assert manifest["language"] == "python"
    names = [m.name for m in corpus_methods(tmp_path / "py")]
    assert names == [
        "__init__", "find_user_by_email", "from_rows", "add_user",
        "count_users_per_domain", "normalize_email", "fetch_user_names",
    ]  # fmt: skip
    # Scored, its signature says the language (a Java corpus's says none, as before).
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(name + "\n" for name in names))
    scored = _cli("score", "--corpus", tmp_path / "py", "--preds", preds, "-m", "rouge1")
    assert scored.exit_code == 0 and "|lang:python|" in scored.output, scored.output
    with pytest.raises(WrdscoreError, match=r"^unknown language 'cobol'"):
        ingest([DATA], tmp_path / "x", jobs=1, quiet=True, language="cobol")
    with pytest.raises(WrdscoreError, match=r"contains no \.go files"):
        ingest([DATA / "python"], tmp_path / "y", jobs=1, quiet=True, language="go")


def test_grammars_are_imported_only_when_their_code_is_read() -> None:
    # Plain scoring imports no grammar (nor tree-sitter); reading Java imports only
    # Java's; Python code, once read, imports Python's.
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from wrdscore.cli import app\n"
        "r = CliRunner().invoke(app, ['score', '--refs', 'examples/refs.txt', "
        "'--preds', 'examples/preds.txt'])\n"
        "assert r.exit_code == 0, r.output\n"
        "loaded = lambda: sorted({m.split('.')[0] for m in sys.modules "
        "if m.startswith('tree_sitter')})\n"
        "print(loaded())\n"
        "from wrdscore.corpora import read_code\n"
        "read_code('int size() { return items.length; }')\n"
        "print(loaded())\n"
        "read_code('def f(x):\\n    return x', language='python')\n"
        "print(loaded())\n"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [
        "[]",
        "['tree_sitter', 'tree_sitter_java']",
        "['tree_sitter', 'tree_sitter_java', 'tree_sitter_python']",
    ]


def test_code_jsonl_language_key_is_read_in_that_language(tmp_path: Path) -> None:
    # print(get_name(user)) parses as Python, JavaScript, Ruby and more alike: told from
    # the code it is refused in one line; with a language key it is read.
    code, preds = tmp_path / "code.jsonl", tmp_path / "preds.txt"
    preds.write_text("get name\n")
    code.write_text(json.dumps("print(get_name(user))") + "\n")
    refused = _cli("score", "--code", code, "--preds", preds, "--metric", "rouge1")
    assert refused.exit_code == 2
    assert "cannot tell the code's language" in refused.output
    code.write_text(json.dumps({"code": "print(get_name(user))", "language": "python"}) + "\n")
    # Read as Python, it declares no function: no name to mask, so refused for names.
    unmasked = _cli("score", "--code", code, "--preds", preds, "--metric", "rouge1")
    assert unmasked.exit_code == 2
    assert "code 1 cannot be masked: read as python" in unmasked.output
    scored = _cli(
        "score", "--code", code, "--preds", preds, "--metric", "rouge1", "--target", "summary"
    )
    assert scored.exit_code == 0, scored.output
    code.write_text(json.dumps({"code": "x", "language": "cobol"}) + "\n")
    bad = _cli("score", "--code", code, "--preds", preds, "--metric", "rouge1")
    assert bad.exit_code == 2 and "code.jsonl:1: unknown language 'cobol'" in bad.output


def test_source_code_says_its_language() -> None:
    import pickle

    from wrdscore.corpora import SourceCode

    code = SourceCode("print(get_name(user))", "python")
    expected = ["print", "get", "name", "user"]  # no function declared: nothing masked
    assert read_code(code) == read_code(str(code), language="python") == expected
    assert pickle.loads(pickle.dumps(code)).language == "python"
    with pytest.raises(WrdscoreError, match="unknown language"):
        SourceCode("x", "cobol")


def test_score_and_explain_take_a_language(tmp_path: Path) -> None:
    code, preds, snippet = tmp_path / "code.jsonl", tmp_path / "preds.txt", tmp_path / "f.py"
    preds.write_text("get name\n")
    # A function, so that its name can be masked (a fragment is refused for names).
    function = "def show(user):\n    print(get_name(user))\n"
    code.write_text(json.dumps(function) + "\n")
    scored = _cli("score", "--code", code, "--preds", preds, "-m", "rouge1", "--language", "python")
    assert scored.exit_code == 0, scored.output
    # The signature records the language given (auto where each item's is read or told).
    assert "|str:drop|lang:python|" in scored.output
    keyed = tmp_path / "keyed.jsonl"
    keyed.write_text(json.dumps({"code": function, "language": "python"}) + "\n")
    unsaid = _cli("score", "--code", keyed, "--preds", preds, "-m", "rouge1")
    assert unsaid.exit_code == 0 and "|str:drop|lang:auto|" in unsaid.output
    cobol = _cli("score", "--code", code, "--preds", preds, "--language", "cobol")
    assert cobol.exit_code == 2 and "unknown language 'cobol'" in cobol.output
    no_code = _cli("score", "--refs", preds, "--preds", preds, "--language", "python")
    assert no_code.exit_code == 2 and "--language applies to --code" in no_code.output
    snippet.write_text("print(get_name(user))\n")
    told = _cli("explain", "user_name", "--code", snippet)
    assert told.exit_code == 2 and "cannot tell the code's language" in told.output
    snippet.write_text(function)
    given = _cli("explain", "user_name", "--code", snippet, "--language", "python")
    assert given.exit_code == 0, given.output
    assert "code support" in given.output and "|lang:python|" in given.output


def test_explain_cuts_a_long_method_as_score_does(tmp_path: Path) -> None:
    # score --code cuts a method over the cap at a line (issue 35); explain refused it
    # ("code of 60,790 characters is over the cap of 16,384").
    snippet = tmp_path / "f.py"
    snippet.write_text("def f(x):\n" + "    # a comment line\n" * 1000 + "    return x\n")
    res = _cli("explain", "f", "--code", snippet, "--language", "python")
    assert res.exit_code == 0, res.output
    assert "code support" in res.output and "cut to 16,384 characters" in res.output


def test_a_corpus_keeps_its_languages_when_its_code_is_parsed(tmp_path: Path) -> None:
    # With --strings keep a corpus's code is parsed again: in its record's language
    # (JavaScript's `addItem(item) {...}` alone parses as C++ too, and was refused).
    corpus = tmp_path / "js"
    ingest([DATA / "javascript"], corpus, jobs=1, quiet=True, language="javascript")
    methods = list(corpus_methods(corpus, code=True))
    assert all(getattr(m.code, "language", None) == "javascript" for m in methods)
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(m.name + "\n" for m in methods))
    args = ("score", "--corpus", corpus, "--preds", preds, "-m", "rouge1", "--strings", "keep")
    scored = _cli(*args)
    assert scored.exit_code == 0, scored.output


def test_a_php_file_mixing_html_and_code_is_read() -> None:
    # Files are parsed with the full PHP grammar (HTML around <?php ... ?>), snippets
    # with the one for code alone.
    page = b"<html><body>\n<?php\n/** Greets a user. */\nfunction greet($name) {\n"
    page += b'  return "Hi " . $name;\n}\n?>\n</body></html>\n'
    methods, failure = extract("php", page, 256)
    assert failure is None
    assert [(m.name, m.summary) for m in methods] == [("greet", "Greets a user.")]
    assert read_code(methods[0].code, language="php") == ["name", "name"]
