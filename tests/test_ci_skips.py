"""Under CI=true a missing optional dependency fails its tests; elsewhere it skips them.

Issue 27: about 110 tests skipped silently when an import broke, CI included. The rule is
:func:`conftest.require` and :func:`conftest.skip_unless_ci`; here a generated test file
that needs a module which does not exist (and a tool that is not there) runs in a child
pytest, with and without CI=true.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

NEEDS_MISSING = """
from conftest import require, skip_unless_ci

def test_inside():
    require("wrdscore_no_such_module")

@skip_unless_ci(True, "no such tool")
def test_tool():
    raise AssertionError("the tool is missing")
"""

AT_THE_TOP = """
from conftest import require

require("wrdscore_no_such_module")

def test_needs_it():
    pass
"""


def _child_pytest(tmp_path: Path, source: str, ci: str | None) -> subprocess.CompletedProcess[str]:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_generated.py").write_text(source)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("source", [NEEDS_MISSING, AT_THE_TOP], ids=["in-tests", "module"])
def test_a_missing_dependency_skips_outside_ci(tmp_path, source):
    done = _child_pytest(tmp_path, source, ci=None)
    # 5: a file skipped whole leaves no test that ran (pytest's "no tests collected").
    assert done.returncode == (0 if source is NEEDS_MISSING else 5), done.stdout + done.stderr
    assert "failed" not in done.stdout and "error" not in done.stdout
    assert re.search(r"\b(1|2) skipped\b", done.stdout), done.stdout


@pytest.mark.parametrize("source", [NEEDS_MISSING, AT_THE_TOP], ids=["in-tests", "module"])
def test_a_missing_dependency_fails_under_ci(tmp_path, source):
    done = _child_pytest(tmp_path, source, ci="true")
    assert done.returncode == 1 + (source is AT_THE_TOP), done.stdout + done.stderr
    assert "skipped" not in done.stdout
    assert "CI=true, and wrdscore_no_such_module cannot be imported" in done.stdout
    if source is NEEDS_MISSING:
        assert "2 failed" in done.stdout and "the tool is missing" in done.stdout


def test_no_test_file_skips_on_a_missing_import_by_itself():
    # Every optional import goes through conftest.require, which fails under CI.
    bare = [
        path.name
        for path in sorted(TESTS.glob("*.py"))
        if path.name not in ("conftest.py", Path(__file__).name)
        and re.search(r"importorskip|except (ModuleNotFound|Import)Error", path.read_text())
    ]
    assert bare == []
