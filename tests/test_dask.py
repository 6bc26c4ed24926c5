"""Ingest and train statistics on a real Dask cluster: same results as one machine, and faults."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import HUNG, require
from corpus_fixtures import encrypted_zip
from test_ingest import _leftovers, _project, ctrl_c_ingest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import _corpus, _dask, ingest, open_corpus
from wrdscore.corpora._corpus import ShardedCorpusWriter
from wrdscore.corpora._stats import corpus_stats
from wrdscore.embeddings import (
    TokenDocuments,
    cooccurrence_matrix,
    document_frequencies,
    load_embeddings,
    train_embeddings,
)
from wrdscore.embeddings.training import _dask as train_dask
from wrdscore.embeddings.training._stream import parse_text, record_documents
from wrdscore.errors import WrdscoreError

distributed = require("distributed")
dask = require("dask")

SAME_KEYS = ("counts", "sources", "failed", "skipped")


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of 2 worker processes for the module, reached by its address."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50
    ) as local:
        yield local


@pytest.fixture
def sources(tmp_path):
    """A folder, a zip, a tar.xz, a plain tar and a .java file of the ingest test project."""
    project = _project(tmp_path / "project")
    with zipfile.ZipFile(tmp_path / "p.zip", "w") as zf:
        for f in sorted(project.rglob("*.java")):
            zf.write(f, f.relative_to(project).as_posix())
    with tarfile.open(tmp_path / "p.tar.xz", "w:xz") as tf:
        tf.add(project, arcname="xz")
    with tarfile.open(tmp_path / "p.tar", "w") as tf:
        tf.add(project, arcname="plain")
    return [project, tmp_path / "p.zip", tmp_path / "p.tar.xz", tmp_path / "p.tar",
            project / "app" / "Main.java"]  # fmt: skip


def _small_units(monkeypatch):
    # Many units per source, tar ranges that start mid-archive, and several shards.
    monkeypatch.setattr(_dask, "_UNIT_FILES", 2)
    monkeypatch.setattr(_dask, "_UNIT_BYTES", 1)
    monkeypatch.setattr(_dask, "_TAR_RANGES", 3)
    monkeypatch.setattr(_corpus, "SHARD_RECORDS", 5)


def test_cluster_run_writes_the_records_and_manifest_of_a_local_run(
    cluster, sources, tmp_path, monkeypatch
):
    _small_units(monkeypatch)
    # Huge.java (in 4 of the sources) is over 0.1 MB: skipped, and hashed in the folder's hash.
    here = ingest(sources, tmp_path / "here", jobs=1, quiet=True, max_file_mb=0.1)
    there = ingest(
        sources,
        tmp_path / "there",
        quiet=True,
        max_file_mb=0.1,
        scheduler=cluster.scheduler_address,
    )
    for key in SAME_KEYS:
        assert there[key] == here[key], key
    assert there["counts"]["files_skipped_size"] == 4 and there["counts"]["files_failed"] == 4
    local, remote = open_corpus(tmp_path / "here"), open_corpus(tmp_path / "there")
    assert [p.name for p in local.record_files()] == ["methods.jsonl.gz"]
    assert remote.manifest == there
    shards = -(-there["counts"]["methods"] // 5)
    assert shards > 3 and there["shards"] == [f"methods-{i:05d}.jsonl.gz" for i in range(shards)]
    assert list(remote.iter_methods()) == list(local.iter_methods())
    assert there["options"]["scheduler"] == cluster.scheduler_address
    # Every reader reads the shards: statistics and training documents.
    stats_here, stats_there = corpus_stats(tmp_path / "here"), corpus_stats(tmp_path / "there")
    assert (stats_there.methods, stats_there.top_tokens, stats_there.name_lengths) == (
        stats_here.methods,
        stats_here.top_tokens,
        stats_here.name_lengths,
    )


def test_sources_as_fsspec_urls_are_read_by_the_workers(cluster, sources, tmp_path, monkeypatch):
    _small_units(monkeypatch)
    here = ingest(sources, tmp_path / "here", jobs=1, quiet=True)
    urls = [f"file://{s}" for s in sources]
    there = ingest(urls, tmp_path / "there", quiet=True, scheduler=cluster.scheduler_address)
    assert there["counts"] == here["counts"]
    assert [s["path"] for s in there["sources"]] == urls
    strip = [{k: v for k, v in s.items() if k != "path"} for s in here["sources"]]
    assert [{k: v for k, v in s.items() if k != "path"} for s in there["sources"]] == strip
    local, remote = open_corpus(tmp_path / "here"), open_corpus(tmp_path / "there")
    assert list(remote.iter_methods()) == list(local.iter_methods())


def test_a_missing_url_source_is_a_one_line_error(cluster, tmp_path):
    url = f"file://{tmp_path}/nothing.zip"
    result = CliRunner().invoke(
        app, ["ingest", url, "-o", str(tmp_path / "c"), "--scheduler", cluster.scheduler_address]
    )
    assert result.exit_code == 2 and result.stderr == f"error: source {url} does not exist\n"


def test_an_encrypted_zip_is_a_one_line_error_before_any_member_is_read(cluster, tmp_path):
    path = encrypted_zip(tmp_path / "enc.zip")
    result = CliRunner().invoke(
        app,
        ["ingest", str(path), "-o", str(tmp_path / "c"), "--scheduler", cluster.scheduler_address],
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: archive {path}: member A.java is encrypted (password required); "
        "unpack the archive with its password and ingest the folder\n"
    )


def test_a_broken_tar_on_a_worker_is_a_one_line_error(cluster, sources, tmp_path):
    data = (tmp_path / "p.tar.xz").read_bytes()
    (tmp_path / "cut.tar.xz").write_bytes(data[: len(data) // 2])
    out = tmp_path / "c"
    result = CliRunner().invoke(
        app,
        ["ingest", str(tmp_path / "cut.tar.xz"), "-o", str(out), "--scheduler",
         cluster.scheduler_address],
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: broken archive {tmp_path / 'cut.tar.xz'}: ")
    assert len(result.stderr.splitlines()) == 1 and not out.exists()


def test_a_missing_shard_is_a_one_line_error(cluster, sources, tmp_path, monkeypatch):
    monkeypatch.setattr(_corpus, "SHARD_RECORDS", 10)
    ingest(sources[:1], tmp_path / "c", quiet=True, scheduler=cluster.scheduler_address)
    (tmp_path / "c" / "methods-00000.jsonl.gz").unlink()
    result = CliRunner().invoke(app, ["corpus", "stats", str(tmp_path / "c")])
    assert result.exit_code == 2
    assert "expected manifest.json and methods-00000.jsonl.gz" in result.stderr


def test_cli_with_a_local_cluster_equals_the_process_pool(sources, tmp_path):
    args = [str(s) for s in sources[:3]]
    pool = CliRunner().invoke(app, ["ingest", *args, "-o", str(tmp_path / "pool"), "-q"])
    dask = CliRunner().invoke(
        app,
        ["ingest", *args, "-o", str(tmp_path / "dask"), "-q", "--scheduler", "local", "-j", "2"],
    )
    assert pool.exit_code == 0 and dask.exit_code == 0, dask.output
    counts = [r.stderr.partition(": ")[2].split(" in ")[0] for r in (pool, dask)]
    assert counts[0] == counts[1] and "methods from" in counts[0]  # the counts line
    here, there = open_corpus(tmp_path / "pool"), open_corpus(tmp_path / "dask")
    assert list(there.iter_methods()) == list(here.iter_methods())
    for key in SAME_KEYS:
        assert there.manifest[key] == here.manifest[key], key
    assert there.manifest["options"]["jobs"] == 2


def _many_methods_zip(path: Path, classes: int, methods: int) -> Path:
    body = "".join(f"  int method{i}(int x) {{ return x + {i}; }}\n" for i in range(methods))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for i in range(classes):
            zf.writestr(f"p/C{i}.java", f"class C{i} {{\n{body}}}\n")
    return path


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path, monkeypatch):
    archive = _many_methods_zip(tmp_path / "big.zip", classes=80, methods=40)
    monkeypatch.setattr(_dask, "_UNIT_FILES", 1)
    expected = ingest([archive], tmp_path / "here", jobs=1, quiet=True)
    consumed = threading.Semaphore(0)
    real = _dask.Cluster.result

    def result(self, future):
        value = real(self, future)
        consumed.release()
        return value

    monkeypatch.setattr(_dask.Cluster, "result", result)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50
        ) as local,
        distributed.Client(local) as client,
    ):
        pids = client.run(os.getpid)
        errors: list[BaseException] = []

        def run() -> None:
            try:
                ingest([archive], tmp_path / "there", quiet=True, scheduler=local.scheduler_address)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        for _ in range(6):  # some units are done and written: the run is under way
            assert consumed.acquire(timeout=HUNG)
        # Kill a worker while it runs a unit.
        victim = None
        deadline = time.monotonic() + HUNG
        while victim is None and thread.is_alive() and time.monotonic() < deadline:
            for worker, keys in client.processing().items():
                if any(key.startswith("run_unit") for key in keys):
                    victim = worker
                    os.kill(pids[worker], signal.SIGKILL)
                    break
            time.sleep(0.005)
        thread.join(60)
        assert victim is not None and not thread.is_alive() and errors == []
    there = open_corpus(tmp_path / "there")
    assert there.manifest["counts"] == expected["counts"]
    assert list(there.iter_methods()) == list(open_corpus(tmp_path / "here").iter_methods())


def test_an_unreachable_scheduler_is_one_line_and_writes_nothing(sources, tmp_path, monkeypatch):
    monkeypatch.setattr(_dask, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free once closed: nothing listens there
    out = tmp_path / "c"
    result = CliRunner().invoke(
        app, ["ingest", str(sources[0]), "-o", str(out), "--scheduler", f"tcp://127.0.0.1:{port}"]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: cannot reach the Dask scheduler tcp://127.0.0.1:{port}"
    )
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_scheduler_lost_mid_run_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    archive = _many_methods_zip(tmp_path / "big.zip", classes=120, methods=150)
    monkeypatch.setattr(_dask, "_UNIT_FILES", 1)
    local = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, dashboard_address=":0", silence_logs=50
    )
    errors: list[BaseException] = []
    started = threading.Event()
    real = _dask.Cluster.result

    def result(self, future):
        started.set()
        return real(self, future)

    monkeypatch.setattr(_dask.Cluster, "result", result)

    def run() -> None:
        try:
            ingest([archive], tmp_path / "c", quiet=True, scheduler=local.scheduler_address)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert started.wait(30)
    local.close()
    thread.join(60)
    assert not thread.is_alive() and len(errors) == 1
    message = str(errors[0])
    assert message.startswith(f"lost the Dask scheduler {local.scheduler_address}")
    assert "\n" not in message
    assert not (tmp_path / "c").exists() and _leftovers(tmp_path) == []


def test_a_task_that_keeps_killing_workers_is_a_one_line_error():
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, dashboard_address=":0", silence_logs=50
        ) as local,
        _dask.Cluster(local.scheduler_address, 1) as on,
    ):
        future = on.submit(os._exit, 1)
        with pytest.raises(WrdscoreError, match="more Dask workers that died") as raised:
            on.result(future)
        assert "\n" not in str(raised.value)


def test_ctrl_c_cancels_the_cluster_tasks_and_leaves_nothing(cluster, tmp_path, monkeypatch):
    archive = _many_methods_zip(tmp_path / "big.zip", classes=200, methods=100)
    monkeypatch.setattr(_dask, "_UNIT_FILES", 1)
    calls = []
    real = _dask.Cluster.result

    def interrupted(self, future):
        calls.append(future)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, future)

    monkeypatch.setattr(_dask.Cluster, "result", interrupted)
    out = tmp_path / "c"
    result = CliRunner().invoke(
        app, ["ingest", str(archive), "-o", str(out), "--scheduler", cluster.scheduler_address]
    )
    assert result.exit_code == 130 and len(calls) == 3
    assert not out.exists() and _leftovers(tmp_path) == []
    with distributed.Client(cluster) as client:
        deadline = time.monotonic() + HUNG
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(client.processing().values())  # the queued units were cancelled
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0


def test_a_real_ctrl_c_on_a_local_cluster_stops_everything(tmp_path):
    archive = _many_methods_zip(tmp_path / "big.zip", classes=600, methods=200)
    options = ["--scheduler", "local", "-j", "2"]
    proc = ctrl_c_ingest(archive, tmp_path / "corpus", options)
    deadline = time.monotonic() + HUNG
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _group_alive(proc.pid)  # no worker process is left running


def _group_alive(pgid: int) -> bool:
    ps = subprocess.run(["ps", "-o", "stat=", "-g", str(pgid)], capture_output=True, text=True)
    return any(not stat.startswith("Z") for stat in ps.stdout.split())


def test_without_dask_scheduler_names_the_extra(sources, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    corpus = _synthetic_corpus(tmp_path / "corpus", None, n=20)
    out = tmp_path / "c"
    for command in (
        ["ingest", str(sources[0]), "-o", str(out), "--scheduler", "local"],
        ["train", str(corpus), "--method", "svd", "-o", str(out), "--scheduler", "local"],
    ):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2, result.output
        assert result.stderr.strip() == (
            "error: --scheduler needs Dask, which is not installed: pip install 'wrdscore[dask]'"
        )
    assert not out.exists()


# --- train: the Dask reductions ----------------------------------------------------------


def _synthetic_corpus(folder: Path, shard_records: int | None, n: int = 700) -> Path:
    """Names of 1-6 tokens with repeats (getOrGet), some empty ones, summaries, contexts."""
    rng = random.Random(7)
    words = [f"w{i}" for i in range(60)] + ["get", "set", "is"]
    records = []
    for i in range(n):
        tokens = [rng.choice(words) for _ in range(rng.choice([0, 1, 1, 2, 3, 4, 6]))]
        summary = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5))) or None
        name = "".join(tokens) or f"_{i}"
        context = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        records.append(
            {"name": name, "tokens": tokens, "summary": summary, "context": context, "source": 0}
        )
    folder.mkdir()
    writer = _corpus.CorpusWriter(folder) if shard_records is None else None
    writer = writer or ShardedCorpusWriter(folder, shard_records)
    with writer:
        for record in records:
            writer.write(record)
        writer.write_manifest({"format": 2, "label": "synthetic", "counts": {"methods": n}})
    return folder


@pytest.mark.parametrize("shards", [None, 64])
@pytest.mark.parametrize("text", ["names", "both", "names+context"])
def test_dask_counts_equal_the_local_counts_exactly(cluster, tmp_path, monkeypatch, shards, text):
    monkeypatch.setattr(train_dask, "_MIN_RANGE_RECORDS", 50)  # a single file in ranges too
    corpus = open_corpus(_synthetic_corpus(tmp_path / "c", shards))
    docs = TokenDocuments.from_token_lists(
        record_documents(corpus.iter_methods(), parse_text(text))
    )
    with _dask.Cluster(cluster.scheduler_address, 1) as on:
        parts = train_dask.partitions(corpus, on.threads())
        assert len(parts) > 1
        stats = train_dask.token_stats(on, parts, text)
        assert stats.vocab == docs.vocab and stats.n_docs == docs.n_docs
        assert np.array_equal(stats.counts, docs.counts)
        local_df = document_frequencies(docs)
        assert list(stats.doc_freq.items()) == list(local_df.items())
        for min_count, window in [(1, None), (1, 1), (3, 2), (10**6, None)]:
            pruned = docs.prune(min_count)
            keep = int(np.count_nonzero(stats.counts >= min_count))
            matrix = train_dask.cooccurrence(on, parts, text, stats.vocab[:keep], window)
            expected = cooccurrence_matrix(pruned, window)
            assert matrix.shape == expected.shape and matrix.dtype == expected.dtype
            assert (matrix != expected).nnz == 0 and matrix.nnz == expected.nnz


@pytest.mark.parametrize("text", ["both", "names+context"])
@pytest.mark.parametrize("method", ["svd", "word2vec"])
def test_train_with_a_scheduler_gives_the_local_model(cluster, tmp_path, method, text):
    corpus = _synthetic_corpus(tmp_path / "c", 100)
    options = {"dim": 4, "min_count": 2, "text": text, **({} if method == "svd" else {"epochs": 1})}
    train_embeddings(corpus, method, tmp_path / "here", **options)
    train_embeddings(
        corpus, method, tmp_path / "there", scheduler=cluster.scheduler_address, **options
    )
    a, b = load_embeddings(tmp_path / "here"), load_embeddings(tmp_path / "there")
    assert a.kv.index_to_key == b.kv.index_to_key
    assert np.array_equal(a.kv.vectors, b.kv.vectors)
    assert a.doc_freq == b.doc_freq and a.n_docs == b.n_docs
    assert {k: v for k, v in a.meta.items() if k != "train_seconds"} == {
        k: v for k, v in b.meta.items() if k != "train_seconds"
    }


@pytest.mark.parametrize("shards", [None, 100])
def test_train_with_a_scheduler_refuses_a_truncated_corpus(cluster, tmp_path, monkeypatch, shards):
    monkeypatch.setattr(train_dask, "_MIN_RANGE_RECORDS", 50)  # a single file in ranges too
    corpus = _synthetic_corpus(tmp_path / "c", shards)
    manifest = json.loads((corpus / "manifest.json").read_text())
    manifest["counts"]["methods"] = 720  # 700 records
    (corpus / "manifest.json").write_text(json.dumps(manifest))
    files = "files have" if shards else "file has"
    with pytest.raises(
        WrdscoreError, match=f"manifest says 720 methods but the records {files} 700"
    ):
        train_embeddings(corpus, "svd", tmp_path / "m", dim=4, scheduler=cluster.scheduler_address)
    assert not (tmp_path / "m").exists()


def test_train_scheduler_options_are_checked(tmp_path):
    corpus = _synthetic_corpus(tmp_path / "c", None, n=20)
    result = CliRunner().invoke(
        app, ["train", str(corpus), "--method", "svd", "-o", str(tmp_path / "m"), "--jobs", "2"]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --jobs sets the workers of --scheduler local; add --scheduler local\n"
    )
    common = ["train", str(corpus), "--method", "svd", "-o", str(tmp_path / "m")]
    result = CliRunner().invoke(app, [*common, "--jobs", "2", "--scheduler", "tcp://h:8786"])
    assert result.stderr == (
        "error: --jobs sets the workers of --scheduler local; a cluster at an address has its own\n"
    )
    result = CliRunner().invoke(app, [*common, "--jobs", "0", "--scheduler", "local"])
    assert result.stderr == "error: --jobs must be at least 1, not 0\n"


def test_train_cli_on_a_local_cluster_writes_the_local_model(tmp_path):
    corpus = _synthetic_corpus(tmp_path / "c", 100)
    common = ["--method", "svd", "--dim", "4", "--min-count", "2", "--baseline-pairs", "0"]
    here = CliRunner().invoke(app, ["train", str(corpus), *common, "-o", str(tmp_path / "a")])
    there = CliRunner().invoke(
        app,
        [
            "train",
            str(corpus),
            *common,
            "-o",
            str(tmp_path / "b"),
            "--scheduler",
            "local",
            "-j",
            "2",
        ],
    )
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    a, b = load_embeddings(tmp_path / "a"), load_embeddings(tmp_path / "b")
    assert a.kv.index_to_key == b.kv.index_to_key and a.doc_freq == b.doc_freq
    assert np.array_equal(a.kv.vectors, b.kv.vectors)


def test_jobs_with_a_scheduler_address_is_refused_before_connecting(sources, tmp_path):
    out = tmp_path / "c"
    result = CliRunner().invoke(
        app, ["ingest", str(sources[0]), "-o", str(out), "--scheduler", "tcp://host:1", "-j", "2"]
    )
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == (
        "error: --jobs sets the workers of --scheduler local; a cluster at an address has its own\n"
    )


@pytest.mark.parametrize("address", ["foo://x", "http://127.0.0.1:1", "not a url"])
def test_a_malformed_scheduler_address_is_one_line_at_once(sources, tmp_path, address):
    # Such an address failed inside dask's Client constructor, whose half-started client
    # then waited 20 s at exit and printed a traceback after the error line.
    out = tmp_path / "c"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from wrdscore.cli import app; app()",
            "ingest",
            str(sources[0]),
            "-o",
            str(out),
            "--scheduler",
            address,
        ],
        capture_output=True,
        text=True,
        timeout=HUNG,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot reach the Dask scheduler {address}: ")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()
