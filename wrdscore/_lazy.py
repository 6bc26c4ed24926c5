"""Names a package exports but imports only on first use (PEP 562 module ``__getattr__``).

Scoring must not pay for gensim, scikit-learn, tree-sitter or POT when it does not use
them, so the packages re-export their heavy names through this instead of importing them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_getattr(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that imports ``package.names[name]`` when ``name`` is asked for.

    Examples
    --------
    >>> getter = lazy_getattr("wrdscore", {"split_identifier": "corpora._tokenize"})
    >>> getter("split_identifier")("getURLs")
    ['get', 'urls']
    """

    def __getattr__(name: str) -> object:
        if name in names:
            return getattr(importlib.import_module(f"{package}.{names[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
