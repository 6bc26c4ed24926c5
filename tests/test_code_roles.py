"""The roles of code words (``wrdscore.corpora.code_roles``), on hand-written Java."""

from __future__ import annotations

import pytest

from wrdscore.corpora import ROLES, code_roles, read_code
from wrdscore.errors import WrdscoreError


def roled(source: str, **options: object) -> list[tuple[str, list[str]]]:
    return [(w.token, sorted(w.roles)) for w in code_roles(source, **options).words]  # type: ignore[arg-type]


def test_returned_local_called_and_the_name_masked() -> None:
    src = "int computeTotal() { int total = sumItems(); return total; }"
    assert roled(src) == [
        ("total", ["local"]),
        ("sum", ["called"]),
        ("items", ["called"]),
        ("total", ["returned"]),
    ]


def test_parameters_types_conditions_and_writes() -> None:
    src = """
    Item findFirst(List<Item> items, int limit) {
        for (int i = 0; i < limit; i++) {
            if (items.get(i).isValid()) {
                this.lastFound = items.get(i);
                return lastFound;
            }
        }
        return null;
    }"""
    assert roled(src) == [
        ("item", ["type"]),
        ("list", ["type"]),
        ("item", ["type"]),
        ("items", ["parameter"]),
        ("limit", ["parameter"]),
        ("i", ["local"]),
        ("i", ["condition"]),
        ("limit", ["condition"]),
        ("i", ["written"]),
        ("items", ["condition"]),
        ("get", ["called", "condition"]),
        ("i", ["condition"]),
        ("is", ["called", "condition"]),
        ("valid", ["called", "condition"]),
        ("last", ["written"]),
        ("found", ["written"]),
        ("items", ["other"]),
        ("get", ["called"]),
        ("i", ["other"]),
        ("last", ["returned"]),
        ("found", ["returned"]),
    ]


def test_loops_lambdas_catch_ternary_and_array_writes() -> None:
    src = """
    void fill(int[] slots) {
        for (Slot s : pool) use(s);
        pool.forEach(p -> p.reset());
        try { slots[next] = 1; } catch (IOException e) { count--; }
        int v = done ? total : 0;
    }"""
    assert roled(src) == [
        ("slots", ["parameter"]),
        ("slot", ["type"]),
        ("s", ["local"]),
        ("pool", ["other"]),
        ("use", ["called"]),
        ("s", ["other"]),
        ("pool", ["other"]),
        ("for", ["called"]),
        ("each", ["called"]),
        ("p", ["parameter"]),
        ("p", ["other"]),
        ("reset", ["called"]),
        ("slots", ["written"]),
        ("next", ["other"]),
        ("io", ["type"]),
        ("exception", ["type"]),
        ("e", ["local"]),
        ("count", ["written"]),
        ("v", ["local"]),
        ("done", ["condition"]),
        ("total", ["other"]),
    ]


def test_the_words_are_read_codes_in_its_order() -> None:
    src = """
    @Override public String getUserName(Map<String, User> users) {
        log("called"); // cheap
        return userName == null ? users.get(id).getUserName() : userName;
    }"""
    for target in ("name", "summary"):
        roles = code_roles(src, target=target)
        assert [w.token for w in roles.words] == read_code(src, target=target)
        assert all(w.roles and w.roles <= set(ROLES) for w in roles.words)
    assert code_roles(src).masked == "getUserName"
    assert code_roles(src, target="summary").masked is None
    by_token = code_roles(src).by_token()
    assert by_token["user"] == {"type", "condition", "returned"}
    assert by_token["log"] == {"called"}
    assert by_token["users"] == {"parameter", "returned"}  # not in the test


def test_a_failed_parse_is_refused_or_said() -> None:
    # Java's, given: told from the code, a method cut short reads as another language.
    broken = "int size() { return count + ; }"
    with pytest.raises(WrdscoreError, match=r"does not parse as java \(line 1: "):
        code_roles(broken, language="java")
    read = code_roles(broken, language="java", allow_errors=True)
    assert read.failure == "line 1: missing identifier"
    assert [(w.token, sorted(w.roles)) for w in read.words] == [("count", ["returned"])]
    assert code_roles("int size() { return count; }").failure is None


def test_what_cannot_be_read_is_refused_in_one_line() -> None:
    with pytest.raises(WrdscoreError, match="roles of python code are not read yet"):
        code_roles("def size(self):\n    return self.count\n", language="python")
    with pytest.raises(WrdscoreError, match="not the name 'length' given"):
        code_roles("int size() { return count; }", name="length")
    with pytest.raises(WrdscoreError, match="unknown target"):
        code_roles("int size() { return count; }", target="label")
    with pytest.raises(WrdscoreError, match="empty code"):
        code_roles("  ")
