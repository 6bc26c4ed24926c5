"""What every encoder feature needs from the torch stack, imported only when asked for.

The core install has no torch: ``wrdscore score`` without ``--encoder`` must never
import it (start-up time, and the install stays light). Everything that needs torch,
transformers or sentence-transformers gets them through :func:`torch_stack`, which
turns a missing ``encoders`` extra into one line that says how to install it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from pathlib import Path
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


#: The line of ``torch/version.py`` that ``torch.__version__`` is read from.
_VERSION_LINE = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.M)


def torch_version() -> str:
    """torch's version as ``torch.__version__`` gives it, build tag included (``2.14.1+cu130``).

    The signature must tell builds apart: a CUDA and a CPU build of one release are
    different binaries (compilers, BLAS, kernels) and need not give the same numbers, and
    ``2.14.1+cu130`` is what ``pip install torch==...`` needs to get the same one back.
    The distribution's metadata has no tag for PyPI's CUDA wheels (``2.14.1``), so the
    version is read from ``torch/version.py``, where ``torch.__version__`` comes from,
    without importing torch.

    Raises
    ------
    importlib.metadata.PackageNotFoundError
        torch is not installed.
    """
    dist = importlib.metadata.distribution("torch")
    try:
        text = Path(str(dist.locate_file("torch/version.py"))).read_text(encoding="utf-8")
    except OSError:  # an install without the file: the metadata is all there is
        return dist.version
    found = _VERSION_LINE.search(text)
    return found[1] if found else dist.version


def stack_versions() -> str:
    """``torch:X,tf:Y,st:Z``: the versions that can change an encoder's numbers.

    Read from the installed files, so nothing is imported; torch's with its build tag
    (:func:`torch_version`).
    """
    parts = []
    for label, dist in (
        ("torch", "torch"),
        ("tf", "transformers"),
        ("st", "sentence-transformers"),
    ):
        try:
            version = torch_version() if dist == "torch" else importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "none"
        parts.append(f"{label}:{version}")
    return ",".join(parts)
