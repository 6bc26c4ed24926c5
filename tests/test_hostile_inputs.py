"""The command line as a hostile user drives it: one test per case of docs/hostile-inputs.md.

Every bad input must give one line ``error: ...`` and exit code 2 (never a traceback,
NaN or partial output); inputs that are odd but valid must score without NaN.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import HUNG
from corpus_fixtures import encrypted_zip
from typer.testing import CliRunner

from wrdscore.atomic import atomic_dir
from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.metrics._validate import MAX_CHARS, MAX_TOKENS

JAVA = b"class A { int size() { return 0; } }\n"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def assert_user_error(result, *fragments):
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    line = result.output.strip()
    assert "\n" not in line and line.startswith("error: "), result.output
    for fragment in fragments:
        assert fragment in line, line


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A small vectors file covering the words the scoring cases use."""
    rng = np.random.default_rng(3)
    words = ["get", "set", "user", "name", "size", "count", "12345", "משתמש", "קבל"]
    path = tmp_path_factory.mktemp("m") / "v.txt"
    TokenEmbeddings.from_vectors({w: rng.normal(size=6) for w in words}).kv.save_word2vec_format(
        str(path)
    )
    return path


def _files(tmp_path, refs, preds):
    r, p = tmp_path / "r.txt", tmp_path / "p.txt"
    r.write_text("".join(f"{x}\n" for x in refs), encoding="utf-8")
    p.write_text("".join(f"{x}\n" for x in preds), encoding="utf-8")
    return r, p


# --- huge items ----------------------------------------------------------------------


def test_a_10_mb_line_is_refused_before_splitting(tmp_path, model):
    r, p = _files(tmp_path, ["getUserName" * 1_000_000, "size"], ["get user name", "count"])
    assert r.stat().st_size > 10_000_000
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model, "-m", "chrf")
    assert_user_error(result, "reference 1 is 11,000,000 characters long", f"{MAX_CHARS:,}")


def test_a_long_token_list_or_alternative_is_refused_like_a_long_line(tmp_path, model):
    # JSON lines give token lists, and TAB-separated references alternatives; their text
    # counts as a line's does (one 60,000-character token was scored before).
    huge = "a" * 60_000
    r, p = tmp_path / "r.jsonl", tmp_path / "p.jsonl"
    r.write_text('"size"\n"count"\n', encoding="utf-8")
    p.write_text(f'["get", "name"]\n["{huge}"]\n', encoding="utf-8")
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model, "-m", "chrf")
    assert_user_error(result, "prediction 2 is 60,000 characters long", f"{MAX_CHARS:,}")
    alternatives = {"alternatives": ["count", ["get", huge]]}
    r.write_text(f'"size"\n{json.dumps(alternatives)}\n', encoding="utf-8")
    p.write_text('"size"\n"count"\n', encoding="utf-8")
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model, "-m", "chrf")
    assert_user_error(result, "reference 2 is 60,004 characters long")


def test_a_5000_token_name_is_refused(tmp_path, model):
    long_name = " ".join(["get", "user", "name", "size", "count"] * 1000)
    r, p = _files(tmp_path, ["size", "getName"], ["count", long_name])
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model, "-m", "wrd")
    assert_user_error(result, "prediction 2 has 5,000 sub-tokens", f"{MAX_TOKENS:,}")


