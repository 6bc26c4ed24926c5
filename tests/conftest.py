"""Test-wide settings, and the one rule for what a test may skip.

Under ``CI=true`` (``.ci/run`` sets it) every optional package and tool the test extra and
the documented prerequisites provide must be there: a test that needs one that is missing
fails instead of skipping, so an import that breaks cannot hide as a skip. Outside CI, a
missing optional dependency skips its tests, with the reason. Test files import
:func:`require` and :func:`skip_unless_ci` from here, never ``pytest.importorskip``.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import tempfile
from types import ModuleType

import pytest
from hypothesis import settings

#: CI gates landing: nothing may be skipped for want of a dependency, nothing left to luck.
#: The one reading of ``CI`` in the project (tests/test_ci_skips.py checks that no other file
#: reads it): ``1``, ``true`` or ``yes`` in any case, as CI services set it.
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Under CI every run draws the same property-test examples (derandomize), and nothing is
# read from or written to a local example database. Locally, examples stay random so new
# edge cases keep turning up.
settings.register_profile("ci", derandomize=True, database=None)
if IN_CI:
    settings.load_profile("ci")


#: Seconds after which a child process or a wait in a test counts as hung. A limit for
#: hangs only, never a measure of speed: a test waits for an event (a process exits, a file
#: appears), and a loaded machine may make that slow but must not fail it.
HUNG = 600


def require(module: str) -> ModuleType:
    """``module`` imported; if it cannot be, skip the caller, or fail it under CI.

    At the top of a test file, the whole file; inside a test, that test.
    """
    if not IN_CI:
        return pytest.importorskip(module)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(
            f"CI=true, and {module} cannot be imported ({exc}): "
            "install the test extra (pip install -e '.[test]')",
            pytrace=False,
        )


def skip_unless_ci(condition: bool, reason: str) -> pytest.MarkDecorator:
    """Skip where ``condition`` holds (a missing tool), except under CI, where the test runs.

    There it then fails on the missing tool, as it must: CI provides every prerequisite.
    """
    return pytest.mark.skipif(condition and not IN_CI, reason=f"{reason}; CI=true fails instead")


# Fused encoder scoring keeps what it measures (the probe) in the user's cache folder:
# tests keep theirs in a folder of their own, never in the home of whoever runs them.
os.environ["WRDSCORE_CACHE"] = tempfile.mkdtemp(prefix="wrdscore-test-cache-")
atexit.register(shutil.rmtree, os.environ["WRDSCORE_CACHE"], True)
