"""Reading references and predictions files."""

from __future__ import annotations

import pytest

from wrdscore.errors import WrdscoreError
from wrdscore.inputs import item_text, read_items


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_text_lines_are_items_and_the_final_newline_is_not(tmp_path):
    path = write(tmp_path, "preds.txt", "getUserName\nget user name\n\nReturns the size.\n")
    assert read_items(path) == ["getUserName", "get user name", "", "Returns the size."]


def test_prediction_tabs_stay_in_one_item(tmp_path):
    path = write(tmp_path, "preds.tsv", "get\tsize\n")
    assert read_items(path) == ["get\tsize"]


def test_reference_tabs_separate_alternatives(tmp_path):
    path = write(tmp_path, "refs.tsv", "getSize\tsize\t\nonly\n\t\n")
    assert read_items(path, references=True) == [[["getSize"], ["size"]], "only", ""]


def test_bom_and_crlf_are_not_part_of_names(tmp_path):
    path = write(tmp_path, "refs.txt", "\ufeffgetA\r\nsetB\r\n")
    assert read_items(path) == ["getA", "setB"]


def test_jsonl_strings_token_lists_and_alternatives(tmp_path):
    path = write(
        tmp_path,
        "refs.jsonl",
        '"getSize"\n["get", "size"]\n{"alternatives": ["size", ["get", "count"]]}\n\n',
    )
    assert read_items(path, references=True) == [
        "getSize",
        ["get", "size"],
        [["size"], ["get", "count"]],
        "",
    ]


@pytest.mark.parametrize(
    ("text", "references", "message"),
    [
        ("{bad\n", False, r"refs.jsonl:1: invalid JSON"),
        ('"a"\n3\n', False, r"refs.jsonl:2: expected a string or a list of strings"),
        ('{"alternatives": ["a"]}\n', False, "expected a string or a list of strings"),
        ('{"alternatives": []}\n', True, "'alternatives' is empty"),
        ('{"alternatives": "a"}\n', True, "'alternatives' must be a list"),
        ('{"alternatives": [3]}\n', True, "each alternative must be a string"),
    ],
)
def test_bad_jsonl_names_the_line(tmp_path, text, references, message):
    path = write(tmp_path, "refs.jsonl", text)
    with pytest.raises(WrdscoreError, match=message):
        read_items(path, references=references)


def test_not_utf8_and_empty_files_are_errors(tmp_path):
    with pytest.raises(WrdscoreError, match="not UTF-8"):
        read_items(write(tmp_path, "a.txt", "caf\xe9\n", encoding="latin-1"))
    with pytest.raises(WrdscoreError, match="the file is empty"):
        read_items(write(tmp_path, "b.txt", ""))


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_items(tmp_path / "nope.txt")


def test_item_text():
    assert item_text("getA") == "getA"
    assert item_text(["get", "a"]) == "get a"
    assert item_text([["getA"], ["get", "b"]]) == "getA | get b"


def test_only_newlines_end_items(tmp_path):
    path = write(tmp_path, "preds.txt", "a\u2028b\x0cc\nd")
    assert read_items(path) == ["a\u2028b\x0cc", "d"]
    assert read_items(write(tmp_path, "one.txt", "\n")) == [""]
