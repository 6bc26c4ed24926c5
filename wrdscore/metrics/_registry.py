"""The registry of metrics: :func:`register`, :data:`METRICS` and :func:`get_metric`."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from wrdscore.errors import WrdscoreError

if TYPE_CHECKING:
    from wrdscore.metrics._metric import Metric

M = TypeVar("M", bound="type[Metric]")

_REGISTRY: dict[str, type[Metric]] = {}


def register(cls: M) -> M:
    """Class decorator: make a metric available by its ``name`` to :func:`get_metric`."""
    name = cls.name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"metric name {name!r} registered twice")
    _REGISTRY[name] = cls
    return cls


def _load_metric_modules() -> None:
    # Every public module or subpackage of wrdscore.metrics may register metrics (a new
    # metric is a new module there; the judge is a subpackage of small modules);
    # importing them on first use keeps `import wrdscore` light and needs no hand-kept
    # list. The package's __path__ (which may be extended) is read from sys.modules,
    # where it is whenever this runs: importing the package here would be an import
    # circle (it imports this module).
    package = sys.modules[__name__.rpartition(".")[0]]
    for mod in pkgutil.iter_modules(package.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"wrdscore.metrics.{mod.name}")


class _Registry(Mapping[str, "type[Metric]"]):
    """Read-only view of the registered metrics, loading them on first use."""

    def _all(self) -> dict[str, type[Metric]]:
        _load_metric_modules()
        return _REGISTRY

    def __getitem__(self, name: str) -> type[Metric]:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._all()))

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"METRICS({', '.join(self)})"


#: Names of every registered metric (a mapping of name to class).
METRICS: Mapping[str, type[Metric]] = _Registry()


def get_metric(name: str, **options: Any) -> Metric:
    """Build the metric registered as ``name`` with ``options`` (e.g. ``embeddings=``).

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> round(float(get_metric("wrd", embeddings=emb).sentence_score("size", "count").f1[0]), 2)
    0.8
    """
    return metric_class(name)(**options)


def canonical_name(name: str) -> str:
    """The registered name ``name`` spells in any case (``WRD`` -> ``wrd``, ``rougel`` ->
    ``rougeL``); a name that matches none is returned as given.

    A metric that lives in the module of its own name (``wrd`` in ``wrd.py``) is found
    without importing the other metric modules, some of which import large libraries
    (start-up time of ``wrdscore score``); any other name loads them all.

    Examples
    --------
    >>> canonical_name("WRD"), canonical_name("RougeL"), canonical_name("nope")
    ('wrd', 'rougeL', 'nope')
    """
    for spelling in dict.fromkeys([name, name.lower()]):
        if spelling not in _REGISTRY and spelling.isidentifier():
            import importlib.util

            if importlib.util.find_spec(f"wrdscore.metrics.{spelling}") is not None:
                importlib.import_module(f"wrdscore.metrics.{spelling}")
        if spelling in _REGISTRY:
            return spelling
    return next((known for known in METRICS if known.lower() == name.lower()), name)


def metric_class(name: str) -> type[Metric]:
    """The class registered as ``name``, in any case (:func:`canonical_name`); a one-line
    error listing the choices otherwise."""
    name = canonical_name(name)
    if name not in _REGISTRY:
        raise WrdscoreError(f"unknown metric {name!r}; choose one of {', '.join(METRICS)}")
    return _REGISTRY[name]
