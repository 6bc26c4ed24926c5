"""Test-wide settings."""

import os

from hypothesis import settings

# CI gates landing, so its property tests must not depend on luck: under CI=true every
# run draws the same examples (derandomize), and nothing is read from or written to a
# local example database. Locally, examples stay random so new edge cases keep turning up.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
