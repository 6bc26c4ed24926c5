"""The README's two commands, read from its "Two commands" section, for .ci/run to run.

They are the ``<!-- setup -->`` bash blocks of that section, exactly as a reader sees
them, so CI cannot drift from what the README tells a user to type. With a folder, each
is written there as ``readme-1.sh`` and ``readme-2.sh``; without one, they are printed.

    python .ci/readme_commands.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The fenced-block parser the docs tests use (tests/doc_examples.py): one reading of
# the README's markers for both.
sys.path.insert(0, str(ROOT / "tests"))
from doc_examples import SETUP, fenced_blocks  # noqa: E402

SECTION = "## Two commands"


def readme_commands(readme: Path = ROOT / "README.md") -> list[str]:
    """The setup bash blocks of the README's "Two commands" section, in order (two of them)."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    if SECTION not in lines:
        raise SystemExit(f"{readme}: no {SECTION!r} section")
    start = lines.index(SECTION) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    commands = [
        block.text
        for marker, block in fenced_blocks(readme)
        if start < block.line <= end and marker == SETUP and block.lang == "bash"
    ]
    if len(commands) != 2:
        raise SystemExit(f"{readme}: {SECTION!r} has {len(commands)} setup bash blocks, not 2")
    return commands


if __name__ == "__main__":
    found = readme_commands()
    if len(sys.argv) > 1:
        for i, text in enumerate(found, 1):
            (Path(sys.argv[1]) / f"readme-{i}.sh").write_text(text, encoding="utf-8")
    else:
        print("\n".join(found), end="")
