"""A damaged corpus is refused by every command that reads its records: a one-line error.

A records file with a byte that is not UTF-8 gave a ``UnicodeDecodeError`` traceback, and
one with fewer records than the manifest counts was trained on and mined silently.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import iter_records, open_corpus
from wrdscore.corpora._corpus import _gzip_lines
from wrdscore.embeddings import train_embeddings
from wrdscore.errors import WrdscoreError

NAMES = ["getName", "setName", "getValue", "setValue", "isEmpty", "getSize", "addAll"] * 3


def _corpus(folder: Path, records: int | None = None) -> Path:
    """A corpus of :data:`NAMES` whose manifest counts ``records`` methods (default: right)."""
    methods = len(NAMES) if records is None else records
    return write_records(
        folder, [method_record(n) for n in NAMES], {"counts": {"methods": methods}}
    )


def _commands(corpus: Path, tmp_path: Path) -> dict[str, list[str]]:
    model = tmp_path / "model"
    if not model.exists():
        train_embeddings(_corpus(tmp_path / "good"), "svd", model, dim=2)
    return {
        "train svd": [
            "train",
            str(corpus),
            "--method",
            "svd",
            "--dim",
            "2",
            "-o",
            str(tmp_path / "a"),
        ],
        "train word2vec": ["train", str(corpus), "--method", "word2vec", "-o", str(tmp_path / "b")],
        "corpus pairs": ["corpus", "pairs", str(corpus)],
        "specialise": ["specialise", str(model), str(corpus), "-o", str(tmp_path / "s")],
    }


COMMANDS = ["train svd", "train word2vec", "corpus pairs", "specialise"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_records_file_that_is_not_utf8_is_a_corrupt_corpus(tmp_path, command):
    corpus = _corpus(tmp_path / "c")
    with gzip.open(corpus / "methods.jsonl.gz", "wb") as fh:
        fh.write(b'{"name":"g\xe9t","tokens":["g\xe9t"]}\n')
    result = CliRunner().invoke(app, _commands(corpus, tmp_path)[command])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {corpus / 'methods.jsonl.gz'}: ")
    assert "corrupt corpus file ('utf-8' codec can't decode byte 0xe9" in lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_truncated_corpus_is_refused(tmp_path, command):
    corpus = _corpus(tmp_path / "c", records=len(NAMES) + 5)
    result = CliRunner().invoke(app, _commands(corpus, tmp_path)[command])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: {corpus}: manifest says {len(NAMES) + 5} methods but the records file "
        f"has {len(NAMES)}"
    ]
    assert not (tmp_path / "a").exists() and not (tmp_path / "s").exists()


def test_the_count_is_checked_once_the_last_record_is_read(tmp_path):
    corpus = open_corpus(_corpus(tmp_path / "c", records=3))
    records = corpus.iter_methods()
    assert [next(records)["name"] for _ in range(3)] == NAMES[:3]  # no error while reading
    with pytest.raises(WrdscoreError, match="manifest says 3 methods but the records file has"):
        list(records)
    # A manifest without the count (not written by `wrdscore ingest`) is not checked.
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    del manifest["counts"]
    (tmp_path / "c" / "manifest.json").write_text(json.dumps(manifest))
    assert len(list(open_corpus(tmp_path / "c").iter_methods())) == len(NAMES)


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_records_read_in_blocks_are_the_lines_gzip_gives(tmp_path, block):
    # Lines longer and shorter than a block, characters of two to four bytes cut at a
    # block's end, an empty line, and a second gzip member (files concatenated).
    lines = [json.dumps({"name": n * k, "doc": "é€𝔘 " * k}, ensure_ascii=False)
             for k, n in enumerate(NAMES)]  # fmt: skip
    text = "\n".join(lines[:5]) + "\n\n" + "\n".join(lines[5:]) + "\n"
    path = tmp_path / "methods.jsonl.gz"
    path.write_bytes(gzip.compress(text[:300].encode()) + gzip.compress(text[300:].encode()))
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        expected = [line.rstrip("\n") for line in fh]
    assert list(_gzip_lines(path, block)) == expected == [*lines[:5], "", *lines[5:]]
    # A last line without its line end is still a line.
    path.write_bytes(gzip.compress(text.rstrip("\n").encode()))
    assert list(_gzip_lines(path, block))[-1] == lines[-1]


def test_a_records_file_cut_inside_its_gzip_stream_is_a_corrupt_corpus(tmp_path):
    path = tmp_path / "methods.jsonl.gz"
    data = gzip.compress("".join(json.dumps({"name": n}) + "\n" for n in NAMES * 50).encode())
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WrdscoreError, match="corrupt corpus file"):
        list(iter_records(path))
