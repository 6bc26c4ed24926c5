"""The streaming engine (score_files): chunks, worker processes, first pass, late errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import HUNG
from corpus_fixtures import terminal_sigint
from typer.testing import CliRunner

from wrdscore import inputs
from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings, save_embeddings
from wrdscore.errors import WrdscoreError
from wrdscore.inputs import read_items
from wrdscore.metrics import build_metrics, get_metric, score_files

VECTORS = {
    "get": [1.0, 0.2, 0.0],
    "set": [0.9, 0.1, 0.3],
    "size": [0.1, 1.0, 0.2],
    "count": [0.2, 0.9, 0.1],
    "name": [0.0, 0.3, 1.0],
    "user": [0.3, 0.0, 0.8],
    "value": [0.5, 0.5, 0.5],
    "is": [0.7, -0.2, 0.1],
    "empty": [-0.3, 0.6, 0.4],
}
# Multi-reference items (TAB), empty lines, unseen tokens and 3x3 problems, so that
# every path of the engine and of WRDScore is crossed by some chunk boundary.
REFS = [
    "getUserName",
    "size\tgetSize\tcount",
    "isEmpty",
    "set user name value",
    "getValue",
    "count\tsize",
    "get name user",
    "artwork",
    "setUserValue",
    "getName\tname",
    "isEmpty",
]
PREDS = [
    "get name",
    "count",
    "",
    "set name user",
    "getValue",
    "",
    "user get name",
    "get",
    "setValue",
    "name",
    "empty is",
]


@pytest.fixture
def emb() -> TokenEmbeddings:
    return TokenEmbeddings.from_vectors(VECTORS, doc_freq={"get": 3}, n_docs=10)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("".join(f"{r}\n" for r in REFS))
    preds.write_text("".join(f"{p}\n" for p in PREDS))
    return refs, preds


def _api(metric, refs: Path, preds: Path, **kwargs):
    return metric.score(read_items(refs, references=True), read_items(preds), **kwargs)


def _per_pair(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 100])
@pytest.mark.parametrize("name", ["wrd", "bertscore", "subtoken"])
def test_chunking_changes_no_number(emb, files, tmp_path, chunk, name):
    metric = get_metric(name, embeddings=emb)
    want = _api(metric, *files)
    out = tmp_path / "pairs.tsv"
    (got,) = score_files([metric], *files, chunk_pairs=chunk, per_pair=out, jobs=1)
    rows = _per_pair(out)
    assert rows[0][:3] == ["index", "reference", "prediction"]
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(1, len(REFS) + 1)]
    for j, key in enumerate(metric.keys):
        # Per-pair values are exact: every chunk is scored as the whole input would be.
        assert [float(r[3 + j]) for r in rows[1:]] == want.values[key].tolist()
        assert got.corpus[key] == pytest.approx(want.corpus[key], abs=1e-12)
    assert (got.oov_tokens, got.empty_predictions, got.degenerate_pairs) == (
        want.oov_tokens,
        want.empty_predictions,
        want.degenerate_pairs,
    )
    assert got.pairs == len(REFS) and got.signature == want.signature


def test_lines_split_across_read_blocks(emb, files, monkeypatch):
    # The reader cuts files into blocks at newlines; with 7-byte blocks most lines
    # are longer than a block and the two files' blocks fall at different places.
    want = score_files([get_metric("wrd", embeddings=emb)], *files, chunk_pairs=3, jobs=1)
    monkeypatch.setattr(inputs, "_BLOCK", 7)
    got = score_files([get_metric("wrd", embeddings=emb)], *files, chunk_pairs=3, jobs=1)
    assert got == want
    assert inputs.count_items(files[0]) == len(REFS)
    assert [x for c in inputs.iter_line_chunks(files[0], 4) for x in c] == REFS


def test_reader_matches_read_items_on_odd_files(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "_BLOCK", 5)
    cases = ["a\r\nb\n\nc", "\ufeffx\ny\n", "\n", "one line no newline", "é\tü\n日本\n\n"]
    for k, text in enumerate(cases):
        path = tmp_path / f"f{k}.txt"
        path.write_bytes(text.encode())
        want = inputs._lines(path)
        assert inputs.count_items(path) == len(want)
        assert [x for c in inputs.iter_line_chunks(path, 2) for x in c] == want


def test_jobs_1_and_2_give_identical_outputs(emb, tmp_path):
    # 300 pairs in chunks of 7: many chunks, scored by two forked workers.
    rng = np.random.default_rng(0)
    words = [*VECTORS, "artwork", "zz"]
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_text(
        "".join(" ".join(rng.choice(words, rng.integers(1, 6))) + "\n" for _ in range(300))
    )
    preds.write_text(
        "".join(" ".join(rng.choice(words, rng.integers(0, 6))) + "\n" for _ in range(300))
    )
    outs = []
    for jobs in (1, 2):
        metrics = build_metrics(["wrd", "rouge1", "twmd"], emb, centering="batch")
        out = tmp_path / f"pairs{jobs}.jsonl"
        res = score_files(metrics, refs, preds, jobs=jobs, chunk_pairs=7, per_pair=out)
        outs.append((res, out.read_bytes()))
    assert outs[0] == outs[1]
    assert len(outs[0][1].splitlines()) == 300


def test_batch_centering_means_the_whole_file(emb, files):
    # A first pass finds the mean over every chunk, so small chunks score as one batch.
    want = _api(get_metric("wrd", embeddings=emb, centering="batch"), *files)
    for chunk in (1, 4):
        metric = get_metric("wrd", embeddings=emb, centering="batch")
        (got,) = score_files([metric], *files, chunk_pairs=chunk, jobs=1)
        assert got.corpus["f1"] == pytest.approx(want.corpus["f1"], abs=1e-12)
        assert metric._batch_mean is None  # the metric is left as it was
    # ... and it matters: scoring each chunk on its own mean gives other numbers.
    chunked = [
        get_metric("wrd", embeddings=emb, centering="batch").score(
            REFS[i : i + 4], PREDS[i : i + 4]
        )
        for i in range(0, len(REFS), 4)
    ]
    alone = np.concatenate([r.f1 for r in chunked])
    assert not np.allclose(alone, want.f1)


def test_empty_lines_at_chunk_boundaries(emb, tmp_path):
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_text("get\nsize\n\nname\n")
    preds.write_text("get\n\nsize\nname\n")
    metric = get_metric("wrd", embeddings=emb)
    with pytest.raises(WrdscoreError, match=r"r\.txt:3: reference 3 has no tokens"):
        score_files([metric], refs, preds, chunk_pairs=2, jobs=1)
    (got,) = score_files([metric], refs, preds, chunk_pairs=2, allow_empty_reference=True)
    want = metric.score(
        ["get", "size", "", "name"], ["get", "", "size", "name"], allow_empty_reference=True
    )
    assert got.corpus == pytest.approx(want.corpus, abs=1e-12) and got.empty_predictions == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_bad_item_in_a_late_chunk_names_the_line_and_writes_nothing(emb, tmp_path, jobs):
    refs, preds = tmp_path / "r.jsonl", tmp_path / "p.txt"
    lines = [json.dumps(r) for r in ["getName"] * 40]
    lines[33] = '{"alternatives": 3}'
    refs.write_text("\n".join(lines) + "\n")
    preds.write_text("get name\n" * 40)
    out = tmp_path / "pairs.tsv"
    metric = get_metric("wrd", embeddings=emb)
    with pytest.raises(WrdscoreError, match=r"r\.jsonl:34: 'alternatives' must be a list"):
        score_files([metric], refs, preds, chunk_pairs=4, per_pair=out, jobs=jobs)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.txt", "r.jsonl"]


def test_late_encoding_error_and_length_mismatch_are_refused_before_scoring(emb, tmp_path):
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_bytes(b"get\n" * 30 + b"na\xffme\n")
    preds.write_text("get\n" * 31)
    metric = get_metric("wrd", embeddings=emb)
    with pytest.raises(WrdscoreError, match=r"r\.txt: not UTF-8 text \(byte 122\)"):
        score_files([metric], refs, preds, chunk_pairs=4)
    refs.write_text("get\n" * 30)
    with pytest.raises(WrdscoreError, match="30 references but 31 predictions"):
        score_files([metric], refs, preds, chunk_pairs=4)


def test_cli_late_chunk_error_is_one_line_and_leaves_no_output(emb, tmp_path):
    model = save_embeddings(emb.kv, tmp_path / "m", meta={"name": "t", "n_docs": 10}, doc_freq={})
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_text("get\n" * 9 + "--\n")
    preds.write_text("get\n" * 10)
    out = tmp_path / "pairs.tsv"
    args = ["score", "--refs", refs, "--preds", preds, "-e", model, "--per-pair", out]
    res = CliRunner().invoke(app, [*map(str, args), "--chunk-pairs", "3", "-j", "2"])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {refs}:10: reference 10 has no tokens")
    assert res.stderr.count("\n") == 1
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_cli_too_small_a_chunk_is_named_as_the_option(files):
    # It said "chunk size must be at least 1 pair, not 0", naming no option, where
    # --jobs 0 says "--jobs must be at least 1, not 0".
    args = ["score", "--refs", *files[:1], "--preds", files[1]]
    res = CliRunner().invoke(app, [*map(str, args), "--chunk-pairs", "0"])
    assert (res.exit_code, res.stderr) == (2, "error: --chunk-pairs must be at least 1, not 0\n")


def test_cli_jobs_and_chunks_print_the_same_json(emb, tmp_path, files):
    model = save_embeddings(emb.kv, tmp_path / "m", meta={"name": "t", "n_docs": 10}, doc_freq={})
    outs = []
    for extra in (["-j", "1"], ["-j", "2", "--chunk-pairs", "2"]):
        args = ["score", "--refs", *files[:1], "--preds", files[1], "-e", model, "--format", "json"]
        res = CliRunner().invoke(app, [*map(str, args), *extra])
        assert res.exit_code == 0, res.output
        outs.append(json.loads(res.stdout))
    assert outs[0]["pairs"] == len(REFS)
    assert outs[0]["metrics"]["wrd"]["corpus"] == pytest.approx(
        outs[1]["metrics"]["wrd"]["corpus"], abs=1e-12
    )


def test_a_real_ctrl_c_while_workers_score_leaves_nothing(emb, tmp_path):
    # A terminal's Ctrl-C sends SIGINT to the whole process group, workers included.
    import os
    import signal
    import subprocess
    import sys
    import time

    model = save_embeddings(emb.kv, tmp_path / "m", meta={"name": "t", "n_docs": 10}, doc_freq={})
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_text("get user name value\n" * 400_000)
    preds.write_text("set name user count\n" * 400_000)
    out = tmp_path / "pairs.tsv"
    cmd = [sys.executable, "-c", "from wrdscore.cli import app; app()", "score"]
    args = ["--refs", refs, "--preds", preds, "-e", model, "--per-pair", out, "-j", "2"]
    proc = subprocess.Popen(
        [*cmd, *map(str, args), "--chunk-pairs", "1000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=terminal_sigint,
    )
    temporary = lambda: [p for p in tmp_path.iterdir() if p.name.startswith(".pairs")]  # noqa: E731

    def rows_written() -> bool:
        # Rows past the header in the temporary per-pair file: workers are mid-run.
        try:
            return any(path.read_bytes().count(b"\n") > 1 for path in temporary())
        except FileNotFoundError:  # renamed or removed meanwhile
            return False

    deadline = time.monotonic() + HUNG
    while not rows_written() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before Ctrl-C could be pressed"
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=HUNG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # leave no hung process behind
        raise
    assert proc.returncode == 130, stderr
    assert stderr.strip() == "interrupted: no partial output was left"
    assert not out.exists() and temporary() == []
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # no worker of the group is left running


def test_small_input_is_cut_for_the_cores_and_numbers_do_not_move(emb, tmp_path):
    # 2,500 pairs are one default chunk; the engine cuts them into chunks of 1,000 so
    # that two workers share them. Per-pair rows and counts equal one in-process chunk
    # of the whole input, and --jobs 1 equals --jobs 2 byte for byte.
    rng = np.random.default_rng(3)
    words = [*VECTORS, "artwork"]
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    for path, low in ((refs, 1), (preds, 0)):
        path.write_text(
            "".join(" ".join(rng.choice(words, rng.integers(low, 6))) + "\n" for _ in range(2500))
        )
    metric = get_metric("wrd", embeddings=emb)
    want = metric.score(read_items(refs, references=True), read_items(preds))
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"pairs{jobs}.tsv"
        (res,) = score_files([metric], refs, preds, jobs=jobs, per_pair=out)
        outs.append((res, out.read_bytes()))
    assert outs[0] == outs[1]
    rows = _per_pair(tmp_path / "pairs1.tsv")[1:]
    for j, key in enumerate(metric.keys):
        assert [float(r[3 + j]) for r in rows] == want.values[key].tolist()
    res = outs[0][0]
    assert (res.oov_tokens, res.empty_predictions, res.degenerate_pairs) == (
        want.oov_tokens,
        want.empty_predictions,
        want.degenerate_pairs,
    )


def test_a_memo_shared_by_batches_gives_the_tokens_of_a_fresh_one():
    from wrdscore.metrics._flatten import flatten

    memo: dict = {}
    first = flatten(["getName", "size"], ["get name", "count"], memo=memo)
    second = flatten(["size", "isEmpty"], ["getName", "count"], memo=memo)
    fresh = flatten(["size", "isEmpty"], ["getName", "count"])
    assert second.refs == fresh.refs and second.preds == fresh.preds
    # Equal items of different batches share one token list (split once).
    assert second.refs[0] is first.refs[1] and second.preds[0] is first.refs[0]
    with pytest.raises(WrdscoreError, match="reference 2 has 1,001 sub-tokens"):
        flatten(["size", " ".join(["get"] * 1001)], ["a", "b"], memo=memo)


def _long_method(lines: int = 1000) -> str:
    """A Java method of about 22,000 characters: over the code cap, as ingest meets them."""
    body = "".join(f"    total += getUserValue{i}(name, size);\n" for i in range(lines))
    return "int countUserNames(String name, int size) {\n    int total = 0;\n" + body + "}\n"


def test_code_over_the_cap_is_cut_at_a_line_as_ingest_cuts_it_and_counted(emb, tmp_path):
    from wrdscore.corpora import MAX_CODE_CHARS, capped_code

    long = _long_method()
    assert len(long) > 22_000 > MAX_CODE_CHARS
    cut, was_cut = capped_code(long)
    assert was_cut and cut.endswith(");\n")
    metric = get_metric("wrd", embeddings=emb)
    refs, preds = ["countNames", "getSize"], ["count user names", "get size"]
    short = "int getSize() { return size; }"
    # Before, a method over the cap stopped the whole run ("over the cap of 16,384").
    res = metric.score(refs, preds, code=[long, short])
    want = metric.score(refs, preds, code=[cut, short])
    np.testing.assert_allclose(res.code, want.code, rtol=0, atol=1e-12)
    assert (res.cut_code, want.cut_code) == (1, 0)
    assert metric.score(refs, preds, code=[{"code": long}, short]).cut_code == 1
    # The same through a --code file, streamed in chunks.
    r, p, c = tmp_path / "r.txt", tmp_path / "p.txt", tmp_path / "code.jsonl"
    r.write_text("\n".join(refs * 3) + "\n")
    p.write_text("\n".join(preds * 3) + "\n")
    c.write_text("".join(json.dumps(x) + "\n" for x in [long, short] * 3))
    (got,) = score_files([metric], r, p, code=c, chunk_pairs=2)
    assert got.cut_code == 3
    assert got.corpus["code"] == pytest.approx(float(want.code.mean()), abs=1e-12)


def test_code_over_the_cap_keeps_the_language_it_was_given(tmp_path):
    # Cutting a SourceCode sliced it into a plain str, so a long method given with its
    # language (a CODE.jsonl 'language' key) was told from its code instead: code that
    # many grammars parse alike was refused ("cannot tell the code's language").
    from wrdscore.corpora import MAX_CODE_CHARS, SourceCode

    long = "print(get_name(user))\n" * 1000
    assert len(long) > MAX_CODE_CHARS
    # Summaries: a fragment declares no name to mask, which names would refuse.
    metric = get_metric("rouge1", target="summary")
    res = metric.score(None, ["get name"], code=[SourceCode(long, "python")])
    assert res.cut_code == 1 and res.code[0] > 0
    code, preds = tmp_path / "code.jsonl", tmp_path / "preds.txt"
    code.write_text(json.dumps({"code": long, "language": "python"}) + "\n")
    preds.write_text("get name\n")
    args = ["score", "--code", code, "--preds", preds, "--metric", "rouge1", "--target", "summary"]
    out = CliRunner().invoke(app, list(map(str, args)))
    assert out.exit_code == 0, out.output
    assert "1 method cut to 16,384 characters" in out.output


def test_cli_scores_a_long_method_through_code_with_a_note(emb, tmp_path):
    model = save_embeddings(emb.kv, tmp_path / "m", meta={"name": "t", "n_docs": 10}, doc_freq={})
    r, p, c = tmp_path / "r.txt", tmp_path / "p.txt", tmp_path / "code.jsonl"
    r.write_text("countNames\n")
    p.write_text("count user names\n")
    c.write_text(json.dumps(_long_method()) + "\n")
    args = ["score", "--refs", r, "--preds", p, "--code", c, "-e", model]
    res = CliRunner().invoke(app, list(map(str, args)))
    assert res.exit_code == 0, res.output
    assert "note: 1 method cut to 16,384 characters, at a line as ingest cuts it" in res.stderr
    res = CliRunner().invoke(app, [*map(str, args), "--format", "json"])
    assert json.loads(res.stdout)["metrics"]["wrd"]["cut_code"] == 1


def test_an_error_in_a_corpus_names_its_method_and_counts_from_1(emb, tmp_path):
    # Before: "item 2: reference 1 has no tokens ...", no method and two numberings.
    from wrdscore.corpora import ingest

    src = tmp_path / "src"
    src.mkdir()
    (src / "A.java").write_text(
        "class A {\n  /** Gets the name. */\n  String getName() { return n; }\n"
        "  int size() { return s; }\n}\n"
    )
    ingest([src], tmp_path / "corpus", jobs=1, quiet=True)
    model = save_embeddings(emb.kv, tmp_path / "m", meta={"name": "t", "n_docs": 10}, doc_freq={})
    preds = tmp_path / "preds.txt"
    preds.write_text("gets the name\nthe size\n")
    base = ["score", "--corpus", tmp_path / "corpus", "-e", model, "--target", "summary"]
    res = CliRunner().invoke(app, [*map(str, base), "--preds", str(preds)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"error: {tmp_path / 'corpus'}: method 'A.java:4:size' (record 2): reference 2 has no "
        "tokens (letters or digits); remove it or allow empty references "
        "(--allow-empty-reference)\n"
    )
    by_id = tmp_path / "ids.jsonl"
    by_id.write_text(json.dumps({"id": "A.java:4:size", "prediction": "the size"}) + "\n")
    res = CliRunner().invoke(app, [*map(str, base), "--preds", str(by_id)])
    assert res.exit_code == 2
    assert res.stderr.startswith(
        f"error: {tmp_path / 'corpus'}: method 'A.java:4:size' (pair 1): reference 1 has no tokens"
    )


CODE = [
    "String getUserName() { return user.name; }",
    "int size() { return count; }",
    "boolean isEmpty() { return size == 0; }",
    "void setUserName(String name) { user.name = name; }",
    "int getValue() { return value; }",
    "int count() { return size; }",
    "String getName() { return user.getName(); }",
    "void artwork() { }",
    "void setUserValue(int value) { user.value = value; }",
    "String name() { return name; }",
    "boolean isEmpty() { return count == 0; }",
]


def test_a_chunks_code_is_read_once_for_the_metrics_that_read_it_alike(
    emb, files, tmp_path, monkeypatch
):
    """Each metric of a run read (split or parsed) every method of a chunk again."""
    import wrdscore.metrics._code_scorer as metric_module

    refs, preds = files
    code = tmp_path / "code.jsonl"
    code.write_text("".join(json.dumps(c) + "\n" for c in CODE))
    metrics = [get_metric("wrd", embeddings=emb), get_metric("bertscore", embeddings=emb)]
    alone = [score_files([m], refs, preds, code=code, chunk_pairs=4, jobs=1)[0] for m in metrics]
    read = metric_module.read_codes
    reads: list[int] = []

    def counted(items, *args, **kwargs):
        reads.append(len(items))
        return read(items, *args, **kwargs)

    monkeypatch.setattr(metric_module, "read_codes", counted)
    together = score_files(metrics, refs, preds, code=code, chunk_pairs=4, jobs=1)
    assert reads == [4, 4, 3]  # once per chunk of 4 pairs, not once per metric
    for got, want in zip(together, alone, strict=True):
        assert got.corpus == pytest.approx(want.corpus, rel=0, abs=1e-12)
    # A metric that reads the code another way (not segmented, segmentation being the
    # default) reads it for itself.
    reads.clear()
    split = [metrics[0], get_metric("wrd", embeddings=emb, segment=False)]
    score_files(split, refs, preds, code=code, chunk_pairs=4, jobs=1)
    assert reads == [4, 4, 4, 4, 3, 3]


def test_workers_share_the_code_reader_and_priors_loaded_before_forking(emb, tmp_path):
    """Each forked worker loaded the priors (and the code reader) again for itself."""
    from wrdscore.metrics._code_models import table_prior

    n = 2_500  # chunks of at least 1,000 pairs: three, for two workers
    refs, preds, code = (tmp_path / f for f in ("refs.txt", "preds.txt", "code.jsonl"))
    refs.write_text("getName\n" * n)
    preds.write_text("name\n" * n)
    code.write_text((json.dumps("String getName() { return name; }") + "\n") * n)
    table_prior.cache_clear()
    (got,) = score_files([get_metric("wrd", embeddings=emb)], refs, preds, code=code, jobs=2)
    assert got.pairs == n
    assert table_prior.cache_info().currsize == 1  # loaded here, before the fork


def _corpora(results):
    return [(r.metric, r.corpus, r.pairs, r.oov_tokens) for r in results]


def test_score_files_runs_nested_inside_a_progress_callback(emb, files, tmp_path):
    """A module-level job made a nested call die with a bare AssertionError: the inner run
    cleared the outer's job before the outer's next chunk."""
    refs, preds = files
    code = tmp_path / "code.jsonl"
    code.write_text("".join(json.dumps(c) + "\n" for c in CODE))
    metrics = [get_metric("wrd", embeddings=emb), get_metric("rouge1")]
    alone = score_files(metrics, refs, preds, code=code, chunk_pairs=4, jobs=1)
    inner: list = []

    def progress(n: int) -> None:
        inner.append(score_files(metrics, refs, preds, chunk_pairs=3, jobs=1))

    outer = score_files(metrics, refs, preds, code=code, chunk_pairs=4, jobs=1, progress=progress)
    assert _corpora(outer) == _corpora(alone)
    want = _corpora(score_files(metrics, refs, preds, chunk_pairs=3, jobs=1))
    assert len(inner) == 3 and all(_corpora(r) == want for r in inner)


def test_score_files_in_two_threads_gives_each_its_own_numbers(emb, files, tmp_path):
    """Two threads collided on the module-level job in three runs of three."""
    import threading

    refs, preds = files
    code = tmp_path / "code.jsonl"
    code.write_text("".join(json.dumps(c) + "\n" for c in CODE))
    metric = get_metric("wrd", embeddings=emb)
    runs = {
        "refs": {"code": None, "chunk_pairs": 2},
        "code": {"code": code, "chunk_pairs": 3},
    }
    want = {k: _corpora(score_files([metric], refs, preds, jobs=1, **kw)) for k, kw in runs.items()}
    for _ in range(3):
        got: dict[str, list] = {}
        errors: list[BaseException] = []
        start = threading.Barrier(2)

        def run(key: str, got=got, errors=errors, start=start) -> None:
            start.wait()
            try:
                for _ in range(5):
                    got[key] = _corpora(score_files([metric], refs, preds, jobs=1, **runs[key]))
            except BaseException as exc:  # reported below, in the test's thread
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(k,)) for k in runs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(HUNG)
        assert not errors, errors
        assert got == want
