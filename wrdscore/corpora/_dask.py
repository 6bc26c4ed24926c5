"""``wrdscore ingest --scheduler``: the per-file extraction on a dask.distributed cluster.

The client lists the files of every source (a folder's paths, a zip's central
directory; a tar archive is listed by one worker task, since listing it means
decompressing it), cuts them into *units*, runs of consecutive files of one
source, and submits one task per unit. A worker reads its unit's files itself,
by path or fsspec URL, so no corpus byte passes through the client, and returns
the :func:`~wrdscore.corpora._extract.extract_file` result of each file.

The client consumes the results in unit order and writes the records itself, so
the corpus is the one a local run writes, record for record. A task whose worker
dies is rerun by the scheduler; since only the client writes, a rerun can neither
lose nor duplicate a record, and an interrupted run leaves nothing anywhere but in
the client's temporary folder, which :func:`~wrdscore.atomic.atomic_dir` removes.

A unit of a plain tar seeks to its first member's header (the listing task records
the offsets). A compressed tar cannot be read from the middle: a unit of one
decompresses, without parsing, every member before its own. Its units are
therefore few and large, at most :data:`_TAR_RANGES` per archive, so that the
decompression repeated across them stays at ``(_TAR_RANGES - 1) / 2`` passes.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import logging
import lzma
import signal
import tarfile
import threading
import weakref
import zipfile
from collections import OrderedDict, deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from wrdscore.corpora._extract import FileResult, extract_file
from wrdscore.corpora._sources import (
    _ARCHIVE_ERRORS,
    JavaFile,
    Source,
    _kind,
    zip_java_members,
)
from wrdscore.errors import WrdscoreError

#: How to get Dask, named in the error when it is missing.
DASK_EXTRA = "pip install 'wrdscore[dask]'"
#: How long the client tries to reach a scheduler before giving up.
CONNECT_TIMEOUT = "10s"
# A unit is one task: a scheduler round trip costs about a millisecond, so a unit
# holds a few hundred milliseconds of parsing; many more units than workers keep
# every worker busy to the end and make a rerun after a lost worker cheap.
_UNIT_FILES = 128
_UNIT_BYTES = 2 << 20
# A compressed tar is cut into at most this many contiguous member ranges.
_TAR_RANGES = 4
# Units in flight per worker thread: enough to hide the round trips.
_IN_FLIGHT_PER_THREAD = 4
_COMPRESSED = (".gz", ".tgz", ".xz", ".txz", ".bz2", ".tbz2")


def import_distributed() -> Any:
    """The ``distributed`` module, or a :class:`WrdscoreError` naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise WrdscoreError(
            f"--scheduler needs Dask, which is not installed: {DASK_EXTRA}"
        ) from None
    return distributed


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start processes that ignore Ctrl-C: only this one handles it, by closing the cluster.

    A terminal's Ctrl-C reaches the whole process group. Worker processes inherit an
    ignored SIGINT, and Python installs its KeyboardInterrupt handler only where
    SIGINT is not ignored, so they neither die mid-task nor print tracebacks.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; it also is the one Ctrl-C interrupts
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _check_address(address: str) -> None:
    """Raise ValueError for an address Dask could never connect to (unknown scheme, no port).

    Checked before ``Client``: a Client whose constructor fails on such an address is left
    half started, and its ``__del__`` then waits out a 20 s timeout and prints a traceback
    after the one-line error.
    """
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    with contextlib.suppress(NotImplementedError):  # inproc and ucx cannot tell: let them try
        get_backend(scheme).get_address_host_port(location)


