"""An encoder on CUDA beside the same machine's CPU: distillation's encoding steps and
encoder scoring, with how far the two devices' numbers are apart.

Timed in one process, in this order: every token of a model's vocabulary encoded alone
(what ``wrdscore distill`` does for each token) and every splittable word piece (its
``--pieces``), on CUDA at the default batch size (64) and at ``--gpu-batch-size``, then on
the CPU for the first ``--cpu-tokens`` tokens and ``--cpu-pieces`` pieces (scale them up to
compare); then ``wrd`` and ``bertscore`` with ``--encoder`` alone (no fusion) on name
pairs, ``--pairs`` on CUDA and a tenth of them on the CPU. Agreement: the largest
difference of the token states and of the per-pair P/R/F1 between the devices, on what
both computed. Needs a machine with CUDA.

Usage::

    python benchmarks/encoders_device.py --encoder sentence-transformers/all-MiniLM-L6-v2 \\
        --vocab wrdscore/data/default --refs R --preds P
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.embeddings.encoders import Encoder
from wrdscore.embeddings.encoders._distill import (
    piece_rules,
    piece_states,
    splittable_pieces,
    token_states,
)
from wrdscore.metrics import get_metric


def timed(label: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, its wall time printed (CUDA synchronised before and after)."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    out = fn(*args)
    torch.cuda.synchronize()
    print(f"{label}: {time.perf_counter() - start:.2f} s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="sentence-transformers/all-MiniLM-L6-v2")
    parser.add_argument("--vocab", type=Path, default=Path("wrdscore/data/default"))
    parser.add_argument("--refs", type=Path, required=True)
    parser.add_argument("--preds", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--gpu-batch-size", type=int, default=1024)
    parser.add_argument("--cpu-tokens", type=int, default=8000)
    parser.add_argument("--cpu-pieces", type=int, default=4000)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("error: this benchmark needs CUDA")
    vocab = json.loads((args.vocab / "fast" / "vocab.json").read_text())["tokens"]
    print(
        f"{len(vocab)} tokens; {torch.get_num_threads()} CPU threads; "
        f"{torch.cuda.get_device_name(0)}; torch {torch.__version__}",
        flush=True,
    )
    states = {}
    runs = [
        ("cuda", 64, len(vocab), None),
        ("cuda", args.gpu_batch_size, len(vocab), None),
        ("cpu", 64, args.cpu_tokens, args.cpu_pieces),
    ]
    for device, batch, n_tokens, n_pieces in runs:
        enc = Encoder(args.encoder, device=device, batch_size=batch)
        token_states(enc, vocab[:256])  # warm-up: kernels, allocator, thread pool
        states[device, batch] = timed(
            f"{device} batch {batch}: {n_tokens} tokens",
            token_states,
            enc,
            vocab[:n_tokens],
        )
        rules = piece_rules(enc)
        assert rules is not None
        pieces = splittable_pieces(enc, rules)[:n_pieces]
        timed(
            f"{device} batch {batch}: {len(pieces)} pieces",
            piece_states,
            enc,
            rules,
            pieces,
        )
    cpu = states["cpu", 64]
    gpu = states["cuda", 64][: len(cpu)]
    cos = (cpu * gpu).sum(1) / np.linalg.norm(cpu, axis=1) / np.linalg.norm(gpu, axis=1)
    print(
        f"token states, CUDA vs CPU: max |diff| {np.abs(cpu - gpu).max():.1e}, "
        f"min cosine {cos.min():.8f}"
    )
    refs = args.refs.read_text().splitlines()[: args.pairs]
    preds = args.preds.read_text().splitlines()[: args.pairs]
    # The encoder alone: a stub static model, not fused, so nothing else is loaded.
    stub = TokenEmbeddings.from_vectors({"x": [1.0]})
    for name in ("wrd", "bertscore"):
        out = {}
        for device, n in (("cuda", len(refs)), ("cpu", len(refs) // 10)):
            m = get_metric(name, embeddings=stub, fuse=False, encoder=args.encoder, device=device)
            m.score(refs[:100], preds[:100])
            r = timed(f"{name} --encoder on {device}: {n} pairs", m.score, refs[:n], preds[:n])
            out[device] = np.stack([r.precision, r.recall, r.f1])[:, : len(refs) // 10]
        print(
            f"{name} per-pair P/R/F1, CUDA vs CPU: max |diff| "
            f"{np.abs(out['cuda'] - out['cpu']).max():.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
