"""The README and the documentation site: the site builds strictly, and every example runs.

The examples marked runnable (``<!-- test -->`` before a ``console`` or ``pycon`` block,
see ``tests/doc_examples.py``) are run, and what they print is checked against what the
page shows.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from doc_examples import output_mismatch, run_file, runnable_blocks

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUNNABLE = [p for p in PAGES if runnable_blocks(p)]


def test_the_readme_is_a_short_guide():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300
    # The tour is the README's promise: every step of it is runnable.
    assert len(runnable_blocks(ROOT / "README.md")) >= 8


def test_the_readme_tour_trains_on_the_example_project_not_the_jdk():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "src.zip -o" not in text and "wrdscore ingest examples/project" in text


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_runnable_examples_print_what_the_page_shows(page, tmp_path):
    run_file(page, tmp_path)


def test_the_output_check_fails_on_a_different_output():
    shown = ["a", "...", "c ... e", "f"]
    assert output_mismatch(shown, "a\nb\nc d e\nf\n") is None
    assert output_mismatch(shown, "a\nb\nc d e\nf\ng\n") is not None  # extra tail
    assert output_mismatch(shown, "x\na\nc d e\nf\n") is not None  # first line anchored
    assert output_mismatch(shown, "a\nc d e\nb\nf\n") is not None  # c and f adjacent
    assert output_mismatch(["...", "0.2686"], "f1 0.2686\n") is not None  # whole lines
    assert output_mismatch(["...", "f1 0.2686", "..."], "x\nf1 0.2686\ny\n") is None


def _mkdocs_available() -> bool:
    return all(importlib.util.find_spec(m) for m in ("mkdocs", "material", "mkdocstrings"))


@pytest.mark.skipif(
    not _mkdocs_available() and os.environ.get("CI") != "true",
    reason="mkdocs is not installed (pip install -e '.[docs]'); CI always builds the site",
)
def test_the_site_builds_with_strict_checks(tmp_path):
    # --strict turns every warning into a failure: a broken link or anchor, a page left out
    # of the navigation, a missing API object, a docstring mkdocstrings cannot read.
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    site = tmp_path / "site"
    command = ["build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)]
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index.html", "cli/index.html", "api/metrics/index.html", "model-card/index.html"):
        assert (site / page).is_file(), page
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    # Generated from the app: every command and its options are there.
    assert "wrdscore study analyze" in cli and "--chunk-pairs" in cli
    api = (site / "api" / "metrics" / "index.html").read_text(encoding="utf-8")
    assert "get_metric" in api and "WRDScore" in api
    # Names a package exports lazily are documented too (griffe follows the imports).
    api = (site / "api" / "embeddings" / "index.html").read_text(encoding="utf-8")
    assert 'id="wrdscore.embeddings.train_embeddings"' in api
