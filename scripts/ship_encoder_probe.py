"""Measure the fusion probe of all-MiniLM-L6-v2 with the bundled default, and ship it.

Fused scoring (``score --encoder ENCODER -e MODEL``) divides the encoder's states by their
mean norm over the static model's 2,000 most frequent tokens, each encoded alone
(:class:`wrdscore.embeddings.encoders.ContextualVectors`). A run measures that once and
keeps it in the user's cache folder; this script measures it for the pair the README
shows and writes it to ``wrdscore/data/encoders/SHA.json``, so that a new user's first
fused run does not pay for it either. Re-run it whenever the bundled default changes;
``tests/test_encoders.py`` checks the shipped probe against a fresh measurement.

Usage::

    python scripts/ship_encoder_probe.py
"""

from __future__ import annotations

from wrdscore.embeddings import load_embeddings
from wrdscore.embeddings.encoders import ContextualVectors, Encoder, store_encoder_probe
from wrdscore.embeddings.encoders._baselines import SHIPPED

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def main() -> None:
    ctx = ContextualVectors(Encoder(MODEL, device="cpu"), load_embeddings(), fuse=True)
    block = ctx.measure_probe()
    path = store_encoder_probe(ctx.encoder.sha, ctx.probe_key, block, folder=SHIPPED)
    print(f"wrote {path}: {ctx.probe_key}, state norm {block['state_norm']!r}")


if __name__ == "__main__":
    main()
