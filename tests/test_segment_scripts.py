"""scripts/segment_words.py and segment_accuracy.py on a small made-up src.zip.

The real input is OpenJDK 17's src.zip (minutes to read); these runs check what the two
scripts share through ``scripts/_jdk_words.py``: the package split, the word counts, the
list's order and the accuracy report, end to end as a user runs them.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pytest
from corpus_fixtures import load_script, run_script

WORDS = ["user", "file", "name", "index", "buffer", "stream", "token", "value", "reader"]


def src_zip(path: Path) -> Path:
    """60 packages of one class each, whose member names (three words) all differ."""
    with zipfile.ZipFile(path, "w") as z:
        for i in range(60):
            a, b = WORDS[i % len(WORDS)], WORDS[i // len(WORDS)]
            name = f"get{a.title()}{b.title()}"
            z.writestr(
                f"java.base/pkg{i}/A{i}.java",
                f"package pkg{i};\n/* a comment: ignoredword */\npublic class A{i} {{\n"
                f'  public int {name}(int {a}Count) {{ return "stringword".length(); }}\n}}\n',
            )
    return path


def test_the_split_is_by_package_and_stable():
    jdk = load_script("_jdk_words")
    parts = [jdk.part_of(f"java.base/pkg{i}") for i in range(1000)]
    assert parts == [jdk.part_of(f"java.base/pkg{i}") for i in range(1000)]
    share = {p: parts.count(p) / len(parts) for p in ("build", "dev", "test")}
    assert share == pytest.approx({"build": 0.6, "dev": 0.2, "test": 0.2}, abs=0.05)


def test_segment_words_builds_code_words_then_english(tmp_path):
    out = tmp_path / "words.txt.gz"
    done = run_script(
        "segment_words.py", "--src-zip", str(src_zip(tmp_path / "src.zip")), "--min-count", "3",
        "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    words = gzip.decompress(out.read_bytes()).decode().split()
    jdk = load_script("_jdk_words")
    counts, _ = jdk.read_jdk(tmp_path / "src.zip")
    code = [w for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])) if c >= 3]
    code = [w for w in code if len(w) > 1 or w in jdk.SINGLE_LETTERS]
    assert code and words[: len(code)] == code  # code words first, most frequent first
    # Comments and string literals are not code; English words follow, without the code's.
    assert "ignoredword" not in counts and "stringword" not in counts
    assert "the" in words[len(code) :] and not set(code) & set(words[len(code) :])
    assert f"-> {out}" in done.stdout
    again = run_script(
        "segment_words.py", "--src-zip", str(tmp_path / "src.zip"), "--output", str(out)
    )
    assert again.returncode == 1 and "give --force" in again.stderr


def test_segment_accuracy_reports_every_list_and_writes_the_sample(tmp_path):
    sample = tmp_path / "heldout.tsv"
    done = run_script(
        "segment_accuracy.py", "--src-zip", str(src_zip(tmp_path / "src.zip")),
        "--sample", str(sample),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "chosen on dev: c" in done.stdout
    assert "| (a) wordninja Wikipedia |" in done.stdout
    rows = [line.split("\t") for line in sample.read_text().splitlines()]
    assert rows and all(name == gold.replace(" ", "") for name, gold in rows)