def test_a_name_of_max_tokens_still_scores(model, tmp_path):
    name = " ".join(["get", "user", "name", "size"] * (MAX_TOKENS // 4))
    res = get_metric("wrd", embeddings=str(model)).score([name], [name])
    assert res.f1.tolist() == [1.0]


# --- odd names -----------------------------------------------------------------------


def test_punctuation_digits_emoji_and_right_to_left_predictions(tmp_path, model):
    refs = ["getName", "getName", "getName", "get name", "getName"]
    preds = ["!!!...", "12345", "😀🎉", "משתמש קבל", "get_name!!"]
    r, p = _files(tmp_path, refs, preds)
    out = tmp_path / "pp.jsonl"
    result = run(
        "score",
        "--refs",
        r,
        "--preds",
        p,
        "--embeddings",
        model,
        "-m",
        "wrd",
        "-m",
        "bleu",
        "-m",
        "chrf",
        "--per-pair",
        out,
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # Punctuation and emoji have no letters or digits: empty predictions, scored 0 and
    # counted; digits and Hebrew are tokens like any other.
    assert report["metrics"]["wrd"]["empty_predictions"] == 2
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["prediction"] for row in rows] == preds  # written back as given
    for row in rows:
        for metric in ("wrd", "bleu", "chrf"):
            assert all(np.isfinite(v) and 0 <= v <= 1 for v in row[metric].values())
    assert rows[0]["wrd"]["f1"] == rows[2]["wrd"]["f1"] == 0.0
    assert rows[4]["wrd"]["f1"] == 1.0  # get_name!! is get name


def test_line_breaks_inside_json_items_stay_in_one_per_pair_row(tmp_path, model):
    # JSON lines can hold any character; a TSV cell cannot hold a TAB or a line break.
    refs, preds = ["get\nname", "size\u2028count"], ["get\r\nname", "size\tcount"]
    r, p = tmp_path / "r.jsonl", tmp_path / "p.jsonl"
    r.write_text("".join(json.dumps(x) + "\n" for x in refs), encoding="utf-8")
    p.write_text("".join(json.dumps(x) + "\n" for x in preds), encoding="utf-8")
    out = tmp_path / "pp.tsv"
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model, "--per-pair", out)
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 4  # header, two rows, the final newline
    rows = [line.split("\t") for line in lines[1:3]]
    assert [row[1:3] for row in rows] == [["get name", "get  name"], ["size count", "size count"]]
    assert all(len(row) == len(lines[0].split("\t")) for row in rows)


@pytest.mark.parametrize("reference", ["!!!", "😀", "—"])
def test_a_reference_without_letters_or_digits_is_refused(tmp_path, model, reference):
    r, p = _files(tmp_path, ["size", reference], ["count", "size"])
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model)
    assert_user_error(result, "reference 2 has no tokens")


# --- outputs that cannot be written --------------------------------------------------


def test_per_pair_in_a_read_only_folder_fails_before_scoring(tmp_path, model, monkeypatch):
    # /sys is read-only even for root, so this holds wherever the suite runs.
    r, p = _files(tmp_path, ["size"], ["count"])
    scored = []
    monkeypatch.setattr("wrdscore.metrics.base.Metric._score_tokens", lambda *a: scored.append(1))
    result = run(
        "score", "--refs", r, "--preds", p, "--embeddings", model, "--per-pair", "/sys/out.tsv"
    )
    assert_user_error(result, "cannot write /sys/out.tsv")
    assert not scored  # refused before any scoring


def test_per_pair_on_a_folder_or_under_a_file(tmp_path, model):
    r, p = _files(tmp_path, ["size"], ["count"])
    (tmp_path / "taken.tsv").mkdir()
    result = run(
        "score",
        "--refs",
        r,
        "--preds",
        p,
        "--embeddings",
        model,
        "--per-pair",
        tmp_path / "taken.tsv",
    )
    assert_user_error(result, "taken.tsv: it is a folder")
    result = run(
        "score", "--refs", r, "--preds", p, "--embeddings", model, "--per-pair", r / "x.tsv"
    )
    assert_user_error(result, f"cannot write {r / 'x.tsv'}: {r} is not a folder")


def test_output_folders_are_checked_before_the_work(tmp_path, monkeypatch):
    # study analyze, study sample and train refuse an unwritable or existing output
    # before scoring or training anything (they used to find out at the end).
    scored = []
    monkeypatch.setattr("wrdscore.metrics.base.Metric._score_tokens", lambda *a: scored.append(1))
    analyze = ("study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1", "--output")
    assert_user_error(run(*analyze, "/sys/rep"), "cannot write /sys/rep")
    (tmp_path / "rep").mkdir()
    assert_user_error(run(*analyze, tmp_path / "rep"), "already exists")
    r, p = _files(tmp_path, ["size", "get name"], ["count", "name"])
    result = run("study", "sample", "--refs", r, "--preds", p, "--output", "/sys/st")
    assert_user_error(result, "cannot write /sys/st")
    assert not scored
    trained = []
    monkeypatch.setattr(
        "wrdscore.embeddings.training._train.open_corpus", lambda *a: trained.append(1)
    )
    result = run("train", tmp_path, "--method", "svd", "--output", "/sys/model")
    assert_user_error(result, "cannot write /sys/model")
    assert not trained


# --- two runs writing the same output ------------------------------------------------


