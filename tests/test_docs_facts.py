"""Facts the README, the guides and the model card state, checked against the code and data.

The runnable blocks (tests/test_docs.py) check what a command prints; these check prose:
a signature, a list of pages, a byte count, what a message tells an installed user to run.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# Site pages the docs hook makes from files outside docs/, and what the README links instead.
GENERATED = {
    "index.md": "README.md",
    "model-card.md": "wrdscore/data/MODEL_CARD.md",
    "benchmarks.md": "benchmarks/README.md",
}


def _nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") : text.index("\nhooks:")]
    return re.findall(r"^\s*- [^:\n]+: (\S+\.md)$", nav, re.M)


def test_the_readme_lists_every_guide_of_the_site():
    pages = _nav_pages()
    assert "code.md" in pages and "scoring.md" in pages  # the nav was read
    docs = README[README.index("## Documentation") :]
    docs = docs[: docs.index("\nLicence")]
    for page in pages:
        if page == "index.md":
            continue  # the README is the home page
        if "/" in page:  # reference pages generated from the docstrings: one is linked
            assert f"](docs/{page.split('/')[0]}/" in docs, page
        else:
            assert f"]({GENERATED.get(page, 'docs/' + page)})" in docs, page


def test_the_score_signature_in_the_scoring_guide_is_the_real_one():
    from wrdscore.metrics import Metric

    text = " ".join((ROOT / "docs" / "scoring.md").read_text(encoding="utf-8").split())
    found = re.search(r"Every metric's `score\(([^`]*)\)`", text)
    assert found is not None
    shown = [p.strip() for p in found.group(1).split(",")]
    params = list(inspect.signature(Metric.score).parameters.values())[1:]  # no self
    real = [
        p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
        for p in params
    ]
    # The guide writes the keyword-only marker as Python does.
    keyword = next(i for i, p in enumerate(params) if p.kind is inspect.Parameter.KEYWORD_ONLY)
    real.insert(keyword, "*")
    assert shown == real


@pytest.fixture(scope="module")
def paper_analysis(tmp_path_factory):
    from wrdscore.human_eval import analyze_study

    # As the README's step 7: the paper's pairs, no segmentation, the default 100 resamples.
    analysis = analyze_study(
        tmp_path_factory.mktemp("paper") / "report",
        pairs=["wrdscore-paper"],
        metrics=["rouge1", "wrd"],
        baseline="rouge1",
        segment=False,
    )
    return {m.metric.label: m.errors for m in analysis.metrics}


def test_the_readme_says_its_table_is_all_pairs_and_the_command_prints_bootstrap_means(
    paper_analysis,
):
    text = " ".join(README.split())
    for label, row in (("ROUGE-1 F", "ROUGE-1 F"), ("WRDScore F1", "WRDScore F1, bundled")):
        found = re.search(re.escape(row) + r"[^|]* \| [.\d]+ \| ([.\d]+) \| ([.\d]+) \|", README)
        assert found is not None, row
        errors = paper_analysis[label]
        # The table: every pair at once.
        assert [float(v) for v in found.groups()] == [
            round(errors["mse"].point, 4),
            round(errors["mae"].point, 4),
        ]
    note = re.search(
        r"mean of 100 bootstrap resamples \(seed 0\) .*? ROUGE-1 (\.\d+) / (\.\d+) against "
        r"(\.\d+) / (\.\d+) here, WRDScore (\.\d+) / (\.\d+) against (\.\d+) / (\.\d+)",
        text,
    )
    assert note is not None
    got = [float(v) for v in note.groups()]
    want = [
        round(getattr(paper_analysis[label][error], kind), 4)
        for label in ("ROUGE-1 F", "WRDScore F1")
        for kind in ("mean", "point")
        for error in ("mse", "mae")
    ]
    assert got == want


def test_the_model_card_gives_the_bundled_model_s_size():
    card = (ROOT / "wrdscore" / "data" / "MODEL_CARD.md").read_text(encoding="utf-8")
    found = re.search(r"([\d.]+) MB \(([\d,]+) bytes", card)
    assert found is not None
    files = [p for p in (ROOT / "wrdscore" / "data" / "default").rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    assert int(found.group(2).replace(",", "")) == size
    assert float(found.group(1)) == round(size / 1e6, 1)
    # And the whole of wrdscore/data, which the wheel ships, within the card's budget.
    data = [p for p in (ROOT / "wrdscore" / "data").rglob("*") if p.is_file()]
    assert "within the 80 MB budget" in card
    assert sum(p.stat().st_size for p in data if "__pycache__" not in p.parts) < 80e6


def _raised_texts(tree: ast.AST) -> list[str]:
    """The string parts of every ``raise``: the messages a user reads."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            out += [
                c.value
                for c in ast.walk(node.exc)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
    return out


def test_no_message_sends_an_installed_user_to_a_script_the_package_lacks():
    # scripts/ is not in the wheel: an error must name a command or function instead.
    shipped = ROOT / "wrdscore"
    bad = [
        f"{path.relative_to(ROOT)}: {text!r}"
        for path in shipped.rglob("*.py")
        for text in _raised_texts(ast.parse(path.read_text(encoding="utf-8")))
        if "scripts/" in text
    ]
    assert bad == []
