"""A matrix stored as consecutive row blocks (memory-mapped files), read as one.

A MODEL_DIR's ``fast/`` vectors are written in blocks of at most :data:`BLOCK_BYTES`, so
no file of a model is large (the bundled default's 42 MB of vectors would otherwise be
one file over its repository's 30 MB limit per file). Each block stays memory-mapped:
looking up rows reads only those rows, as with one file. Rows are ordered by token
frequency, so most lookups hit the first block.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Most bytes one block file holds.
BLOCK_BYTES = 24 * 2**20


class RowBlocks:
    """Row blocks of one 2-D array, indexed as the whole array.

    Supports what the toolkit does with a model's vectors: ``shape``, ``dtype``,
    ``len``, indexing rows with an integer, an integer or boolean array or a slice, and
    ``np.asarray`` (the whole array, concatenated).

    Examples
    --------
    >>> m = RowBlocks([np.arange(6.0).reshape(3, 2), np.arange(6.0, 10.0).reshape(2, 2)])
    >>> m.shape, m[np.array([4, 0])].tolist(), m[2:4].tolist(), m[-1].tolist()
    ((5, 2), [[8.0, 9.0], [0.0, 1.0]], [[4.0, 5.0], [6.0, 7.0]], [8.0, 9.0])
    """

    def __init__(self, blocks: list[NDArray]) -> None:
        if not blocks or any(b.ndim != 2 or b.shape[1] != blocks[0].shape[1] for b in blocks):
            raise ValueError("row blocks must be 2-D arrays of one width")
        if any(b.dtype != blocks[0].dtype for b in blocks):
            raise ValueError("row blocks must share one dtype")
        self._blocks = blocks
        self._ends = np.cumsum([len(b) for b in blocks])
        self.shape = (int(self._ends[-1]), int(blocks[0].shape[1]))
        self.dtype = blocks[0].dtype
        self.ndim = 2

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows: Any) -> NDArray:
        # A slice or an integer, as on the whole array (the encoders' probe takes
        # ``vectors[:2000]``); negative positions count from the end.
        if isinstance(rows, slice):
            rows = np.arange(*rows.indices(len(self)))
        idx = np.asarray(rows)
        if idx.dtype == np.bool_:
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64, copy=False)
        idx = np.where(idx < 0, idx + len(self), idx)
        out = np.empty((*idx.shape, self.shape[1]), dtype=self.dtype)
        which = np.searchsorted(self._ends, idx, side="right")
        start = 0
        for k, block in enumerate(self._blocks):
            hit = which == k
            if hit.any():
                out[hit] = block[idx[hit] - start]
            start = int(self._ends[k])
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray:
        whole = np.concatenate(self._blocks)
        return whole if dtype is None else whole.astype(dtype, copy=False)


def write_blocks(array: NDArray, folder: Path, stem: str) -> list[int]:
    """Save ``array`` as ``STEM.npy``, or, over :data:`BLOCK_BYTES`, as ``STEM.K.npy``
    row blocks; the rows of each block (one entry: a single file)."""
    per = max(1, BLOCK_BYTES // max(1, array.shape[1] * array.itemsize))
    if len(array) <= per:
        np.save(folder / f"{stem}.npy", array)
        return [len(array)]
    sizes = []
    for k, start in enumerate(range(0, len(array), per)):
        block = array[start : start + per]
        np.save(folder / f"{stem}.{k}.npy", block)
        sizes.append(len(block))
    return sizes


def read_blocks(folder: Path, stem: str, sizes: list[int] | None) -> NDArray | RowBlocks:
    """What :func:`write_blocks` wrote, memory-mapped (``sizes`` None or one entry: the
    single file)."""
    if sizes is None or len(sizes) == 1:
        return np.load(folder / f"{stem}.npy", mmap_mode="r")
    blocks = [np.load(folder / f"{stem}.{k}.npy", mmap_mode="r") for k in range(len(sizes))]
    if [len(b) for b in blocks] != list(sizes):
        raise ValueError(f"{stem} blocks disagree with the recorded sizes")
    return RowBlocks(blocks)