def test_an_output_created_meanwhile_is_never_replaced(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(WrdscoreError, match="created by another run"), atomic_dir(target) as tmp:
        (tmp / "mine").write_text("second run")
        target.mkdir()  # the other run finishes first
        (target / "theirs").write_text("first run")
    assert [p.name for p in target.iterdir()] == ["theirs"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left


def test_two_ingest_runs_at_once(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"C{i}.java").write_text(f"class C{i} {{ int get{i}() {{ return {i}; }} }}\n")
    out = tmp_path / "corpus"
    cmd = [
        sys.executable,
        "-c",
        "from wrdscore.cli import app; app()",
        "ingest",
        str(src),
        "-o",
        str(out),
        "-q",
        "-j",
        "1",
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    procs = [subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    results = [(proc.wait(timeout=HUNG), proc.stderr.read()) for proc in procs]
    codes = sorted(code for code, _ in results)
    # Whichever finishes second sees the first's output (at its start or at its end) and
    # leaves it alone; exactly one corpus, complete, and no temporary folder.
    assert codes == [0, 2], results
    message = next(err for code, err in results if code == 2)
    assert message.startswith("error: output") and message.count("\n") == 1, message
    assert "already exists" in message or "created by another run" in message
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["methods"] == 40
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "src"]


# --- rating sheets -------------------------------------------------------------------


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    refs = [f"get {w}" for w in ("user", "name", "size", "count", "value", "list")]
    preds = [f"set {w}" for w in ("user", "name", "size", "count", "value", "list")]
    r, p = _files(root, refs, preds)
    result = run(
        "study",
        "sample",
        "--refs",
        r,
        "--preds",
        p,
        "--output",
        root / "st",
        "--sets",
        "1",
        "--raters",
        "1",
        "--stratum",
        "6",
    )
    assert result.exit_code == 0, result.output
    return root / "st"


def _analyze(study, sheet, output):
    return run(
        "study", "analyze", "--study", study, "--ratings", sheet, "-m", "rouge1", "--output", output
    )


def _sheet(study, tmp_path, edit):
    lines = (study / "sheets" / "set1-rater1.csv").read_text().splitlines()
    rows = [line + "5" if line[0] not in "#i" else line for line in lines]
    first = next(i for i, line in enumerate(rows) if line.startswith("s1p"))
    rows = edit(rows, first)
    path = tmp_path / "set1-rater1.csv"
    path.write_text("\n".join(rows) + "\n")
    return path, first + 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda rows, i: [*rows[:i], rows[i][:-1] + "=1+1", *rows[i + 1 :]],
            "score '=1+1' is not a number",
        ),
        (
            lambda rows, i: [*rows[:i], rows[i][:-1] + '"7,5"', *rows[i + 1 :]],
            "score '7,5' is not a number (write a decimal point: 7.5, not 7,5)",
        ),
        (
            lambda rows, i: [*rows[:i], rows[i][:-1] + "7,5", *rows[i + 1 :]],
            "5 fields, expected 4 (a decimal comma in the score? write 7.5, not 7,5)",
        ),
        (lambda rows, i: [*rows[:i], rows[i][:-1], *rows[i + 1 :]], "no score given"),
        (
            lambda rows, i: [*rows[:i], "," + rows[i].split(",", 1)[1], *rows[i + 1 :]],
            "unknown id ''",
        ),
        (
            lambda rows, i: [
                *rows[:i],
                "=HYPERLINK(1)," + rows[i].split(",", 1)[1],
                *rows[i + 1 :],
            ],
            "unknown id '=HYPERLINK(1)'",
        ),
    ],
    ids=[
        "formula",
        "decimal-comma-quoted",
        "decimal-comma",
        "blank-score",
        "blank-id",
        "formula-id",
    ],
)
def test_bad_rating_sheets(study, tmp_path, edit, message):
    sheet, line = _sheet(study, tmp_path, edit)
    result = _analyze(study, sheet, tmp_path / "r")
    assert_user_error(result, f"{sheet}:{line}: {message}")
    assert not (tmp_path / "r").exists()


def test_duplicated_id_in_a_sheet(study, tmp_path):
    sheet, _ = _sheet(study, tmp_path, lambda rows, i: [*rows, rows[i]])
    result = _analyze(study, sheet, tmp_path / "r")
    assert_user_error(result, "second rating of s1p")