class Cluster:
    """A connection to a Dask scheduler, or a ``LocalCluster`` started for the run.

    Entering connects (a :class:`WrdscoreError` if the scheduler cannot be
    reached); leaving cancels whatever is still running and disconnects, also on
    an error or Ctrl-C.

    Parameters
    ----------
    scheduler : str
        ``"local"`` for a ``LocalCluster`` of ``jobs`` single-threaded worker
        processes, else the scheduler's address (``tcp://host:8786``).
    jobs : int
        Worker processes of a ``"local"`` cluster.
    """

    def __init__(self, scheduler: str, jobs: int) -> None:
        self.distributed = import_distributed()
        self.scheduler = scheduler
        self.jobs = jobs
        self.client: Any = None
        self._cluster: Any = None
        self._futures: set[Any] = set()
        self._quiet: dict[str, int] = {}

    def __enter__(self) -> Cluster:
        dist = self.distributed
        # What goes wrong reaches the user as one WrdscoreError line; distributed's own
        # log lines (a lost connection logs a traceback) would bury it.
        self._quiet = {
            name: logger.level
            for name, logger in logging.root.manager.loggerDict.items()
            if name.split(".")[0] in ("distributed", "tornado")
            and isinstance(logger, logging.Logger)
        }
        for name in self._quiet:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if self.scheduler == "local":
                with _workers_ignore_ctrl_c():
                    # One thread per process: the parsers hold the GIL.
                    self._cluster = dist.LocalCluster(
                        n_workers=self.jobs,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",  # any free port: 8787 may be taken
                        silence_logs=logging.CRITICAL,
                    )
                self.client = dist.Client(self._cluster, set_as_default=False)
            else:
                _check_address(self.scheduler)
                self.client = dist.Client(
                    self.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False
                )
        except (OSError, TimeoutError, ValueError) as exc:
            self.__exit__()
            raise WrdscoreError(
                f"cannot reach the Dask scheduler {self.scheduler}: {exc}"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            if self._futures:
                # Cancelling tells the scheduler to drop the tasks (queued ones never run).
                self.client.cancel(list(self._futures), force=True)
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._futures.clear()
        self.client = self._cluster = None
        for name, level in self._quiet.items():
            logging.getLogger(name).setLevel(level)

    def threads(self) -> int:
        """Worker threads in the cluster now (at least 1, to size the queue)."""
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Submit one task; its result is fetched with :meth:`result`."""
        future = self.client.submit(fn, *args, pure=False)
        self._futures.add(future)
        return future

    def wait(self, futures: list[Any]) -> None:
        """Wait until the tasks are finished (or failed: :meth:`result` raises their error)."""
        with self.client.as_current():
            self.distributed.wait(futures)

    def release(self, futures: list[Any]) -> None:
        """Forget tasks whose results only other tasks need."""
        self._futures.difference_update(futures)

    def result(self, future: Any) -> Any:
        """Wait for a task: its value, its own exception, or a one-line error for the cluster's."""
        try:
            value = future.result()
        except WrdscoreError:
            raise
        except self.distributed.KilledWorker as exc:
            why = str(exc).strip().splitlines()
            raise WrdscoreError(
                "a task was running on more Dask workers that died than the scheduler's "
                f"allowed-failures; giving up{': ' + why[0] if why else ''}"
            ) from None
        except (OSError, TimeoutError, CancelledError) as exc:
            why = str(exc).strip().splitlines()
            raise WrdscoreError(
                f"lost the Dask scheduler {self.scheduler}: "
                f"{type(exc).__name__}{': ' + why[0] if why else ''}"
            ) from None
        finally:
            self._futures.discard(future)
        return value


# --- where the files are: the client's side ---------------------------------------


@dataclass(frozen=True)
class Unit:
    """One task: consecutive ``.java`` files of one source.

    Attributes
    ----------
    location : str
        The source's path or fsspec URL, as the workers open it.
    kind : str
        ``folder``, ``java``, ``zip`` or ``tar``.
    paths : tuple of str
        The files: paths relative to the folder, or archive member names.
    sizes : tuple of int
        Their sizes in bytes.
    parse : tuple of bool
        Per file: parse it (``False``: over the size limit, only hashed or skipped).
    offset : int
        ``tar`` only: where to start reading the archive: the header of ``paths[0]``
        in a plain tar, 0 in a compressed one (which cannot be read from the middle).
    skip : int
        ``tar`` only: how many ``.java`` members to pass over, unparsed, from
        ``offset`` to ``paths[0]`` (0 in a plain tar).
    stamp : str
        ``zip`` only: identifies this version of the archive (fsspec's ``ukey``: size
        and modification time, or a checksum), under which workers keep it open.
    """

    location: str
    kind: str
    paths: tuple[str, ...]
    sizes: tuple[int, ...]
    parse: tuple[bool, ...]
    offset: int = 0
    skip: int = 0
    stamp: str = ""


def _is_url(location: str) -> bool:
    return "://" in location


class _BinaryFile(Protocol):
    """What is used of a file from ``open(path, "rb")`` or fsspec: both have all of it."""

    def read(self, size: int = -1, /) -> bytes: ...
    def readinto(self, buffer: bytearray, /) -> int: ...  # for hashlib.file_digest
    def readable(self) -> bool: ...
    def seek(self, offset: int, whence: int = 0, /) -> int: ...
    def tell(self) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
        /,
    ) -> None: ...


