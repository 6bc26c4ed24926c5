"""What every encoder feature needs from the torch stack, imported only when asked for.

The core install has no torch: ``wrdscore score`` without ``--encoder`` must never
import it (start-up time, and the install stays light). Everything that needs torch,
transformers or sentence-transformers gets them through :func:`torch_stack`, which
turns a missing ``encoders`` extra into one line that says how to install it.
"""

from __future__ import annotations

import importlib.metadata
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


def resolve_device(device: str | None) -> str:
    """``cpu`` or ``cuda``: the one asked for, checked, or cuda when available.

    Raises
    ------
    WrdscoreError
        An unknown device, or ``cuda`` on a machine without CUDA.
    """
    if device is not None and device not in DEVICES:
        raise WrdscoreError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    torch, _ = torch_stack()
    available = bool(torch.cuda.is_available())
    if device == "cuda" and not available:
        raise WrdscoreError("--device cuda: CUDA is not available here; use --device cpu")
    return device or ("cuda" if available else "cpu")


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
