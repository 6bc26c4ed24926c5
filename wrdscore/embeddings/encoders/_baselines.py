"""Where an encoder's rescaling baselines and probe are kept: by the hash of its weights.

A static model keeps its baselines in its own ``model.json``. An encoder's folder is not
ours to write (a hub cache, site-packages), and bert_score's users lose rescaling as soon
as they load a model from a local path, because its baselines are keyed by hub name. Here
they are keyed by :func:`~wrdscore.embeddings.encoders.weights_sha`, so the same weights
find them wherever they lie:

- shipped with wrdscore, in ``wrdscore/data/encoders/SHA.json`` (read-only);
- computed by ``wrdscore baseline --encoder``, in the user's cache folder
  (``$WRDSCORE_CACHE``, else ``$XDG_CACHE_HOME/wrdscore``, else ``~/.cache/wrdscore``),
  under ``encoders/SHA.json``; these win over shipped ones.

Each file maps a *scope* (the layer, the static model that supplies IDF and the probe,
and the fusion) to a baselines block like a model's: ``settings`` maps each metric setting
(:func:`~wrdscore.metrics.baseline_key`) to its mean values on random name pairs.

The same files keep, under ``probes``, what :class:`~wrdscore.embeddings.encoders.ContextualVectors`
measures on a static model's most frequent tokens (the encoder's mean state norm and
mean state), keyed by the layer and the static model. Measuring it runs the encoder on
2,000 tokens, which cost more than scoring a small file (issue 27), so it is measured
once and kept: scoring writes it to the cache folder itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from wrdscore.atomic import atomic_write
from wrdscore.errors import WrdscoreError

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "encoders"


def cache_dir() -> Path:
    """The user's folder for computed encoder baselines (see the module docstring)."""
    root = os.environ.get("WRDSCORE_CACHE")
    if root:
        return Path(root) / "encoders"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "wrdscore" / "encoders"


def _read(path: Path) -> dict[str, Any]:
    """The whole file (``scopes`` and ``probes``), {} when there is none."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WrdscoreError(f"{path}: unreadable encoder baselines ({exc}); delete it") from None
    scopes = data.get("scopes") if isinstance(data, dict) else None
    if not isinstance(scopes, dict) or not isinstance(data.get("probes", {}), dict):
        raise WrdscoreError(f"{path}: not an encoder baselines file (no scopes); delete it")
    return dict(data)


def _store(sha: str, section: str, key: str, block: dict[str, Any], folder: Path) -> Path:
    """Write ``block`` as ``key`` of ``section`` into ``folder/SHA.json``, keeping the rest."""
    path = folder / f"{sha}.json"
    data = _read(path)
    out = {"weights_sha": sha, "scopes": data.get("scopes", {}), "probes": data.get("probes", {})}
    out[section][key] = block
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as fh:
        fh.write(json.dumps(out, indent=2) + "\n")
    return path


def _lookup(sha: str, section: str, key: str) -> dict[str, Any]:
    """``key`` of ``section`` in the file of ``sha``: the cached one's, else the shipped
    one's, else {} (what :func:`_store` wrote)."""
    for folder in (cache_dir(), SHIPPED):
        block = _read(folder / f"{sha}.json").get(section, {}).get(key)
        if block:
            return dict(block)
    return {}


def read_encoder_baselines(sha: str, scope: str) -> dict[str, Any]:
    """The baselines block of ``scope`` for the weights ``sha``: cached, else shipped, else {}."""
    return _lookup(sha, "scopes", scope)


def store_encoder_baselines(sha: str, scope: str, block: dict[str, Any]) -> Path:
    """Write ``block`` for ``scope`` into the cache file of ``sha`` (atomically); its path."""
    return _store(sha, "scopes", scope, block, cache_dir())


def read_encoder_probe(sha: str, key: str) -> dict[str, Any]:
    """The probe stored as ``key`` for the weights ``sha``: cached, else shipped, else {}."""
    return _lookup(sha, "probes", key)


def store_encoder_probe(
    sha: str, key: str, block: dict[str, Any], folder: Path | None = None
) -> Path:
    """Write a probe into ``folder/SHA.json`` (default: the cache folder), atomically."""
    return _store(sha, "probes", key, block, cache_dir() if folder is None else folder)
