"""Run the examples of the README and docs/ that are marked runnable, and check what they print.

The convention: an HTML comment ``<!-- test -->`` on the line before a fenced block (it
does not show on GitHub or in the site). Two kinds of block are run:

- ``console``: lines starting with ``$ `` are shell commands, run one after another by
  bash; the lines after a command, up to the next command, are its output as shown. Each
  command must exit 0, and its output (stdout and stderr together, as a terminal shows
  them, 80 columns) must contain the shown lines in order. A shown line ``...`` stands for
  any number of lines, and ``...`` inside a line for any text (timings, hashes), so an
  output may be trimmed; lines not separated by ``...`` must follow each other.
- ``pycon``: a doctest session (``>>>`` lines and their output).

All blocks of one file run in one fresh folder, in order, so a tour can build on its earlier
steps; ``examples/`` of the repository is linked into it, and ``wrdscore`` runs this
checkout's code (``python -m wrdscore``), not another installed copy.

A block that installs or downloads (``pip install``, fetching a model from the hub) cannot
run inside the test suite; it is marked ``<!-- setup -->`` instead, and
``tests/test_docs.py`` checks what can be checked of it (the extras exist and CI installs
them, the other commands are ones CI or a runnable block runs). A block that records how
a published number was measured (a benchmark, a model build on data outside the
repository) is marked ``<!-- not run: REASON -->``, the reason saying why no test can run
it; the scripts it names must exist. Every other code block (``console``, ``pycon``,
``bash``, ``sh``, ``python``) must be runnable; synopses, formulas and file formats are
``text``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- test -->"
SETUP = "<!-- setup -->"
#: ``<!-- not run: REASON -->``: a record of how a number was measured, not runnable here.
NOT_RUN = re.compile(r"<!-- not run: (.*\S) -->")
#: Fenced languages that are code: each such block is runnable or setup.
CODE_LANGS = ("console", "pycon", "bash", "sh", "python")
ELLIPSIS = "..."
FENCE = re.compile(r"^(`{3,})(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """One runnable fenced block: its language, text and the line it starts on."""

    path: Path
    line: int
    lang: str
    text: str


@dataclass(frozen=True)
class Step:
    """One shell command of a console block and the output shown for it."""

    command: str
    shown: list[str]


def runnable_blocks(path: Path) -> list[Block]:
    """The blocks of ``path`` marked with :data:`MARKER`, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        opening = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if opening is None:
            raise ValueError(f"{path}:{i + 1}: {MARKER} must be followed by a fenced block")
        fence, lang = opening.groups()
        end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == fence)
        if lang not in ("console", "pycon"):
            raise ValueError(f"{path}:{i + 2}: runnable blocks are console or pycon, not {lang!r}")
        blocks.append(Block(path, i + 2, lang, "\n".join(lines[i + 2 : end]) + "\n"))
    return blocks


def _marker(line: str) -> str:
    line = line.strip()
    return line if line in (MARKER, SETUP) or NOT_RUN.fullmatch(line) else ""


def fenced_blocks(path: Path) -> list[tuple[str, Block]]:
    """Every fenced block of ``path`` with the marker line before it ("" if none)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence, lang = opening.groups()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence)
        marker = _marker(lines[i - 1]) if i else ""
        out.append((marker, Block(path, i + 1, lang, "\n".join(lines[i + 1 : end]) + "\n")))
        i = end + 1
    return out


def console_steps(text: str) -> list[Step]:
    """Split a console block into its commands and their shown output."""
    steps: list[Step] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append(Step(line[2:], []))
        elif not steps:
            raise ValueError(f"console block output before any command: {line!r}")
        else:
            steps[-1].shown.append(line)
    return steps


def _line_pattern(shown: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in shown.rstrip().split(ELLIPSIS)]
    return re.compile(".*".join(parts) + r"\Z")


def output_mismatch(shown: list[str], actual: str) -> str | None:
    """Why ``actual`` does not show ``shown`` (see the module docstring), or None if it does."""
    got = [line.rstrip() for line in actual.splitlines()]
    segments: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == ELLIPSIS:
            segments.append([])
        else:
            segments[-1].append(line)
    start = 0
    for k, segment in enumerate(segments):
        if not segment:
            continue
        patterns = [_line_pattern(line) for line in segment]
        # The first segment is anchored at the top unless the block starts with "...".
        anchored = k == 0
        candidates = [start] if anchored else range(start, len(got) - len(segment) + 1)
        for at in candidates:
            window = got[at : at + len(segment)]
            if len(window) == len(segment) and all(
                p.match(g) for p, g in zip(patterns, window, strict=True)
            ):
                start = at + len(segment)
                break
        else:
            return f"lines not found in order: {segment!r}"
    if segments[-1] and start != len(got):
        return f"unexpected lines after the shown output: {got[start:]!r}"
    return None


def _environment(workdir: Path) -> dict[str, str]:
    shims = workdir / ".bin"
    shims.mkdir(exist_ok=True)
    shim = shims / "wrdscore"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wrdscore "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env.update(
        PATH=f"{shims}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}".rstrip(os.pathsep),
        # What a user's 80-column terminal shows, stdout and stderr in the order written.
        COLUMNS="80",
        PYTHONUNBUFFERED="1",
        NO_COLOR="1",
        TERM="dumb",
    )
    return env


def run_file(path: Path, workdir: Path) -> None:
    """Run every runnable block of ``path`` in ``workdir``; AssertionError on the first failure."""
    (workdir / "examples").symlink_to(ROOT / "examples")
    env = _environment(workdir)
    for block in runnable_blocks(path):
        where = f"{path.relative_to(ROOT)}:{block.line}"
        if block.lang == "pycon":
            _run_pycon(block, where, workdir, env)
            continue
        for step in console_steps(block.text):
            done = subprocess.run(
                ["bash", "-c", step.command],
                cwd=workdir,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                # A hang's limit (conftest.HUNG; not imported: .ci/ reads this file before
                # the test extra is installed), far beyond a loaded machine's time.
                timeout=600,
            )
            assert done.returncode == 0, (
                f"{where}: `{step.command}` exited {done.returncode}:\n{done.stdout}"
            )
            why = output_mismatch(step.shown, done.stdout)
            assert why is None, f"{where}: `{step.command}`: {why}\nactual output:\n{done.stdout}"


def _run_pycon(block: Block, where: str, workdir: Path, env: dict[str, str]) -> None:
    # In a child process, so the session imports this checkout from the block's folder.
    script = (
        "import doctest, sys\n"
        "test = doctest.DocTestParser().get_doctest(sys.stdin.read(), {}, 'block', None, 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=block.text,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang's limit, as above
    )
    assert done.returncode == 0, f"{where}: the session failed:\n{done.stdout}{done.stderr}"
