"""What every encoder feature needs from the torch stack, imported only when asked for.

The core install has no torch: ``wrdscore score`` without ``--encoder`` must never
import it (start-up time, and the install stays light). Everything that needs torch,
transformers or sentence-transformers gets them through :func:`torch_stack`, which
turns a missing ``encoders`` extra into one line that says how to install it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from types import ModuleType

from wrdscore.errors import WrdscoreError

EXTRA_HINT = "install the encoders extra: pip install 'wrdscore[encoders]'"

#: What ``--device`` accepts; ``None`` means cuda when available, else cpu.
DEVICES = ("cpu", "cuda")


def torch_stack() -> tuple[ModuleType, ModuleType]:
    """``(torch, sentence_transformers)``, or a one-line error naming the extra to install.

    Examples
    --------
    >>> torch, st = torch_stack()  # doctest: +SKIP
    """
    try:
        import sentence_transformers
        import torch
    except ImportError as exc:
        raise WrdscoreError(f"pretrained encoders need {exc.name}; {EXTRA_HINT}") from None
    return torch, sentence_transformers


def require_stack() -> None:
    """Refuse, importing nothing, where the ``encoders`` extra is not installed.

    What :func:`torch_stack` refuses, found without its import (seconds for
    sentence-transformers), so a command can check its arguments before it pays.
    """
    for module in ("torch", "sentence_transformers"):
        if importlib.util.find_spec(module) is None:
            raise WrdscoreError(f"pretrained encoders need {module}; {EXTRA_HINT}")


def check_device(device: str | None) -> None:
    """Refuse a device that cannot be had, before any model loads.

    Cheap: no device (cuda when available, else cpu) and ``cpu`` import nothing, and
    ``cuda`` imports torch alone to ask it (about 2 s), not sentence-transformers and
    transformers (about 12 s more), so ``--device cuda`` on a machine without CUDA
    fails at once.

    Raises
    ------
    WrdscoreError
        An unknown device, or ``cuda`` on a machine without CUDA.
    """
    if device is not None and device not in DEVICES:
        raise WrdscoreError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    require_stack()
    if device == "cuda" and not _cuda_available():
        raise WrdscoreError("--device cuda: CUDA is not available here; use --device cpu")


def _cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def resolve_device(device: str | None) -> str:
    """``cpu`` or ``cuda``: the one asked for, checked (:func:`check_device`), or cuda
    when available."""
    check_device(device)
    if device is not None:
        return device
    return "cuda" if _cuda_available() else "cpu"


def stack_versions() -> str:
    """``torch:X,tf:Y,st:Z``: the versions that can change an encoder's numbers.

    Read from the installed distributions' metadata, so nothing is imported.
    """
    parts = []
    for label, dist in (
        ("torch", "torch"),
        ("tf", "transformers"),
        ("st", "sentence-transformers"),
    ):
        try:
            parts.append(f"{label}:{importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{label}:none")
    return ",".join(parts)
