"""The helper scripts under scripts/: bad arguments give one line, not a traceback or a run."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_build_default_model_refuses_unknown_arguments():
    # Its last stage overwrites the bundled model: a typo or --help must stop it at once.
    for args in (["--bogus"], ["--download_only"], ["--help"], ["--download-only", "x"]):
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "build_default_model.sh"), *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
        assert done.returncode == 2, args
        assert done.stdout == ""
        assert done.stderr == "usage: scripts/build_default_model.sh [--download-only]\n"
