"""Round 5's fresh Java projects, chosen by the rule of ``benchmarks/round5_projects.md``.

``list`` reads Debian bookworm's ``Sources`` index (fetched once through the private apt
configuration of ``scripts/code_support_signal.py``) and writes the candidates in the
rule's order, with versions and upstream archive sizes, to
``benchmarks/round5_projects.txt``; ``prepare`` fetches and ingests them in that order
until five are taken, and records each outcome in the same file::

    python benchmarks/round5_projects.py list
    python benchmarks/round5_projects.py prepare [--rounds 2|3|4|5|6]

``--rounds 2`` also takes the next five by the same rule, round 6's projects (issue 41's
second round of floors, whose rule names them); each further round takes the five after
those: ``--rounds 3`` round 7's, ``--rounds 4`` round 8's, ``--rounds 5`` round 9's,
``--rounds 6`` round 10's (issue 41's third to sixth rounds). The corpora land in
``work-data/round5/corpora`` (ignored by git), as ``benchmarks/code_adversarial.py
--corpora`` reads them.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "work-data" / "round5"
LIST = ROOT / "benchmarks" / "round5_projects.txt"
SALT = "wrdscore-round5:"
SIZE = (200_000, 3_000_000)
TAKE = 5
MIN_METHODS = 300
#: Rounds 1-4's projects, language_signal.py's, and gson (issue 41's template probe).
EXCLUDED = {
    "libjoda-time-java",
    "libjfreechart-java",
    "bsh",
    "jfugue",
    "libjsyntaxpane-java",
    "libmetadata-extractor-java",
    "libjgraphx-java",
    "libcommons-jexl3-java",
    "jflex",
    "libjlatexmath-java",
    "jinja2",
    "python-toml",
    "golang-github-spf13-cobra",
    "node-commander",
    "libgoogle-gson-java",
}


def _signal_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "code_support_signal", ROOT / "scripts" / "code_support_signal.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def default_sources() -> set[str]:
    """The 68 Debian packages of the default model's build (OpenJDK is no ``lib*-java``)."""
    text = (ROOT / "scripts" / "build_default_model.sh").read_text(encoding="utf-8")
    match = re.search(r"^PACKAGES=\((.*?)\)", text, re.S | re.M)
    assert match is not None, "build_default_model.sh has no PACKAGES=(...)"
    return set(match.group(1).split())


@dataclass(frozen=True)
class Candidate:
    package: str
    version: str
    archive: str
    size: int

    @property
    def key(self) -> str:
        return hashlib.sha256((SALT + self.package).encode()).hexdigest()


def stanzas(text: str) -> Iterator[dict[str, str]]:
    """The deb822 paragraphs of a ``Sources`` index: field -> value (continuations kept)."""
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        last = None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and last is not None:
                fields[last] += "\n" + line.strip()
            elif ":" in line:
                last, value = line.split(":", 1)
                fields[last] = value.strip()
        if fields:
            yield fields


def candidates(index: str) -> list[Candidate]:
    """The rule's candidates of one ``Sources`` index, in the rule's order."""
    excluded = EXCLUDED | default_sources()
    out = []
    for s in stanzas(index):
        package = s.get("Package", "")
        if s.get("Section") != "java" or not re.fullmatch(r"lib.+-java", package):
            continue
        if package in excluded:
            continue
        for line in s.get("Files", "").splitlines():
            parts = line.split()
            if len(parts) == 3 and ".orig.tar." in parts[2]:
                size = int(parts[1])
                if SIZE[0] <= size <= SIZE[1]:
                    out.append(Candidate(package, s["Version"], parts[2], size))
    return sorted(out, key=lambda c: c.key)