def _open(location: str) -> _BinaryFile:
    """A binary file object for a local path or an fsspec URL."""
    if _is_url(location):
        import fsspec

        return fsspec.open(location, "rb").open()
    return open(location, "rb")


def _join(location: str, rel: str) -> str:
    return f"{location.rstrip('/')}/{rel}" if _is_url(location) else str(Path(location, rel))


def open_locations(raw: Sequence[str | Any]) -> list[Source]:
    """Check every SOURCE (a path or fsspec URL) on the client before any work starts.

    Raises
    ------
    WrdscoreError
        If no source is given, one does not exist, or its kind is not supported.
    """
    if not raw:
        raise WrdscoreError("no SOURCE given: pass folders, .java files or archives")
    sources = []
    for item in raw:
        text = str(item)
        if not _is_url(text):
            path = Path(text)
            if not path.exists():
                raise WrdscoreError(f"source {path} does not exist")
            sources.append(Source(path.resolve(), _kind(path)))
            continue
        fs, root = _url_fs(text)
        if not fs.exists(root):
            raise WrdscoreError(f"source {text} does not exist")
        kind = "folder" if fs.isdir(root) else _kind(Path(root))
        sources.append(Source(text, kind))  # a URL stays a string
    return sources


def _url_fs(url: str) -> tuple[Any, str]:
    import fsspec

    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise WrdscoreError(f"cannot open source {url}: {exc}") from None


def _size(location: str) -> int:
    if not _is_url(location):
        return Path(location).stat().st_size
    fs, path = _url_fs(location)
    return int(fs.size(path))


def _folder_files(source: Source) -> list[tuple[str, int]]:
    """(relative path, size) of a folder's ``.java`` files, in the local reader's order."""
    location = str(source.path)
    if not _is_url(location):
        folder = Path(location)
        files = sorted(p for p in folder.rglob("*.java") if p.is_file())
        return [(p.relative_to(folder).as_posix(), p.stat().st_size) for p in files]
    fs, root = _url_fs(location)
    found = fs.find(root, detail=True)
    rels = [
        (name[len(root) :].lstrip("/"), int(info["size"]))
        for name, info in found.items()
        if name.endswith(".java") and info["type"] == "file"
    ]
    # Path order (part by part), as the local reader's sorted(rglob) walks a folder.
    return sorted(rels, key=lambda item: item[0].split("/"))


def _zip_members(location: str) -> list[tuple[str, int]]:
    """(member, size) of a zip's ``.java`` files, from its central directory only."""
    try:
        with _open(location) as fh, zipfile.ZipFile(fh) as archive:
            return [(info.filename, info.file_size) for info in zip_java_members(archive, location)]
    except _ARCHIVE_ERRORS as exc:
        raise WrdscoreError(f"broken archive {location}: {exc}") from None


def _units(
    location: str,
    kind: str,
    files: list[tuple[str, int, int]],
    max_bytes: int,
    size_cap: int,
    stamp: str = "",
) -> Iterator[Unit]:
    """Cut ``files`` (path, size, tar header offset) into units.

    A unit holds at most ``_UNIT_FILES`` files and about ``size_cap`` bytes to parse.
    """
    compressed = kind == "tar" and location.lower().endswith(_COMPRESSED)
    start = size = 0
    for i, (_, file_size, _) in enumerate(files):
        size += file_size if file_size <= max_bytes else 0
        if i + 1 - start >= _UNIT_FILES or size >= size_cap or i + 1 == len(files):
            chunk = files[start : i + 1]
            yield Unit(
                location,
                kind,
                paths=tuple(p for p, _, _ in chunk),
                sizes=tuple(s for _, s, _ in chunk),
                parse=tuple(s <= max_bytes for _, s, _ in chunk),
                offset=0 if compressed else chunk[0][2],
                skip=start if compressed else 0,
                stamp=stamp,
            )
            start, size = i + 1, 0


# --- what the workers run ------------------------------------------------------------


class _HashingReader:
    """A read-only file object that hashes the bytes read through it."""

    def __init__(self, raw: _BinaryFile) -> None:
        self.raw = raw
        self.sha256 = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.sha256.update(data)
        return data


