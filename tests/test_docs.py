"""The README and the documentation site: the site builds strictly, and every example runs.

The examples marked runnable (``<!-- test -->`` before a ``console`` or ``pycon`` block,
see ``tests/doc_examples.py``) are run, and what they print is checked against what the
page shows.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import HUNG, require
from doc_examples import (
    CODE_LANGS,
    NOT_RUN,
    SETUP,
    console_steps,
    fenced_blocks,
    output_mismatch,
    run_file,
    runnable_blocks,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".ci"))
from readme_commands import readme_commands  # noqa: E402


def _site_hooks():
    """docs/hooks.py, which names the site's pages read from outside docs/ (INCLUDED)."""
    spec = importlib.util.spec_from_file_location("wrdscore_docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Every page of the site: docs/, and the README, model card and benchmarks it reads in.
INCLUDED = _site_hooks().INCLUDED
PAGES = [
    *(ROOT / source for source in INCLUDED.values()),
    *sorted((ROOT / "docs").rglob("*.md")),
]
RUNNABLE = [p for p in PAGES if runnable_blocks(p)]


def test_the_readme_is_a_short_guide():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300
    # The tour is the README's promise: every step of it is runnable.
    assert len(runnable_blocks(ROOT / "README.md")) >= 8


def test_the_readme_tour_trains_on_the_example_project_not_the_jdk():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "src.zip -o" not in text and "wrdscore ingest examples/project" in text


@pytest.fixture(scope="module")
def page_runs(tmp_path_factory):
    """Every runnable page's examples, two pages at a time, each in its own folder.

    The pages share nothing but the checkout, and most of their steps are one process on
    one core: run in pairs they take about half the wall time on the two-core CI machine
    (the suite's budget is wall time). Each test below waits for its own page's run.
    """
    pool = ThreadPoolExecutor(max_workers=2)
    # The costliest pages first, so the pair finishes together (README and encoders lead).
    order = sorted(RUNNABLE, key=lambda p: -len(runnable_blocks(p)))
    runs = {p: pool.submit(run_file, p, tmp_path_factory.mktemp(p.stem)) for p in order}
    yield runs
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_runnable_examples_print_what_the_page_shows(page, page_runs):
    page_runs[page].result()  # re-raises the page's AssertionError, with its message


#: Setup lines no test can run: they download a model from the Hugging Face hub.
DOWNLOADS = {
    "docs/bartscore.md": [
        'python -c "from transformers import AutoModelForSeq2SeqLM as M, AutoTokenizer as T',
        "n = 'facebook/bart-large-cnn'",
        "for c in (M, T): c.from_pretrained(n).save_pretrained('bart-large-cnn')\"",
    ]
}


def _extras() -> dict[str, list[str]]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["optional-dependencies"]


def _requirement_name(req: str) -> str:
    return re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower()


def _setup_problem(command: str, page: Path, ci: list[str], extras: dict[str, list[str]]) -> str:
    """Why a setup command is not covered by CI or a runnable block ("" if it is)."""
    words = command.split()
    if words[:2] == ["pip", "install"]:
        test_extra = set(extras["test"])
        test_names = {_requirement_name(r) for r in test_extra}
        for target in words[2:]:
            target = target.strip("'\"")
            if target == "-e":
                continue
            found = re.fullmatch(r"(?:\.|wrdscore)(?:\[([\w,-]+)\])?", target)
            if found is None:
                if _requirement_name(target) not in test_names:
                    return f"{target} is not installed by the test extra"
                continue
            for extra in filter(None, (found.group(1) or "").split(",")):
                if extra not in extras:
                    return f"no extra {extra!r} in pyproject.toml"
                missing = {_requirement_name(r) for r in extras[extra]} - test_names
                if missing:
                    return f"the test extra lacks {sorted(missing)} of [{extra}]"
        return ""
    if command in ci or (words[0] == "mkdocs" and words[1] in ("build", "serve")):
        return ""  # CI runs it; tests/test_docs.py builds the site with --strict
    ran = [
        step.command
        for block in runnable_blocks(page)
        if block.lang == "console"
        for step in console_steps(block.text)
    ]
    if any(r.startswith(command) for r in ran):
        return ""
    return "neither CI nor a runnable block of the page runs it"


def test_every_code_block_runs_or_is_setup_that_ci_covers():
    # "Every code example in the docs runs in the test suite": a code block is runnable,
    # or setup (installs, downloads) whose every command CI or a runnable block runs.
    # .ci/run's own lines, and the README's two commands it runs as written.
    readme = [c.strip() for text in readme_commands() for c in text.split("&&")]
    ci = [
        line.removeprefix("python -m ").strip()
        for line in [*(ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines(), *readme]
    ]
    ci += [f"python -m {c}" for c in ci]
    extras = _extras()
    problems, downloads = [], {}
    for page in PAGES:
        where = str(page.relative_to(ROOT))
        for marker, block in fenced_blocks(page):
            if block.lang in CODE_LANGS and not marker:
                problems.append(f"{where}:{block.line}: a {block.lang} block that does not run")
            if NOT_RUN.fullmatch(marker):
                # A record of a measurement: what it runs must at least exist.
                for script in re.findall(r"(?:scripts|benchmarks)/[\w/.-]+\.py", block.text):
                    if not (ROOT / script).is_file():
                        problems.append(f"{where}:{block.line}: no {script}")
            if marker != SETUP:
                continue
            for raw in block.text.splitlines():
                line = raw.split("  #")[0].strip()
                if not line or line.startswith("#"):
                    continue
                for command in (c.strip() for c in line.split("&&")):
                    why = _setup_problem(command, page, ci, extras)
                    if why:
                        downloads.setdefault(where, []).append(command)
    assert problems == []
    assert downloads == DOWNLOADS


def test_every_page_of_the_site_is_checked():
    # The model card and the benchmarks page live outside docs/; their blocks once went
    # unchecked (issue 27, item 9). Every page in the navigation must be one of PAGES.
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text.split("\nnav:\n", 1)[1].split("\n\n", 1)[0]
    pages = re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, re.M)
    assert len(pages) > 15
    sources = {ROOT / INCLUDED.get(page, f"docs/{page}") for page in pages}
    assert sources - set(PAGES) == set()
    assert {ROOT / "wrdscore/data/MODEL_CARD.md", ROOT / "benchmarks/README.md"} <= set(PAGES)


def test_a_block_not_run_needs_its_reason(tmp_path):
    page = tmp_path / "page.md"
    markers = ["<!-- not run: a benchmark -->", "<!-- not run: -->", "<!-- not run -->"]
    page.write_text("".join(f"{m}\n```bash\nwrdscore score\n```\n\n" for m in markers))
    found = [marker for marker, _ in fenced_blocks(page)]
    # Only the first is classified; the others count as blocks that do not run.
    assert found == [markers[0], "", ""]


def test_the_setup_check_catches_what_ci_does_not_install():
    extras = {"test": ["a>=1", "b[x]>=2"], "one": ["a>=1"], "two": ["c"]}
    page = ROOT / "README.md"
    assert _setup_problem("pip install -e '.[one]'", page, [], extras) == ""
    assert "lacks ['c']" in _setup_problem("pip install 'wrdscore[two]'", page, [], extras)
    assert "no extra 'three'" in _setup_problem("pip install -e '.[three]'", page, [], extras)
    assert _setup_problem("pip install b", page, [], extras) == ""
    assert "not installed" in _setup_problem("pip install zzz", page, [], extras)
    assert _setup_problem("python -m pytest -q", page, ["python -m pytest -q"], extras) == ""
    assert _setup_problem("wrdscore frobnicate", page, [], extras) != ""


def test_the_output_check_fails_on_a_different_output():
    shown = ["a", "...", "c ... e", "f"]
    assert output_mismatch(shown, "a\nb\nc d e\nf\n") is None
    assert output_mismatch(shown, "a\nb\nc d e\nf\ng\n") is not None  # extra tail
    assert output_mismatch(shown, "x\na\nc d e\nf\n") is not None  # first line anchored
    assert output_mismatch(shown, "a\nc d e\nb\nf\n") is not None  # c and f adjacent
    assert output_mismatch(["...", "0.2686"], "f1 0.2686\n") is not None  # whole lines
    assert output_mismatch(["...", "f1 0.2686", "..."], "x\nf1 0.2686\ny\n") is None


def test_the_site_builds_with_strict_checks(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings"):  # pip install -e '.[docs]'
        require(module)
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
        timeout=HUNG,
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


def test_what_the_tour_writes_is_ignored_by_git():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    written = re.search(r"\(and writes\s+(.+?)\s+there", text, re.S)
    assert written is not None
    outputs = re.findall(r"`([\w-]+/)`", written[1])
    assert outputs == ["my-corpus/", "my-model/", "my-study/", "paper-report/"]
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert [o for o in outputs if f"/{o}" not in ignored] == []


def test_the_scoring_guide_s_prose_gives_the_scores_the_model_computes():
    # Prose numbers are not checked by the runnable blocks; these once lagged a model
    # change (issue 27: 0.56 / 0.31 / 0.18 / 0.13 for pairs scoring 0.63 / 0.37 / 0.20 / 0.12).
    from wrdscore import get_metric

    text = " ".join((ROOT / "docs" / "scoring.md").read_text(encoding="utf-8").split())
    refs = ["perform validation", "detect capital use", "update image", "process username", "size"]
    preds = ["validate url", "is all capitalized", "set artwork entry", "verify", "get count"]
    found = re.search(
        r"`perform validation` / `validate url` and `detect capital use` / `is all capitalized` "
        r"get a WRDScore F1 of ([\d.]+) and ([\d.]+), well above the ([\d.]+) .*? and `update "
        r"image` / `set artwork entry` somewhat above it \(([\d.]+)\), while `process "
        r"username` / `verify` \(([\d.]+)\) and `size` / `get count` \(([\d.]+)\) fall below "
        r"that baseline",
        text,
    )
    assert found is not None
    wrd = get_metric("wrd")
    f1 = wrd.score(refs, preds).f1
    baseline = get_metric("wrd", rescale=True).baseline["f1"]
    # What the sentence says of them.
    assert f1[0] > f1[1] > f1[2] > baseline > max(f1[3], f1[4])
    want = [f1[0], f1[1], baseline, f1[2], f1[3], f1[4]]
    assert [float(g) for g in found.groups()] == [round(float(v), 2) for v in want]
    # `wrdscore explain` on update image / set artwork entry: the P/R/F1 the prose repeats.
    found = re.search(r"P/R/F1 \(([\d.]+) / ([\d.]+) / ([\d.]+) here", text)
    assert found is not None
    res = wrd.score(["update image"], ["set artwork entry"])
    got = [res.precision[0], res.recall[0], res.f1[0]]
    assert [float(g) for g in found.groups()] == [round(float(v), 4) for v in got]


def test_the_studies_guide_counts_the_raters_its_study_has():
    text = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    # The study's own output, which the runnable block checks: "3 raters each".
    shown = re.search(r"(\d+) raters? each", text)
    prose = re.search(r"filled by (\w+) stand-in raters", " ".join(text.split()))
    assert shown is not None and prose is not None
    assert ["one", "two", "three", "four", "five"].index(prose[1]) + 1 == int(shown[1])
