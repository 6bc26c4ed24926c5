""".ci/run: the README's two commands as written, in a fresh venv on a clean clone, then
the development checks; every check must pass, and a test run that collects nothing fails.

The script is run with stand-ins for ``git``, ``python`` (and the venv's ``python``,
``pip`` and ``wrdscore``), ``chromium`` and ``apt-get`` on PATH, which log their
arguments and exit as told, so the test needs neither a network nor a second test run.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import skip_unless_ci

ROOT = Path(__file__).resolve().parents[1]
BASH = shutil.which("bash")
sys.path.insert(0, str(ROOT / ".ci"))
from readme_commands import readme_commands  # noqa: E402

#: The venv's programs: each logs "venv/NAME ARGS [CI=...]" and exits as told.
VENV_STUB = """#!{bash}
line="venv/$(basename "$0") $* [CI=${{CI:-unset}}]"
echo "$line" >> {log}
case "$1" in *.py) exec {python} "$@" ;; esac
case "$line" in
{cases}esac
exit 0
"""


def _stub(path: Path, body: str) -> None:
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run_ci(
    tmp_path: Path, exits: dict[str, int], chromium: bool = True, readme: str | None = None
) -> tuple[int, list[str]]:
    """Run a copy of .ci/run; ``exits`` maps a glob of a logged call to its exit code."""
    assert BASH is not None
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    shutil.copytree(ROOT / ".ci", repo / ".ci", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests" / "doc_examples.py", repo / "tests")
    (repo / "README.md").write_text(readme or (ROOT / "README.md").read_text(encoding="utf-8"))
    bin_dir, log, tmp = tmp_path / "bin", tmp_path / "log", tmp_path / "t"
    bin_dir.mkdir()
    tmp.mkdir()
    # Literal text quoted, so only "*" is a wildcard in the case patterns.
    globs = {'"' + '"*"'.join(p.split("*")) + '"': code for p, code in exits.items()}
    cases = "".join(f"  {glob}) exit {code} ;;\n" for glob, code in globs.items())
    venv = VENV_STUB.format(bash=BASH, log=log, python=sys.executable, cases=cases)
    stubs = {
        # A clone is a copy of the checkout.
        "git": f'echo "git $*" >> {log}\ncp -r "$3" "$4"\n',
        # The outer python only makes the venv, whose programs are stand-ins too.
        "python": (
            f'echo "python $*" >> {log}\n'
            'if [ "$2" = venv ]; then mkdir -p "$3/bin"\n'
            f'  for p in python pip wrdscore; do cp {bin_dir}/.venv-stub "$3/bin/$p"; done\n'
            "fi\n"
        ),
        # apt-get may only run when chromium is missing; here it always fails.
        "apt-get": f'echo "apt-get $*" >> {log}\nexit 100\n',
    }
    if chromium:
        stubs["chromium"] = "exit 0\n"
    for name, body in stubs.items():
        _stub(bin_dir / name, f"#!{BASH}\n{body}")
    _stub(bin_dir / ".venv-stub", venv)
    # Only the stand-ins and the few other tools .ci/run uses: a real chromium or python
    # elsewhere on PATH must not be found.
    for tool in ("dirname", "mktemp", "rm", "cp", "mkdir", "basename", "bash"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "TMPDIR": str(tmp)}
    done = subprocess.run(
        [BASH, str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, check=False
    )
    assert list(tmp.iterdir()) == [], "the clone and venv must be removed"
    calls = log.read_text().splitlines() if log.exists() else []
    work = re.escape(str(tmp)) + r"/tmp\.\w+"
    return done.returncode, [re.sub(work, "WORK", c) for c in calls]


pytestmark = skip_unless_ci(BASH is None or os.name != "posix", "needs bash")

CHECKS = [
    "venv/python -m ruff check wrdscore tests scripts benchmarks [CI=true]",
    "venv/python -m ruff format --check wrdscore tests scripts benchmarks [CI=true]",
    "venv/python -m mypy [CI=true]",
]


def test_the_readme_commands_then_the_checks_in_a_fresh_venv(tmp_path: Path) -> None:
    rc, calls = run_ci(tmp_path, {})
    assert rc == 0
    assert calls == [
        "git clone -q . WORK/wrdscore",
        "python -m venv WORK/venv",  # no --system-site-packages: nothing preinstalled
        "venv/python .ci/readme_commands.py WORK [CI=true]",
        "venv/pip install -e . [CI=true]",
        "venv/wrdscore score --refs examples/refs.txt --preds examples/preds.txt [CI=true]",
        "venv/pip install -e .[test] [CI=true]",
        "venv/python -m pytest -q [CI=true]",
        *CHECKS,
    ]


def test_the_commands_are_read_from_the_readme_not_copied(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    second = readme_commands()[1]
    changed = readme.replace(second, "pip install -e '.[test]' && python -m pytest -q -x\n")
    rc, calls = run_ci(tmp_path, {}, readme=changed)
    assert rc == 0
    assert calls[-4] == "venv/python -m pytest -q -x [CI=true]"


def test_the_readme_s_two_commands_are_found():
    first, second = readme_commands()
    assert first.startswith("pip install -e . && wrdscore score")
    assert second == "pip install -e '.[test]' && python -m pytest -q\n"


def test_a_readme_without_exactly_two_commands_fails_ci(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    third = "<!-- setup -->\n```bash\npip install -e '.[docs]'\n```\n\n## A 10-minute tour"
    rc, calls = run_ci(tmp_path, {}, readme=readme.replace("## A 10-minute tour", third, 1))
    assert rc != 0 and not any("pip" in c for c in calls)


@pytest.mark.parametrize(
    "pattern",
    ["venv/pip install -e . *", "venv/wrdscore *", "venv/pip install -e .[test]*",
     "venv/python -m pytest*", "venv/python -m ruff check*", "venv/python -m ruff format*",
     "venv/python -m mypy*"],
)  # fmt: skip
@pytest.mark.parametrize("code", [1, 5])
def test_any_failing_step_fails_ci(tmp_path: Path, pattern: str, code: int) -> None:
    # Exit 5 is pytest's "no tests collected": it must fail CI, not pass as it once did.
    rc, calls = run_ci(tmp_path, {pattern: code})
    assert rc == code
    assert re.fullmatch(pattern.replace("*", ".*").replace("[", r"\["), calls[-1])


def test_a_failed_chromium_install_fails_ci(tmp_path: Path) -> None:
    rc, calls = run_ci(tmp_path, {}, chromium=False)
    assert rc != 0
    assert calls[0].startswith("apt-get update") and not any("pytest" in c for c in calls)
