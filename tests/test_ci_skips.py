"""Under CI=true a missing optional dependency fails its tests; elsewhere it skips them.

Issue 27: about 110 tests skipped silently when an import broke, CI included. The rule is
:func:`conftest.require` and :func:`conftest.skip_unless_ci`; here a generated test file
that needs a module which does not exist (and a tool that is not there) runs in a child
pytest, with and without CI. A guard reads every test file's syntax tree for any other
way to skip on a missing dependency (issue 35: a regex missed ``skipif(find_spec(...))``)
and for a reading of ``CI`` outside :data:`conftest.IN_CI` (two tests accepted only
``true``).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HUNG

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
        timeout=HUNG,
    )


@pytest.mark.parametrize("source", [NEEDS_MISSING, AT_THE_TOP], ids=["in-tests", "module"])
def test_a_missing_dependency_skips_outside_ci(tmp_path, source):
    done = _child_pytest(tmp_path, source, ci=None)
    # 5: a file skipped whole leaves no test that ran (pytest's "no tests collected").
    assert done.returncode == (0 if source is NEEDS_MISSING else 5), done.stdout + done.stderr
    assert "failed" not in done.stdout and "error" not in done.stdout
    assert re.search(r"\b(1|2) skipped\b", done.stdout), done.stdout


@pytest.mark.parametrize(
    ("source", "ci"),
    [(NEEDS_MISSING, "true"), (AT_THE_TOP, "true"), (NEEDS_MISSING, "1"), (NEEDS_MISSING, "Yes")],
    ids=["in-tests", "module", "CI=1", "CI=Yes"],
)
def test_a_missing_dependency_fails_under_ci(tmp_path, source, ci):
    # conftest.IN_CI is the one reading of CI: what CI services set (true, 1, yes) counts.
    done = _child_pytest(tmp_path, source, ci=ci)
    assert done.returncode == 1 + (source is AT_THE_TOP), done.stdout + done.stderr
    assert "skipped" not in done.stdout
    assert "CI=true, and wrdscore_no_such_module cannot be imported" in done.stdout
    if source is NEEDS_MISSING:
        assert "2 failed" in done.stdout and "the tool is missing" in done.stdout


#: Exceptions that say a package is missing.
MISSING = {"ImportError", "ModuleNotFoundError", "PackageNotFoundError"}


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute name in ``node``."""
    return {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Name | ast.Attribute)
    }


def _reads_ci(node: ast.AST) -> bool:
    # os.environ.get("CI"), os.getenv("CI"), os.environ["CI"], "CI" in os.environ.
    if isinstance(node, ast.Call) and _names(node.func) & {"get", "getenv"}:
        key = node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        key = node.slice
    elif isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
        key, node = node.left, node.comparators[0]
    else:
        return False
    where = node.func if isinstance(node, ast.Call) else node
    return (
        isinstance(key, ast.Constant)
        and key.value == "CI"
        and bool(_names(where) & {"environ", "getenv"})
    )


def own_dependency_checks(source: str) -> list[str]:
    """Each place in a test file's ``source`` that decides by itself what is missing.

    A test may skip for want of a package or tool only through conftest (``require``,
    ``skip_unless_ci``), which fails instead under CI, and only conftest reads ``CI``:
    ``importorskip``, ``find_spec``, an ``except ImportError`` (or ``ModuleNotFoundError``,
    ``PackageNotFoundError``), a skip that asks ``shutil.which``, and a read of ``CI`` are
    each reported with their line.
    """
    found = []
    tree = ast.parse(source)
    # Names bound to what `which` found (CHROMIUM = shutil.which("chromium")).
    tools = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and "which" in _names(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in ("importorskip", "find_spec"):
                found.append(f"{node.lineno}: {name}")
        if isinstance(node, ast.ExceptHandler) and node.type and _names(node.type) & MISSING:
            found.append(f"{node.lineno}: except {ast.unparse(node.type)}")
        # skipif(which(...) is None, ...) and `if which(...) is None: pytest.skip(...)`.
        condition = None
        if isinstance(node, ast.Call) and _names(node.func) & {"skipif"} and node.args:
            condition = node.args[0]
        elif isinstance(node, ast.If) and any(
            isinstance(n, ast.Call) and _names(n.func) & {"skip"}
            for statement in node.body
            for n in ast.walk(statement)
        ):
            condition = node.test
        if condition is not None and _names(condition) & {"which", *tools}:
            found.append(f"{condition.lineno}: a skip on {ast.unparse(condition)}")
        if _reads_ci(node):
            found.append(f"{getattr(node, 'lineno', 0)}: reads CI ({ast.unparse(node)})")
    return sorted(set(found), key=lambda line: int(line.split(":")[0]))


@pytest.mark.parametrize(
    "source",
    [
        "pytest.importorskip('x')",
        "import importlib.util\n@pytest.mark.skipif(importlib.util.find_spec('x') is None, "
        "reason='no x')\ndef test(): pass",
        "from importlib.util import find_spec\nHAVE = find_spec('x') is not None",
        "try:\n    import x\nexcept ImportError:\n    x = None",
        "try:\n    import x\nexcept (OSError, ModuleNotFoundError):\n    pytest.skip('no x')",
        "try:\n    v = version('x')\nexcept PackageNotFoundError:\n    v = None",
        "needs = pytest.mark.skipif(shutil.which('java') is None, reason='no java')",
        "def test():\n    if not shutil.which('java'):\n        pytest.skip('no java')",
        "BASH = shutil.which('bash')\npytestmark = pytest.mark.skipif(BASH is None, reason='')",
        "IN_CI = os.environ.get('CI') == 'true'",
        "IN_CI = os.getenv('CI', '') in ('1', 'true')",
        "def test():\n    if os.environ['CI']:\n        pass",
        "IN_CI = 'CI' in os.environ",
    ],
)
def test_the_guard_finds_every_way_to_skip_on_a_missing_dependency(source):
    assert len(own_dependency_checks(source)) == 1, source


def test_the_guard_lets_conftest_s_helpers_and_other_skips_pass():
    source = (
        "from conftest import require, skip_unless_ci\n"
        "torch = require('torch')\n"
        "JAVA = shutil.which('java')\n"
        "needs_java = skip_unless_ci(JAVA is None, 'no java')\n"
        "def test(tmp_path):\n"
        "    if torch.cuda.is_available():\n"
        "        pytest.skip('this machine has CUDA')\n"
        "    env = {k: v for k, v in os.environ.items() if k != 'CI'}\n"
        "    env['CI'] = 'true'\n"
        "    try:\n"
        "        int('x')\n"
        "    except ValueError:\n"
        "        pass\n"
    )
    assert own_dependency_checks(source) == []


def test_no_test_file_skips_on_a_missing_dependency_or_reads_ci_by_itself():
    # Every optional import goes through conftest.require and every missing tool through
    # skip_unless_ci, which fail under CI; conftest.IN_CI is the one reading of CI.
    found = {
        path.name: checks
        for path in sorted(TESTS.glob("*.py"))
        if path.name != "conftest.py"
        and (checks := own_dependency_checks(path.read_text(encoding="utf-8")))
    }
    # This file's own examples are strings, not code, so it is checked like the others.
    assert found == {}


def test_nothing_else_reads_ci():
    # The package, the CI script's helpers, scripts and benchmarks never ask whether CI runs.
    root = TESTS.parent
    found = {
        str(path.relative_to(root)): reads
        for folder in ("wrdscore", ".ci", "scripts", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if (reads := [c for c in own_dependency_checks(path.read_text()) if "reads CI" in c])
    }
    assert found == {}
