"""Atomic outputs: write to a temporary sibling, rename into place on success.

Every file or folder the toolkit writes goes through these helpers, so an error
or Ctrl-C part way never leaves a half-written output where a finished one is
expected: either the old state stays, or the complete new one appears.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from wrdscore.errors import WrdscoreError


def _cannot_write(target: Path, exc: OSError) -> WrdscoreError:
    in_the_way = next((p for p in reversed(target.parents) if p.exists() and not p.is_dir()), None)
    reason = f"{in_the_way} is not a folder" if in_the_way else exc.strerror or str(exc)
    return WrdscoreError(f"cannot write {target}: {reason}")


def _umask() -> int:
    """The process's umask (os.umask can only read it by setting it: set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_file(target: Path) -> str:
    """Create the temporary sibling of ``target`` (and its folder), or say why not."""
    if target.is_dir():
        raise WrdscoreError(f"cannot write {target}: it is a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    os.close(fd)
    return tmp


def _temp_dir(target: Path, force: bool, suffix: str) -> Path:
    """Create the temporary sibling folder of ``target`` (and its parent), or say why not.

    An existing ``target`` is refused without ``force``, and one that is not a folder
    always.

    Shared by :func:`check_output_dir` and :func:`atomic_dir`, so the check made
    before the work is exactly the one the real write makes.
    """
    if target.exists() and not force:
        raise WrdscoreError(f"output {target} already exists (use --force to replace it)")
    if target.exists() and not target.is_dir():
        raise WrdscoreError(f"output {target} exists and is not a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent))
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    return tmp


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Fail now, not after the work, if ``path`` could not be written atomically.

    Creates and removes the temporary sibling file :func:`atomic_write` would use, so
    a read-only folder, a missing permission or a folder in the way is reported before
    a long computation whose result would be lost.

    Examples
    --------
    >>> check_writable("/proc/out.tsv")
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: cannot write /proc/out.tsv: No such file or directory
    """
    target = Path(path)
    os.unlink(_temp_file(target))
    return target


def check_output_dir(path: str | os.PathLike[str], force: bool = False) -> Path:
    """Fail now, not after the work, if :func:`atomic_dir` could not create ``path``.

    Refuses an existing ``path`` without ``force`` (or one that is not a folder), and
    creates and removes the temporary sibling folder :func:`atomic_dir` would use, so
    a read-only place is reported before a long computation whose result would be lost.

    Examples
    --------
    >>> check_output_dir("/proc/report")
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: cannot write /proc/report: No such file or directory
    """
    target = Path(path)
    os.rmdir(_temp_dir(target, force, ".check"))
    return target


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "w", **open_kwargs: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it to ``path`` when the block ends.

    Parameters
    ----------
    path : path-like
        Final destination. Its parent folder is created if needed.
    mode : str
        ``"w"`` (text, UTF-8 unless ``encoding`` is given) or ``"wb"``.
    **open_kwargs
        Passed to :func:`open` (``encoding``, ``newline``...).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_write(d / "out.txt") as fh:
    ...     _ = fh.write("hello")
    >>> (d / "out.txt").read_text()
    'hello'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write supports modes 'w' and 'wb', not {mode!r}")
    target = Path(path)
    if "b" not in mode:
        open_kwargs.setdefault("encoding", "utf-8")
    tmp = _temp_file(target)
    # mkstemp makes the file private (0600); the output gets the mode any new file
    # would, so models, corpora and studies stay readable by whom the umask allows.
    os.chmod(tmp, 0o666 & ~_umask())
    try:
        with open(tmp, mode, **open_kwargs) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _raced(target: Path) -> WrdscoreError:
    return WrdscoreError(
        f"output {target} was created by another run while this one worked (two runs writing "
        "the same output?); it was left as that run wrote it and this run's result discarded"
    )


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str], force: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; rename it to ``path`` when the block ends.

    Parameters
    ----------
    path : path-like
        The output folder to create.
    force : bool
        Replace an existing ``path``. Without it an existing folder is refused
        *before* any work starts, with a :class:`~wrdscore.errors.WrdscoreError`, and
        one that another process created while the block ran is never replaced: the
        block's result is discarded with an error instead.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "corpus"
    >>> with atomic_dir(d) as tmp:
    ...     _ = (tmp / "a.txt").write_text("x")
    >>> sorted(p.name for p in d.iterdir())
    ['a.txt']
    """
    target = Path(path)
    tmp = _temp_dir(target, force, ".partial")
    tmp.chmod(0o777 & ~_umask())  # mkdtemp's 0700, as for files above
    try:
        yield tmp
        if target.exists() and not force:
            raise _raced(target)
        if target.exists():
            # Move the old output aside first so a failure here still leaves one complete copy.
            old = Path(
                tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent)
            )
            os.replace(target, old / target.name)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            try:
                os.replace(tmp, target)
            except OSError:
                # Another run created it between the check above and the rename; a
                # non-empty folder is never replaced by rename(2), so nothing is lost.
                raise _raced(target) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def check_not_input(
    output: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str] | None],
    option: str = "output",
    *,
    trees: bool = False,
) -> None:
    """Refuse an output that is one of ``inputs``, or a folder that holds one.

    ``--force`` replaces an output, so an output path that names an input (the same
    file or folder once relative paths and symbolic links are resolved, or a hard link
    to it) would destroy what the command reads. It is refused whatever ``--force``
    says. Inputs that do not exist as paths (``default``, a hub name, an URL) are
    skipped, and ``None`` stands for an option not given.

    With ``trees``, the folders among ``inputs`` are source trees read whole (``ingest``,
    ``corpus abbreviations``): an existing output anywhere below one is refused too,
    since replacing it would replace source files that were read. A new output there
    replaces nothing and is allowed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "preds.txt").write_text("size\\n")
    >>> check_not_input(d / "scores.tsv", [d / "preds.txt"])
    >>> check_not_input(d / "." / "preds.txt", [d / "preds.txt"], "--per-pair")
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: --per-pair .../preds.txt is an input of this command; ...
    """
    target = Path(output)
    where = target.resolve()
    for given in inputs:
        if given is None:
            continue
        source = Path(given)
        if not source.exists():
            continue
        same = target.exists() and os.path.samefile(target, source)
        if same or where == source.resolve():
            raise WrdscoreError(
                f"{option} {target} is an input of this command; write the output "
                "elsewhere (even --force never replaces an input)"
            )
        if where in source.resolve().parents:
            raise WrdscoreError(
                f"{option} {target} holds the input {source}; write the output elsewhere "
                "(even --force never replaces an input)"
            )
        if trees and target.exists() and source.is_dir() and source.resolve() in where.parents:
            raise WrdscoreError(
                f"{option} {target} is inside the source folder {source}, all of which is "
                "read; write the output elsewhere (even --force never replaces an input)"
            )
