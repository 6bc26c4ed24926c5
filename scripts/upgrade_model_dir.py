"""Add the fast-loading arrays (``fast/``) to MODEL_DIRs written without them.

``wrdscore train`` writes them itself; this rewrites older MODEL_DIRs, the bundled
default included, through the same code (``save_embeddings``), so nothing is made by
hand. The gensim vectors, model.json and doc_freq.json keep their content.

Usage::

    python scripts/upgrade_model_dir.py wrdscore/data/default [MODEL_DIR ...]
"""

from __future__ import annotations

import argparse
import sys

from wrdscore.embeddings import load_embeddings, upgrade_model_dir
from wrdscore.errors import WrdscoreError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dirs", nargs="+", help="MODEL_DIRs to upgrade in place.")
    args = parser.parse_args()
    try:
        upgrade(args.model_dirs)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def upgrade(model_dirs: list[str]) -> None:
    """Upgrade each MODEL_DIR in turn, checking that its vectors' hash is unchanged."""
    for folder in model_dirs:
        before = load_embeddings(folder).sha
        after = load_embeddings(upgrade_model_dir(folder)).sha
        if after != before:
            raise SystemExit(f"{folder}: the vectors changed ({before} -> {after})")
        print(f"{folder}: fast arrays written, sha {after} unchanged")


if __name__ == "__main__":
    main()