def test_rating_files_that_are_not_utf8(study, tmp_path):
    # A sheet re-saved by a spreadsheet as cp1252 ('é' is byte 0xe9): a UnicodeDecodeError
    # traceback before, now one line naming the file and the byte, as `--refs` gets.
    sheet, _ = _sheet(study, tmp_path, lambda rows, i: rows)
    data = sheet.read_bytes()
    sheet.write_bytes(data.replace(b"# ", "# é ".encode("cp1252"), 1))
    result = _analyze(study, sheet, tmp_path / "r")
    assert_user_error(result, f"{sheet}: not UTF-8 text (byte 2)")
    published = tmp_path / "set1.csv"
    published.write_bytes("get name,name,8\nrésumé,go,2\n".encode("cp1252"))
    result = run("study", "analyze", "--pairs", published, "--scale", "10", "-o", tmp_path / "r")
    assert_user_error(result, f"{published}: not UTF-8 text (byte 17)")
    assert not (tmp_path / "r").exists()


# --- archives ------------------------------------------------------------------------


def _add(tar, name, data=JAVA, **attrs):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in attrs.items():
        setattr(info, k, v)
    tar.addfile(info, io.BytesIO(data) if data else None)


def _records(corpus):
    with gzip.open(corpus / "methods.jsonl.gz", "rt") as fh:
        return [json.loads(line)["path"] for line in fh]


