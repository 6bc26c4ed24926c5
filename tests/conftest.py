"""Test-wide settings."""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

# CI gates landing, so its property tests must not depend on luck: under CI=true every
# run draws the same examples (derandomize), and nothing is read from or written to a
# local example database. Locally, examples stay random so new edge cases keep turning up.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Fused encoder scoring keeps what it measures (the probe) in the user's cache folder:
# tests keep theirs in a folder of their own, never in the home of whoever runs them.
os.environ["WRDSCORE_CACHE"] = tempfile.mkdtemp(prefix="wrdscore-test-cache-")
atexit.register(shutil.rmtree, os.environ["WRDSCORE_CACHE"], True)
