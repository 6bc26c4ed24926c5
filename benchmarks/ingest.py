"""Ingest speed and memory on OpenJDK 17's src.zip, against a naive javalang loop.

Run as ``flock /tmp/wrdscore-bench.lock python benchmarks/ingest.py`` (the lock keeps
benchmarks from sharing the cores). Every configuration runs ``wrdscore ingest`` in
a fresh process; peak memory is the largest sum of the resident set sizes of that
process and all its children, sampled every 20 ms from /proc (an upper bound:
pages that forked workers share with the parent are counted once per process).

The Dask rows run the same ingest through ``--scheduler local`` (a LocalCluster of 1
or 2 single-threaded worker processes, which read the zip themselves) beside the
process pool with as many workers; the cluster's overhead is their difference, split
into a fixed cost (starting the cluster and importing the parsers in its workers,
measured by ingesting a one-file source both ways) and the rest, per file. The
cluster's corpus is checked to hold the pool's records in the pool's order.

The javalang configurations and the naive baseline (javalang, one process, no
fallback, records collected in a list) are slow, so they run on a deterministic
subset of src.zip (every ``--every``-th .java member, written to work-data/) and
their full-archive times are extrapolated from the per-file rate; the table says
which rows are measured on the subset. The cross-check counts tree-sitter's
``method_declaration`` nodes in every file with a plain query, independently of
the ingester's extraction, and compares them with the records per file.

``--against CHECKOUT`` instead compares this checkout's ingest of the whole of
src.zip (tree-sitter, 2 jobs) with another checkout's (say, the main branch before a
change), alternating the two ``--rounds`` times so that other work on the machine
hits both alike; it prints wall time, CPU time (the process and its workers) and
peak memory of every run, and the ratios of the medians.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
import zipfile
from collections import Counter
from itertools import zip_longest
from pathlib import Path

from _proc import run_measured

from wrdscore.corpora import open_corpus

SRC_ZIP = Path("/usr/lib/jvm/openjdk-17/lib/src.zip")
WORK = Path(__file__).resolve().parents[1] / "work-data" / "bench-ingest"
CLI = [sys.executable, "-c", "from wrdscore.cli import app; app()"]


def make_subset(every: int) -> Path:
    """Every ``every``-th .java member of src.zip, as a zip of its own."""
    subset = WORK / f"src-every-{every}.zip"
    if not subset.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        tmp = subset.with_suffix(".tmp")
        with (
            zipfile.ZipFile(SRC_ZIP) as src,
            zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst,
        ):
            members = [i for i in src.infolist() if i.filename.endswith(".java")]
            for info in members[::every]:
                dst.writestr(info.filename, src.read(info))
        tmp.replace(subset)
    return subset


def java_bytes(archive: Path) -> tuple[int, int]:
    with zipfile.ZipFile(archive) as z:
        members = [i for i in z.infolist() if i.filename.endswith(".java")]
    return len(members), sum(i.file_size for i in members)


def naive_baseline(archive: Path, out: Path) -> None:
    """The naive ingester: javalang, one process, no fallback, all records in memory."""
    import javalang

    from wrdscore.corpora import split_identifier

    records: list[dict[str, object]] = []
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            if not info.filename.endswith(".java"):
                continue
            text = z.read(info).decode("utf-8", errors="replace")
            try:
                unit = javalang.parse.parse(text)
                names = [node.name for _, node in unit.filter(javalang.tree.MethodDeclaration)]
            except Exception:  # syntax errors, and RecursionError on deeply nested code
                continue
            records.extend({"name": n, "tokens": split_identifier(n)} for n in names)
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")


def cross_check(corpus: Path) -> tuple[int, int, int]:
    """tree-sitter method_declaration nodes vs records, per file: (nodes, records, files off)."""
    import tree_sitter_java
    from tree_sitter import Language, Parser, Query, QueryCursor

    lang = Language(tree_sitter_java.language())
    parser = Parser(lang)
    query = Query(lang, "(method_declaration) @m")
    nodes: Counter[str] = Counter()
    with zipfile.ZipFile(SRC_ZIP) as z:
        for info in z.infolist():
            if info.filename.endswith(".java"):
                tree = parser.parse(z.read(info))
                nodes[info.filename] = len(QueryCursor(query).captures(tree.root_node).get("m", []))
    records: Counter[str] = Counter()
    for record in open_corpus(corpus).iter_methods():
        records[record["path"]] += 1
    off = sum(1 for f in nodes.keys() | records.keys() if nodes[f] != records[f])
    return sum(nodes.values()), sum(records.values()), off


def compare_checkouts(other: Path, rounds: int) -> None:
    """This checkout against ``other`` on all of src.zip, alternating, ``rounds`` times."""
    here = Path(__file__).resolve().parents[1]
    checkouts = {"this": here, "other": other.resolve()}
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in checkouts}
    print(f"this: {here}\nother: {checkouts['other']}")
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'run':>3} {'checkout':8} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'load':>5}")
    for i in range(rounds):
        for name, root in (("other", checkouts["other"]), ("this", here)):
            out = WORK / f"against-{name}" / "corpus"
            cmd = [*CLI, "ingest", str(SRC_ZIP), "-o", str(out), "--force", "--quiet", "-j", "2"]
            wall, cpu, peak, _ = run_measured(cmd, root)
            results[name].append((wall, cpu, peak))
            print(
                f"{i + 1:>3} {name:8} {wall:>7.1f} {cpu:>7.1f} {peak / 2**20:>8.0f} "
                f"{os.getloadavg()[0]:>5.2f}"
            )
    for column, label in ((0, "wall"), (1, "cpu"), (2, "peak memory")):
        this = statistics.median(r[column] for r in results["this"])
        that = statistics.median(r[column] for r in results["other"])
        print(f"median {label}: this / other = {this:.4g} / {that:.4g} = {this / that:.3f}")


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label.lower()).strip("-")


def same_records(a: Path, b: Path) -> bool:
    """Whether two corpora hold the same records in the same order."""
    missing = object()
    pairs = zip_longest(
        open_corpus(a).iter_methods(), open_corpus(b).iter_methods(), fillvalue=missing
    )
    return all(x == y for x, y in pairs)


def fixed_cost(jobs: int) -> float:
    """Wall seconds a one-file ingest takes on a LocalCluster more than on the pool."""
    one = WORK / "one" / "A.java"
    one.parent.mkdir(parents=True, exist_ok=True)
    one.write_text("class A { int getX() { return 1; } }\n")
    walls = []
    for opts in (["--jobs", str(jobs)], ["--jobs", str(jobs), "--scheduler", "local"]):
        cmd = [*CLI, "ingest", str(one), "-o", str(WORK / "one-out"), "--force", "-q", *opts]
        walls.append(min(run_measured(cmd).wall for _ in range(2)))
    return walls[1] - walls[0]


def client_rate(corpus: Path) -> float:
    """Records per second the client of a cluster run can take in and write.

    Times what :func:`wrdscore.corpora.ingest` does per record on the client with
    ``--scheduler``: unpickle the workers' ``FileResult`` s (records with their
    ``context``, a file each, 128 files at a time as units arrive), encode them
    (``encode_file``, as ``_ingest._encoded`` does), write their lines to the shards
    (``write_lines``), keep the distinct names, and count the distinct tokens at the end.
    """
    import pickle
    import tempfile
    from itertools import groupby

    from wrdscore.corpora import ShardedCorpusWriter, split_identifier
    from wrdscore.corpora._extract import FileResult
    from wrdscore.corpora._ingest import encode_file

    records = list(open_corpus(corpus).iter_methods())
    fields = ("name", "tokens", "type", "line", "summary", "context")
    files = [
        (path, FileResult("parsed", [{k: r.get(k) for k in fields} for r in recs], None, False))
        for path, recs in ((p, list(g)) for p, g in groupby(records, key=lambda r: r["path"]))
    ]
    units = [pickle.dumps(files[i : i + 128]) for i in range(0, len(files), 128)]
    names: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        with ShardedCorpusWriter(Path(tmp)) as writer:
            for unit in units:
                for path, result in pickle.loads(unit):
                    encoded = encode_file(result, path, 0)
                    writer.write_lines(encoded.lines, len(encoded.names))
                    names.update(encoded.names)
        _ = len({t for name in names for t in split_identifier(name)})
        return len(records) / (time.process_time() - start)


def tar_bench(archive: Path) -> None:
    """A compressed tar through the pool and through a LocalCluster, whose units are ranges.

    Prints one decompression pass (what each range pays, at most, to reach its first
    member), the parse rate of the pool, and both walls.
    """
    from wrdscore.corpora import _dask

    start = time.perf_counter()
    _, members = _dask.list_tar(str(archive))
    listing = time.perf_counter() - start
    size = sum(m[1] for m in members)
    print(
        f"{archive.name}: {len(members):,} .java members, {size / 2**20:.1f} MB; one pass "
        f"decompressing, hashing and listing it: {listing:.1f} s ({size / 2**20 / listing:.0f}"
        f" MB/s of Java); cut into at most {_dask._TAR_RANGES} ranges"
    )
    walls = {}
    for label, opts in (
        ("pool, 2 jobs", ["--jobs", "2"]),
        ("Dask LocalCluster, 2 workers", ["--jobs", "2", "--scheduler", "local"]),
    ):
        out = WORK / "tar" / slug(label)
        cmd = [*CLI, "ingest", str(archive), "-o", str(out), "--force", "-q", *opts]
        walls[label] = run_measured(cmd).wall
        print(f"  {label}: {walls[label]:.1f} s ({size / 2**20 / walls[label]:.1f} MB/s)")
    same = same_records(WORK / "tar" / slug("pool, 2 jobs"), WORK / "tar" / slug(label))
    print(f"  same records in the same order: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=10, help="subset: every N-th file")
    ap.add_argument("--baseline-only", nargs=2, metavar=("ZIP", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--against", type=Path, metavar="CHECKOUT", help="compare with a checkout")
    ap.add_argument("--rounds", type=int, default=3, help="--against: runs of each")

    ap.add_argument(
        "--dask", action="store_true", help="only the process pool and Dask LocalCluster rows"
    )
    ap.add_argument(
        "--client-rate",
        metavar="CORPUS",
        help="only measure how many records/s a cluster run's client writes, on CORPUS",
    )
    ap.add_argument("--tar", metavar="ARCHIVE", help="only the compressed-tar comparison")
    args = ap.parse_args()
    if args.tar:
        tar_bench(Path(args.tar))
        return
    if args.client_rate:
        rate = client_rate(Path(args.client_rate))
        print(f"client of a cluster run: {rate:,.0f} records/s of CPU time")
        return
    if args.baseline_only:
        naive_baseline(Path(args.baseline_only[0]), Path(args.baseline_only[1]))
        return
    if not SRC_ZIP.exists():
        raise SystemExit(f"{SRC_ZIP} not found: apt-get install openjdk-17-source")
    if args.against:
        compare_checkouts(args.against, args.rounds)
        return

    subset = make_subset(args.every)
    full_files, full_bytes = java_bytes(SRC_ZIP)
    sub_files, sub_bytes = java_bytes(subset)
    print(f"src.zip: {full_files:,} .java files, {full_bytes / 2**20:.1f} MB uncompressed")
    print(f"subset:  {sub_files:,} files (every {args.every}th), {sub_bytes / 2**20:.1f} MB")
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")

    rows = []
    configs = [
        ("naive javalang (1 process, no fallback)", subset, None),
        ("tree-sitter, 1 job", SRC_ZIP, ["--parser", "tree-sitter", "--jobs", "1"]),
        ("tree-sitter, 2 jobs (default)", SRC_ZIP, ["--parser", "tree-sitter", "--jobs", "2"]),
        ("Dask LocalCluster, 1 worker", SRC_ZIP, ["--jobs", "1", "--scheduler", "local"]),
        ("Dask LocalCluster, 2 workers", SRC_ZIP, ["--jobs", "2", "--scheduler", "local"]),
        ("javalang, 1 job", subset, ["--parser", "javalang", "--jobs", "1"]),
        ("javalang, 2 jobs", subset, ["--parser", "javalang", "--jobs", "2"]),
    ]
    if args.dask:
        # Only the pool and cluster rows: the pool is the baseline of the cluster rows.
        configs = [c for c in configs if c[0].startswith(("tree-sitter", "Dask"))]
    for label, archive, opts in configs:
        out = WORK / slug(label) / "corpus"
        if opts is None:
            out = WORK / "naive.jsonl.gz"
            cmd = [sys.executable, __file__, "--baseline-only", str(archive), str(out)]
        else:
            cmd = [*CLI, "ingest", str(archive), "-o", str(out), "--force", "--quiet", *opts]
        wall, _, peak, _ = run_measured(cmd)
        if opts is None:
            with gzip.open(out, "rt") as fh:
                methods = sum(1 for _ in fh)
            counts = {"files_fallen_back": 0, "files_failed": "-"}
        else:
            counts = json.loads((out / "manifest.json").read_text())["counts"]
            methods = counts["methods"]
        files, size = (sub_files, sub_bytes) if archive == subset else (full_files, full_bytes)
        rows.append((label, archive == subset, files, size, methods, wall, peak, counts))

    base_rate = rows[0][2] / rows[0][5]
    base = "x naive" if not args.dask else "x 1 job"
    print()
    print(
        f"{'configuration':42} {'files':>6} {'wall s':>7} {'files/s':>8} {'MB/s':>6} "
        f"{'methods/s':>9} {'peak MB':>8} {base:>7} {'src.zip s':>9} {'fallback':>8}"
    )
    for label, on_subset, files, size, methods, wall, peak, counts in rows:
        rate = files / wall
        full = full_files / rate
        print(
            f"{label + (' *' if on_subset else ''):42} {files:>6,} {wall:>7.1f} {rate:>8.0f} "
            f"{size / 2**20 / wall:>6.2f} {methods / wall:>9,.0f} {peak / 2**20:>8.0f} "
            f"{rate / base_rate:>7.1f} {full:>9.1f} {counts['files_fallen_back']!s:>8}"
        )
    print("* measured on the subset; 'src.zip s' extrapolates its per-file rate to all files")
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work shares the cores)")

    walls = {label: wall for label, _, _, _, _, wall, _, _ in rows}
    print("\nDask overhead over the process pool with as many workers (src.zip):")
    for jobs, pool, dask in (
        (1, "tree-sitter, 1 job", "Dask LocalCluster, 1 worker"),
        (2, "tree-sitter, 2 jobs (default)", "Dask LocalCluster, 2 workers"),
    ):
        fixed = fixed_cost(jobs)
        extra = walls[dask] - walls[pool]
        same = same_records(WORK / slug(pool) / "corpus", WORK / slug(dask) / "corpus")
        print(
            f"  {jobs} worker(s): {walls[dask]:.1f} s vs {walls[pool]:.1f} s "
            f"(x{walls[dask] / walls[pool]:.2f}, +{extra:.1f} s): fixed cost {fixed:.1f} s "
            f"(cluster start, one-file ingest), the rest {(extra - fixed) * 1e3 / full_files:.2f}"
            f" ms per file; same records in the same order: {same}"
        )

    rate = client_rate(WORK / slug("tree-sitter, 2 jobs (default)") / "corpus")
    print(f"  the client takes in and writes {rate:,.0f} records/s (CPU time, one core)")

    if args.dask:
        return
    nodes, records, off = cross_check(WORK / slug("tree-sitter, 2 jobs (default)") / "corpus")
    print(
        f"\ncross-check: {nodes:,} tree-sitter method_declaration nodes in src.zip, "
        f"{records:,} records from the default ingest, {off} files with a different count"
    )


if __name__ == "__main__":
    main()
