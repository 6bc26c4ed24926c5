"""Find the source files in SOURCE arguments: folders, source files and archives.

Which files are sources is the :class:`Source`'s ``extensions``: ``.java`` unless
ingest reads another language (:func:`open_sources`).

Archives (``.zip``/``.jar``, ``.tar``, ``.tar.gz``/``.tgz``, ``.tar.xz``/``.txz``,
``.tar.bz2``) are streamed member by member, never unpacked to disk, and only one
file's bytes are in memory at a time.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import os
import tarfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wrdscore.errors import WrdscoreError

_ZIP_SUFFIXES = (".zip", ".jar")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")
# What a damaged archive raises while it is being read, whatever the compression.
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    tarfile.TarError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    OSError,
)
# Bit 0 of a zip entry's general purpose flags: the member is encrypted.
_ZIP_ENCRYPTED = 0x1


@dataclass
class Source:
    """One SOURCE argument; ``size``, ``sha256`` and ``files`` are final once it is read.

    For a folder, ``size`` is the total size of its ``.java`` files and ``sha256``
    hashes each file's relative path with the SHA-256 of its bytes, in sorted order.
    ``path`` is a local path (:func:`open_sources`), or an fsspec URL kept as a string
    for ingest on a Dask cluster (a ``Path`` would fold the URL's ``//``).
    """

    path: Path | str
    kind: str
    size: int = 0
    sha256: str = ""
    files: int = 0
    #: A folder's ``.java`` files once walked: counting them (:func:`count_java_files`)
    #: and reading them then share one walk.
    listing: list[Path] | None = field(default=None, repr=False, compare=False)
    #: The extensions of the files read (lower case), ``.java`` unless another
    #: language is ingested.
    extensions: tuple[str, ...] = (".java",)

    def describe(self) -> dict[str, Any]:
        """The manifest entry for this source."""
        return {
            "path": str(self.path),
            "kind": self.kind,
            "size": self.size,
            "sha256": self.sha256,
            "files": self.files,
        }


@dataclass(frozen=True)
class JavaFile:
    """One ``.java`` file found in a source.

    Attributes
    ----------
    source : int
        Index of its source.
    path : str
        Path inside the source (relative to a folder; the file name of a ``.java``
        source; the member name in an archive).
    size : int
        Size in bytes.
    data : bytes or None
        The contents, or ``None`` when the file is over the size limit and was not read.
    """

    source: int
    path: str
    size: int
    data: bytes | None


def _kind(path: Path, extensions: tuple[str, ...] = (".java",)) -> str:
    name = path.name.lower()
    if path.is_dir():
        return "folder"
    if name.endswith(extensions):
        return "java"  # one source file (the name is older than other languages)
    if name.endswith(_ZIP_SUFFIXES):
        return "zip"
    if name.endswith(_TAR_SUFFIXES):
        return "tar"
    raise WrdscoreError(
        f"source {path} is not a folder, {'/'.join(extensions)} file, .zip/.jar or "
        ".tar(.gz/.xz/.bz2) archive"
    )


def _is_source(name: str, extensions: tuple[str, ...]) -> bool:
    # Case-sensitive, as the ``.java`` test always was (a rebuilt corpus stays the same).
    return name.endswith(extensions)


def open_sources(
    paths: Sequence[str | os.PathLike[str]], extensions: tuple[str, ...] = (".java",)
) -> list[Source]:
    """Check every SOURCE argument before any work starts.

    ``extensions`` (lower case) say which files are sources: ``.java`` by default.

    Raises
    ------
    WrdscoreError
        If no source is given, one does not exist, or its kind is not supported.

    Examples
    --------
    >>> import tempfile
    >>> [s.kind for s in open_sources([tempfile.mkdtemp()])]
    ['folder']
    """
    if not paths:
        raise WrdscoreError("no SOURCE given: pass folders, .java files or archives")
    sources = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise WrdscoreError(f"source {path} does not exist")
        sources.append(Source(path.resolve(), _kind(path, extensions), extensions=extensions))
    return sources


def _file_sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _folder_listing(source: Source, path: Path) -> list[Path]:
    """A folder's ``.java`` files in sorted order, walked once per source."""
    if source.listing is None:
        # A symbolic link out of the folder (to /etc/passwd, say, in a cloned repository)
        # is not part of the source: it is never read. (Links to folders are not descended.)
        source.listing = sorted(
            p
            for p in path.rglob("*")
            if _is_source(p.name, source.extensions)
            and p.is_file()
            and (not p.is_symlink() or p.resolve().is_relative_to(path))
        )
    return source.listing


def _read_folder(index: int, source: Source, path: Path, max_bytes: int) -> Iterator[JavaFile]:
    digest = hashlib.sha256()
    for file in _folder_listing(source, path):
        rel = file.relative_to(path).as_posix()
        size = file.stat().st_size
        data = file.read_bytes() if size <= max_bytes else None
        sha = hashlib.sha256(data).hexdigest() if data is not None else _file_sha256(file)
        digest.update(f"{rel}\0{sha}\n".encode())
        source.size += size
        source.files += 1
        yield JavaFile(index, rel, size, data)
    source.sha256 = digest.hexdigest()


def _read_java(index: int, source: Source, path: Path, max_bytes: int) -> Iterator[JavaFile]:
    size = path.stat().st_size
    data = path.read_bytes() if size <= max_bytes else None
    source.size, source.files, source.sha256 = size, 1, _file_sha256(path)
    yield JavaFile(index, path.name, size, data)


def zip_java_members(
    archive: zipfile.ZipFile, location: object, extensions: tuple[str, ...] = (".java",)
) -> list[zipfile.ZipInfo]:
    """The source members (``extensions``) of a zip, from its central directory.

    Raises
    ------
    WrdscoreError
        If one of them is encrypted. As with a member in a compression method zipfile
        cannot read, the archive is refused as a whole (before any member is read)
        rather than ingested with files silently missing.
    """
    members = [
        i for i in archive.infolist() if not i.is_dir() and _is_source(i.filename, extensions)
    ]
    for info in members:
        if info.flag_bits & _ZIP_ENCRYPTED:
            raise WrdscoreError(
                f"archive {location}: member {info.filename} is encrypted (password "
                "required); unpack the archive with its password and ingest the folder"
            )
    return members


def _read_zip(index: int, source: Source, path: Path, max_bytes: int) -> Iterator[JavaFile]:
    with zipfile.ZipFile(path) as archive:
        for info in zip_java_members(archive, path, source.extensions):
            source.files += 1
            big = info.file_size > max_bytes
            yield JavaFile(
                index, info.filename, info.file_size, None if big else archive.read(info)
            )


def _open_decompressed(path: Path) -> io.BufferedIOBase:
    name = path.name.lower()
    if name.endswith((".gz", ".tgz")):
        return gzip.open(path, "rb")
    if name.endswith((".xz", ".txz")):
        return lzma.open(path, "rb")
    if name.endswith((".bz2", ".tbz2")):
        return bz2.open(path, "rb")
    return open(path, "rb")


def _read_tar(index: int, source: Source, path: Path, max_bytes: int) -> Iterator[JavaFile]:
    # The decompressor is ours, not tarfile's: tarfile's own stream mode takes a
    # truncated archive for a finished one, while gzip/lzma/bz2 raise EOFError when
    # the stream ends early, which the drain after the last member forces them to check.
    with _open_decompressed(path) as raw, tarfile.open(fileobj=raw, mode="r|") as archive:
        for member in archive:
            if not member.isfile() or not _is_source(member.name, source.extensions):
                continue
            source.files += 1
            data = None
            if member.size <= max_bytes:
                fh = archive.extractfile(member)
                assert fh is not None  # a regular file always has contents
                data = fh.read()
                if len(data) != member.size:
                    raise EOFError(f"{member.name} is cut short")
            yield JavaFile(index, member.name, member.size, data)
        while raw.read(1 << 20):
            pass


_READERS = {"folder": _read_folder, "java": _read_java, "zip": _read_zip, "tar": _read_tar}


def _broken(source: Source, exc: BaseException) -> WrdscoreError:
    return WrdscoreError(f"broken archive {source.path}: {exc}")


def count_java_files(sources: Sequence[Source]) -> int | None:
    """How many files :func:`iter_java_files` will yield (a progress bar's total), or None
    where that is not cheap to know.

    A folder is walked (the walk is kept for reading it), a zip's central directory is
    read, a ``.java`` file is one. A tar archive has no index: its member list is only
    known by decompressing and reading it all, which the ingest then does a second
    time, so with any tar source the total is None.

    Raises
    ------
    WrdscoreError
        A zip that is damaged or has an encrypted ``.java`` member, as reading it would.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A {}")
    >>> count_java_files(open_sources([d, d / "A.java"]))
    2
    """
    total = 0
    for source in sources:
        path = source.path
        assert isinstance(path, Path), f"source {path} is a URL: ingest it on a Dask cluster"
        if source.kind == "tar":
            return None
        if source.kind == "folder":
            total += len(_folder_listing(source, path))
        elif source.kind == "zip":
            try:
                with zipfile.ZipFile(path) as archive:
                    total += len(zip_java_members(archive, path, source.extensions))
            except _ARCHIVE_ERRORS as exc:
                raise _broken(source, exc) from None
        else:
            total += 1
    return total


def iter_java_files(sources: Sequence[Source], max_bytes: int) -> Iterator[JavaFile]:
    """Stream every ``.java`` file of every source, in a stable order.

    Folders are walked in sorted path order, archives in member order. Each
    source's ``size``, ``sha256`` and ``files`` are filled in as it is read.

    Parameters
    ----------
    sources : sequence of Source
        From :func:`open_sources`.
    max_bytes : int
        Files larger than this are yielded with ``data=None`` and not read.

    Raises
    ------
    WrdscoreError
        If an archive is damaged, or a source holds no ``.java`` file at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A {}")
    >>> [(f.path, f.data) for f in iter_java_files(open_sources([d]), 1 << 20)]
    [('A.java', b'class A {}')]
    """
    for index, source in enumerate(sources):
        path = source.path
        # Only the Dask ingest makes URL sources, and its workers read them.
        assert isinstance(path, Path), f"source {path} is a URL: ingest it on a Dask cluster"
        if source.kind in ("zip", "tar"):
            source.size = path.stat().st_size
            source.sha256 = _file_sha256(path)
        try:
            yield from _READERS[source.kind](index, source, path, max_bytes)
        except _ARCHIVE_ERRORS as exc:
            if source.kind not in ("zip", "tar"):
                raise
            raise _broken(source, exc) from None
        if source.files == 0:
            raise WrdscoreError(
                f"source {source.path} contains no {'/'.join(source.extensions)} files"
            )
