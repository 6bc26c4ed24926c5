""".ci/run: every check must pass, and a test run that collects nothing fails.

The script is run with stand-ins for ``python`` and ``chromium`` on PATH, which log
their arguments and exit as told, so the test needs neither a network nor a second
test run.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASH = shutil.which("bash")


def run_ci(tmp_path: Path, exits: dict[str, int], chromium: bool = True) -> tuple[int, list[str]]:
    """Run a copy of .ci/run; ``exits`` maps a python module (``pytest``) to its exit code."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    cases = "".join(f'  "{module}") exit {code} ;;\n' for module, code in exits.items())
    stubs = {
        "python": f'echo "python $*" >> {log}\ncase "$2" in\n{cases}esac\nexit 0\n',
        # apt-get may only run when chromium is missing; here it always fails.
        "apt-get": f'echo "apt-get $*" >> {log}\nexit 100\n',
    }
    if chromium:
        stubs["chromium"] = "exit 0\n"
    for name, body in stubs.items():
        path = bin_dir / name
        path.write_text(f"#!{BASH}\n{body}")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    # Only the stand-ins and the one other tool .ci/run uses: a real chromium or python
    # elsewhere on PATH must not be found.
    dirname = shutil.which("dirname")
    assert dirname is not None
    (bin_dir / "dirname").symlink_to(dirname)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    done = subprocess.run(
        [BASH, str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, check=False
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, calls


pytestmark = pytest.mark.skipif(BASH is None or os.name != "posix", reason="needs bash")


def test_all_checks_run_and_pass(tmp_path: Path) -> None:
    rc, calls = run_ci(tmp_path, {})
    assert rc == 0
    assert calls == [
        "python -c import torch",
        "python -m pip install -q -e .[test]",
        "python -m pytest -q",
        "python -m ruff check wrdscore tests scripts benchmarks",
        "python -m ruff format --check wrdscore tests scripts benchmarks",
        "python -m mypy",
    ]


def test_torch_missing_gets_the_cpu_build_first(tmp_path: Path) -> None:
    # Left to the test extra, pip would take a CUDA build of several GB.
    rc, calls = run_ci(tmp_path, {"import torch": 1})
    assert rc == 0
    assert calls[:3] == [
        "python -c import torch",
        "python -m pip install -q torch==2.13.0",
        "python -m pip install -q -e .[test]",
    ]


@pytest.mark.parametrize("module", ["pytest", "ruff", "mypy", "pip"])
@pytest.mark.parametrize("code", [1, 5])
def test_any_failing_step_fails_ci(tmp_path: Path, module: str, code: int) -> None:
    # Exit 5 is pytest's "no tests collected": it must fail CI, not pass as it once did.
    rc, calls = run_ci(tmp_path, {module: code})
    assert rc == code
    assert calls[-1].startswith(f"python -m {module}")


def test_a_failed_chromium_install_fails_ci(tmp_path: Path) -> None:
    rc, calls = run_ci(tmp_path, {}, chromium=False)
    assert rc != 0
    assert calls[0].startswith("apt-get update") and not any("pytest" in c for c in calls)