def _decompressed(raw: Any, name: str) -> Any:
    name = name.lower()
    if name.endswith((".gz", ".tgz")):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if name.endswith((".xz", ".txz")):
        return lzma.LZMAFile(raw, "rb")
    if name.endswith((".bz2", ".tbz2")):
        return bz2.BZ2File(raw, "rb")
    return raw


def _java_members(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    for member in archive:
        if member.isfile() and member.name.endswith(".java"):
            yield member


def list_tar(location: str) -> tuple[str, list[tuple[str, int, int]]]:
    """Worker task: a tar archive's SHA-256 and its ``.java`` members (name, size, offset).

    The offset is that of the member's first header block in the uncompressed stream.

    Streams the whole archive once (that is the only way to list a compressed
    tar) and checks that it is complete.
    """
    try:
        with _open(location) as fh:
            hashing = _HashingReader(fh)
            stream = _decompressed(hashing, location)
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                members = [(m.name, m.size, m.offset) for m in _java_members(archive)]
            # Drain: the decompressor raises EOFError on a stream cut short only here.
            while stream.read(1 << 20):
                pass
            while hashing.read(1 << 20):
                pass
    except _ARCHIVE_ERRORS as exc:
        raise WrdscoreError(f"broken archive {location}: {exc}") from None
    return hashing.sha256.hexdigest(), members


def hash_file(location: str) -> str:
    """Worker task: the SHA-256 of a whole file (a zip source)."""
    with _open(location) as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


# The zips this worker process has open, most recently used last. Reading a big zip's
# central directory takes tens of milliseconds (66 ms for src.zip's 15,143 entries),
# which every unit would otherwise pay again.
_ZIPS: OrderedDict[tuple[str, str], zipfile.ZipFile] = OrderedDict()
_ZIPS_KEPT = 4
_ZIPS_LOCK = threading.Lock()


def _open_zip(location: str, stamp: str) -> zipfile.ZipFile:
    """The zip at ``location``, opened once per worker process and version (``stamp``)."""
    with _ZIPS_LOCK:
        key = (location, stamp)
        if key in _ZIPS:
            _ZIPS.move_to_end(key)
            return _ZIPS[key]
        fh = _open(location)
        try:
            archive = zipfile.ZipFile(fh)
        except BaseException:
            fh.close()
            raise
        # ZipFile does not close a file object it was given; closing it is ours to do.
        weakref.finalize(archive, fh.close)
        _ZIPS[key] = archive
        while len(_ZIPS) > _ZIPS_KEPT:
            _ZIPS.popitem(last=False)[1].close()
        return archive


def _read_units(unit: Unit) -> Iterator[bytes | None]:
    """The bytes of each file of ``unit`` (``None`` for one not to be parsed)."""
    if unit.kind in ("folder", "java"):
        # Files over the size limit are read too: the source's hash covers every file.
        for rel in unit.paths:
            with _open(unit.location if unit.kind == "java" else _join(unit.location, rel)) as fh:
                yield fh.read()
    elif unit.kind == "zip":
        archive = _open_zip(unit.location, unit.stamp)
        for name, parse in zip(unit.paths, unit.parse, strict=True):
            yield archive.read(name) if parse else None
    else:
        with _open(unit.location) as fh:
            stream = _decompressed(fh, unit.location)
            if unit.offset:
                stream.seek(unit.offset)  # a plain tar: straight to the unit's first header
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                wanted = zip(unit.paths, unit.parse, strict=True)
                for index, member in enumerate(_java_members(tar)):
                    if index < unit.skip:
                        continue  # the stream decompresses the member's data unparsed
                    name, parse = next(wanted)
                    if member.name != name:
                        raise WrdscoreError(
                            f"archive {unit.location} changed while it was read: "
                            f"expected {name} but found {member.name}"
                        )
                    if parse:
                        data = tar.extractfile(member)
                        assert data is not None  # a regular file always has contents
                        yield data.read()
                    else:
                        yield None
                    if index + 1 == unit.skip + len(unit.paths):
                        return
            raise WrdscoreError(f"archive {unit.location} changed while it was read: too short")


def run_unit(unit: Unit, parser: str, fallback: bool) -> list[tuple[str | None, FileResult | None]]:
    """Worker task: read the files of ``unit`` and extract each one.

    Returns, per file, its SHA-256 (folders and ``.java`` sources, whose manifest
    hash is built from the files' hashes; else ``None``) and its
    :class:`FileResult` (``None`` for a file over the size limit).
    """
    hashed = unit.kind in ("folder", "java")
    out: list[tuple[str | None, FileResult | None]] = []
    try:
        for data, parse in zip(_read_units(unit), unit.parse, strict=True):
            sha = hashlib.sha256(data).hexdigest() if hashed and data is not None else None
            result = extract_file(data, parser, fallback) if parse and data is not None else None
            out.append((sha, result))
    except _ARCHIVE_ERRORS as exc:
        if unit.kind in ("folder", "java"):
            raise WrdscoreError(f"cannot read a file of {unit.location}: {exc}") from None
        raise WrdscoreError(f"broken archive {unit.location}: {exc}") from None
    return out


# --- the client's loop -----------------------------------------------------------------


def _source_files(cluster: Cluster, source: Source, prepared: Any) -> list[tuple[str, int, int]]:
    """One source's ``.java`` files (path, size, tar header offset).

    Fills in the source's ``size``, ``files`` and, for an archive, ``sha256``.
    """
    location = str(source.path)
    if source.kind == "tar":
        source.sha256, files = cluster.result(prepared)
        source.size = _size(location)
    else:
        if source.kind == "folder":
            listed = _folder_files(source)
            source.size = sum(size for _, size in listed)
        elif source.kind == "java":
            source.size = _size(location)
            listed = [(location.rstrip("/").rsplit("/", 1)[-1], source.size)]
        else:
            listed = _zip_members(location)
            source.size, source.sha256 = _size(location), cluster.result(prepared)
        files = [(path, size, 0) for path, size in listed]
    source.files = len(files)
    if not files:
        raise WrdscoreError(f"source {location} contains no .java files")
    return files


def extracted(
    cluster: Cluster, sources: list[Source], parser: str, fallback: bool, max_bytes: int
) -> Generator[tuple[list[JavaFile], list[tuple[JavaFile, FileResult]]], None, None]:
    """Each unit's files, and its parsed files with their results, in source order.

    The counterpart of the process pool's loop in :mod:`wrdscore.corpora._ingest`:
    the files come back with ``data=None`` (the client never holds their bytes) and
    every file of at most ``max_bytes`` has a result. Each source's ``size``,
    ``sha256`` and ``files`` are final once its last unit has been yielded.
    """
    # Archives are hashed (and tars listed) by workers, all of them from the start.
    prepared = {
        i: cluster.submit(list_tar if s.kind == "tar" else hash_file, str(s.path))
        for i, s in enumerate(sources)
        if s.kind in ("zip", "tar")
    }
    digests = {i: hashlib.sha256() for i, s in enumerate(sources) if s.kind == "folder"}

    def units() -> Iterator[tuple[int, Unit]]:
        for i, source in enumerate(sources):
            files = _source_files(cluster, source, prepared.get(i))
            cap = _UNIT_BYTES
            if source.kind == "tar" and str(source.path).lower().endswith(_COMPRESSED):
                parsed = sum(size for _, size, _ in files if size <= max_bytes)
                cap = max(cap, -(-parsed // _TAR_RANGES))
            stamp = ""
            if source.kind == "zip":
                fs, path = _url_fs(str(source.path))
                stamp = str(fs.ukey(path))
            for unit in _units(str(source.path), source.kind, files, max_bytes, cap, stamp):
                yield i, unit

    todo = units()
    pending: deque[tuple[int, Unit, Any]] = deque()
    limit = _IN_FLIGHT_PER_THREAD * cluster.threads()

    def fill() -> None:
        for i, unit in todo:
            pending.append((i, unit, cluster.submit(run_unit, unit, parser, fallback)))
            if len(pending) >= limit:
                return

    fill()
    while pending:
        i, unit, future = pending.popleft()
        out = cluster.result(future)
        fill()
        batch = []
        results = []
        for path, size, (sha, result) in zip(unit.paths, unit.sizes, out, strict=True):
            file = JavaFile(i, path, size, None)
            batch.append(file)
            if result is not None:
                results.append((file, result))
            if sha is not None and i in digests:
                digests[i].update(f"{path}\0{sha}\n".encode())
            elif sha is not None:
                sources[i].sha256 = sha
        yield batch, results
    for i, digest in digests.items():
        sources[i].sha256 = digest.hexdigest()