def _index(apt: list[str]) -> str:
    lists = WORK / "apt" / "lists"
    if not list(lists.glob("*Sources*")):
        subprocess.run(["apt-get", *apt, "update"], check=True)
    # The bookworm suite's main Sources only (not -updates or -security).
    paths = list(lists.glob("*_dists_bookworm_main_source_Sources*"))
    if len(paths) != 1:
        sys.exit(f"error: expected one bookworm main Sources index under {lists}, got {paths}")
    # apt keeps its lists compressed (lz4 here); its helper reads them as apt does.
    helper = ["/usr/lib/apt/apt-helper", "cat-file", str(paths[0])]
    return subprocess.run(helper, check=True, capture_output=True, text=True).stdout


def list_candidates() -> None:
    apt = _signal_script()._apt_options(WORK)
    found = candidates(_index(apt))
    lines = [
        "# Round 5's candidates (benchmarks/round5_projects.md), in the rule's order.",
        "# Fetched by: apt-get source --download-only PACKAGE=VERSION",
        "# package version upstream-archive bytes sha256-key",
    ]
    lines += [f"{c.package} {c.version} {c.archive} {c.size} {c.key[:16]}" for c in found]
    LIST.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(found)} candidates written to {LIST}")


def prepare(rounds: int = 1) -> None:
    """Take the candidates in order until five per round are taken: round 5's, and with
    ``rounds`` 2 the next five too (round 6's, issue 41's second round of floors), and so on:
    3 takes round 7's, 4 round 8's, 5 round 9's, 6 round 10's."""
    from wrdscore.corpora import ingest

    apt = _signal_script()._apt_options(WORK)
    if not list((WORK / "apt" / "lists").glob("*Sources*")):
        # Without the deb-src index every package would look unserved and be skipped.
        subprocess.run(["apt-get", *apt, "update"], check=True)
    rows = [line.split() for line in LIST.read_text(encoding="utf-8").splitlines()]
    debsrc = WORK / "debsrc"
    debsrc.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/round5_projects.py prepare" + (
        f" --rounds {rounds}" if rounds > 1 else ""
    )
    outcome = ["", f"# outcome, in order ({command})"]
    taken: list[str] = []
    for row in rows:
        if not row or row[0].startswith("#") or len(taken) == TAKE * rounds:
            continue
        package, version = row[0], row[1]
        if not list(debsrc.glob(f"{package}_*.orig.tar.*")):
            # A missing Debian patch archive fails the command: judged by what it left.
            subprocess.run(
                ["apt-get", *apt, "source", "--download-only", f"{package}={version}"],
                cwd=debsrc,
            )
        archive = sorted(debsrc.glob(f"{package}_*.orig.tar.*"))
        if not archive:
            outcome.append(f"# {package}: skipped, the mirror served no upstream archive")
            continue
        corpus = WORK / "corpora" / package
        if (corpus / "manifest.json").is_file():
            manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        else:
            manifest = ingest([archive[0]], corpus, quiet=True, language="java")
        methods = manifest["counts"]["methods"]
        if methods < MIN_METHODS:
            outcome.append(f"# {package}: skipped, {methods} methods (< {MIN_METHODS})")
            continue
        taken.append(package)
        outcome.append(f"# {package}: taken, {methods} methods")
    for r in range(rounds):
        outcome.append(f"# round {5 + r}'s projects: {' '.join(taken[r * TAKE : (r + 1) * TAKE])}")
    text = LIST.read_text(encoding="utf-8").split("\n\n# outcome", 1)[0].rstrip("\n")
    LIST.write_text(text + "\n" + "\n".join(outcome) + "\n", encoding="utf-8")
    print("\n".join(outcome))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("list", "prepare"))
    ap.add_argument(
        "--rounds",
        type=int,
        choices=(1, 2, 3, 4, 5, 6),
        default=1,
        help="prepare: 2 also takes round 6's projects, 3 round 7's, ... 6 round 10's",
    )
    args = ap.parse_args(argv)
    if args.command == "list":
        list_candidates()
    else:
        prepare(args.rounds)


if __name__ == "__main__":
    main()