def test_tar_with_dot_dot_and_absolute_members_writes_nothing_outside(tmp_path):
    archive = tmp_path / "evil.tar.gz"
    escape = tmp_path / "escaped" / "Pwned.java"
    with tarfile.open(archive, "w:gz") as tar:
        _add(tar, "../" * 12 + str(escape).lstrip("/"))
        _add(tar, "/abs/B.java")
        _add(tar, "ok/C.java")
    result = run("ingest", archive, "-o", tmp_path / "c", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    # Archives are read, never unpacked: member names are only labels in the records.
    assert not escape.exists() and not (tmp_path / "escaped").exists()
    assert _records(tmp_path / "c")[1:] == ["/abs/B.java", "ok/C.java"]


def test_tar_links_and_devices_are_not_followed(tmp_path):
    archive = tmp_path / "links.tar"
    with tarfile.open(archive, "w") as tar:
        _add(tar, "ok/C.java")
        _add(tar, "passwd.java", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _add(tar, "hard.java", b"", type=tarfile.LNKTYPE, linkname="ok/C.java")
        _add(tar, "dev.java", b"", type=tarfile.CHRTYPE)
    result = run("ingest", archive, "-o", tmp_path / "c", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["counts"]["files_seen"] == 1 and _records(tmp_path / "c") == ["ok/C.java"]


def test_zip_symlink_entry_is_read_as_its_text_not_followed(tmp_path):
    archive = tmp_path / "links.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("ok/C.java", JAVA)
        link = zipfile.ZipInfo("passwd.java")
        link.external_attr = 0o120777 << 16  # a symlink entry; its data is the target
        z.writestr(link, "/etc/passwd")
    result = run("ingest", archive, "-o", tmp_path / "c", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert [f["path"] for f in manifest["failed"]] == ["passwd.java"]
    assert "root:" not in json.dumps(manifest)


def test_folder_symlinks_out_of_the_source_are_never_read(tmp_path):
    src = tmp_path / "repo"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "F.java").write_bytes(JAVA)
    outside = tmp_path / "secret.java"
    outside.write_text("class Secret { void leakedName() {} }")
    (src / "secret.java").symlink_to(outside)
    (src / "inside.java").symlink_to(src / "sub" / "F.java")
    (src / "loop").symlink_to(src)  # a folder link back up: not descended
    result = run("ingest", src, "-o", tmp_path / "c", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    assert _records(tmp_path / "c") == ["inside.java", "sub/F.java"]


@pytest.mark.parametrize("kind", ["empty.tar", "empty.tar.gz", "empty.zip"])
def test_empty_archives(tmp_path, kind):
    path = tmp_path / kind
    if kind.endswith(".zip"):
        zipfile.ZipFile(path, "w").close()
    else:
        tarfile.open(path, "w:gz" if kind.endswith(".gz") else "w").close()
    result = run("ingest", path, "-o", tmp_path / "c")
    assert_user_error(result, f"source {path} contains no .java files")
    assert not (tmp_path / "c").exists()


def test_encrypted_zip_member(tmp_path):
    path = encrypted_zip(tmp_path / "enc.zip")
    assert_user_error(
        run("ingest", path, "-o", tmp_path / "c", "-j", "1"),
        f"error: archive {path}: member A.java is encrypted (password required)",
    )
    assert not (tmp_path / "c").exists()


def test_zero_byte_archive(tmp_path):
    path = tmp_path / "zero.tar.gz"
    path.write_bytes(b"")
    assert_user_error(run("ingest", path, "-o", tmp_path / "c"), f"broken archive {path}")


def test_corpus_pairs_never_replaces_a_file_without_force_nor_the_corpus(tmp_path):
    # Before: `corpus pairs C -o C/methods.jsonl.gz` silently replaced the corpus's records
    # (and any existing file), though only --force may replace an output.
    src = tmp_path / "A.java"
    src.write_bytes(b"class A { int getSize() { return 0; } void setSize(int s) {} }\n")
    corpus = tmp_path / "c"
    assert run("ingest", src, "-o", corpus, "-q", "-j", "1").exit_code == 0
    kept = {f.name: f.read_bytes() for f in corpus.iterdir()}
    for name in ("methods.jsonl.gz", "manifest.json"):
        for force in ([], ["--force"]):
            result = run("corpus", "pairs", corpus, "-o", corpus / name, *force)
            assert_user_error(result, f"is the corpus's own {name}", "would destroy the corpus")
    link = tmp_path / "link.gz"
    link.symlink_to(corpus / "methods.jsonl.gz")
    assert_user_error(run("corpus", "pairs", corpus, "-o", link, "--force"), "corpus's own")
    assert {f.name: f.read_bytes() for f in corpus.iterdir()} == kept
    out = tmp_path / "pairs.tsv"
    out.write_text("mine\n")
    result = run("corpus", "pairs", corpus, "-o", out)
    assert_user_error(result, f"output {out} already exists (use --force to replace it)")
    assert out.read_text() == "mine\n"
    result = run("corpus", "pairs", corpus, "-o", out, "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("kind\ta\tb\t")
    # A new file inside the corpus folder is not one of its files: allowed.
    assert run("corpus", "pairs", corpus, "-o", corpus / "pairs.tsv").exit_code == 0
    # --force without -o, where the pairs are printed, replaces nothing: refused, not
    # ignored (exit 0 before), as explain refuses --force without --plot.
    result = run("corpus", "pairs", corpus, "--force")
    assert_user_error(result, "--force only applies with --output")
    assert not result.stdout


_BOMB = """
import io, sys, tarfile, zipfile
from wrdscore.corpora import ingest
kind, folder = sys.argv[1], sys.argv[2]
size = 500 * 1024 * 1024
chunk = b" " * (1 << 20)
java = b"class A { int size() { return 0; } }"
path = f"{folder}/bomb.{kind}"
if kind == "zip":
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open("Big.java", "w", force_zip64=True) as fh:
            for _ in range(500):
                fh.write(chunk)
        z.writestr("A.java", java)
else:
    class Spaces(io.RawIOBase):
        left = size
        def readable(self):
            return True
        def readinto(self, b):
            k = min(len(b), self.left); b[:k] = b" " * k; self.left -= k; return k
    with tarfile.open(path, "w:gz", compresslevel=1) as t:
        info = tarfile.TarInfo("Big.java"); info.size = size
        t.addfile(info, io.BufferedReader(Spaces(), 1 << 20))
        info = tarfile.TarInfo("A.java"); info.size = len(java)
        t.addfile(info, io.BytesIO(java))
def hwm():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
# Reset the peak RSS first: a process started by a large parent (pytest) inherits its
# high-water mark, which ru_maxrss would report.
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = hwm()
manifest = ingest([path], f"{folder}/c", jobs=1, quiet=True)
print(before, hwm(), manifest["counts"]["files_skipped_size"], manifest["counts"]["methods"])
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_highly_compressible_500_mb_member_keeps_memory_bounded(tmp_path, kind):
    done = subprocess.run(
        [sys.executable, "-c", _BOMB, kind, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=HUNG,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    before, peak, skipped, methods = map(int, done.stdout.split())
    # The member is over --max-file-mb (10): skipped unread, streamed past, listed.
    assert (skipped, methods) == (1, 1)
    # Peak RSS (KiB) during the ingest grows by far less than the member's 500 MB: the
    # decompressed bytes never sit in memory.
    assert peak - before < 100 * 1024, (before, peak)


def test_an_alternative_without_tokens_is_named(tmp_path, model):
    r, p = tmp_path / "r.txt", tmp_path / "p.txt"
    r.write_text("size\ncount\t!!!\tlength\n", encoding="utf-8")
    p.write_text("size\ncount\n", encoding="utf-8")
    result = run("score", "--refs", r, "--preds", p, "--embeddings", model)
    assert_user_error(
        result, "reference 2 has an alternative without tokens (letters or digits), number 2 of 3"
    )
