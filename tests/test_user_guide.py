"""The README and the guides are a user's guide: no internal issue numbers, no paths of the
machine that measured, one figure per claim, and the same reason in the help and the README.

A user cannot see the issue tracker, so the guides link the history's sections instead
(docs/history.md keeps the issue numbers, where they belong).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wrdscore.cli._common import NO_SEGMENT_OPTION

ROOT = Path(__file__).resolve().parents[1]
GUIDES = sorted(
    [
        ROOT / "README.md",
        ROOT / "examples" / "README.md",
        ROOT / "benchmarks" / "README.md",
        ROOT / "wrdscore" / "data" / "MODEL_CARD.md",
        *(p for p in (ROOT / "docs").glob("*.md") if p.name != "history.md"),
    ]
)


def _visible(path: Path) -> str:
    """The text a reader sees: link targets (history anchors name issues) left out."""
    return re.sub(r"\]\([^)]*\)", "]", path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", GUIDES, ids=[str(p.relative_to(ROOT)) for p in GUIDES])
def test_no_issue_numbers_and_no_machine_paths(page):
    text = _visible(page)
    assert not re.findall(r"(?i)\bissues?\s+\d+|issue-\d+", text)
    assert "/work/" not in text


def test_the_code_gaming_figures_are_given_once_in_the_code_guide():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # The README links to the guide's section on agreement and attacks, which links on.
    assert "docs/code.md#does-code-support-agree-with-people" in readme
    # The README once said 81/91/93% and the code guide 78/90/94% for the same claim.
    for figure in ("78%", "81%", "90%", "91%", "93%", "94%"):
        assert figure not in readme
    guide = (ROOT / "docs" / "code.md").read_text(encoding="utf-8")
    assert "in 94% of methods" in guide and "93% and 81%" in guide


def test_segmentation_s_help_and_readme_give_the_same_reason():
    # They once gave two different reasons for the default; one reason, said alike.
    help_text = " ".join(NO_SEGMENT_OPTION.help.split())
    reason = re.search(r"(so a name as LLMs write it scores as its camelCase form)", help_text)
    assert reason is not None
    for page in ("README.md", "docs/scoring.md"):
        text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
        assert reason[1] in text, page
