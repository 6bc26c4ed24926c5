"""``python -m wrdscore``: the same command line as ``wrdscore``."""

from wrdscore.cli import app

app(prog_name="wrdscore")
