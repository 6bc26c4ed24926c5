"""The seed check shared by training and specialisation (both draw from numpy and gensim)."""

from __future__ import annotations

from wrdscore.errors import WrdscoreError

#: The largest seed numpy's and gensim's generators accept (``2**32 - 1``).
MAX_SEED = 2**32 - 1


def check_seed(seed: int) -> None:
    """Refuse a seed outside ``0 .. 2**32 - 1`` with a :class:`WrdscoreError`.

    numpy's and gensim's generators raise a ``ValueError`` for those.

    Examples
    --------
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: --seed must be a whole number from 0 to 4294967295, not -1
    """
    if not 0 <= seed <= MAX_SEED:
        raise WrdscoreError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
