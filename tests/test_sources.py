"""Finding Java files in folders, single files and archives, streamed without unpacking."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from corpus_fixtures import encrypted_zip

from wrdscore.corpora import iter_java_files, open_sources
from wrdscore.corpora._sources import count_java_files
from wrdscore.errors import WrdscoreError

FILES = {
    "src/main/java/a/A.java": b"class A { void alpha() {} }",
    "src/main/java/a/b/B.java": b"class B { void beta() {} }",
    "README.md": b"# not java",
    "lib/C.java": b"class C {}",
}
JAVA = sorted(name for name in FILES if name.endswith(".java"))


def _folder(root: Path) -> Path:
    for name, data in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("src/", b"")  # a folder entry, skipped
        for name, data in sorted(FILES.items()):
            archive.writestr(name, data)
    return path


def _tar(path: Path, mode: str) -> Path:
    with tarfile.open(path, mode) as archive:
        for name, data in sorted(FILES.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def _listed(paths, max_bytes=1 << 20):
    sources = open_sources(paths)
    files = [(f.source, f.path, f.size, f.data) for f in iter_java_files(sources, max_bytes)]
    return sources, files


def test_folder_is_walked_recursively_in_sorted_order_with_relative_paths(tmp_path):
    root = _folder(tmp_path / "proj")
    sources, files = _listed([root])
    assert [(s, p, d) for s, p, _, d in files] == [(0, name, FILES[name]) for name in JAVA]
    assert sources[0].kind == "folder" and sources[0].files == 3
    assert sources[0].size == sum(len(FILES[n]) for n in JAVA)


def test_folder_hash_changes_with_content_and_names(tmp_path):
    root = _folder(tmp_path / "proj")
    first = _listed([root])[0][0].sha256
    assert _listed([root])[0][0].sha256 == first
    (root / "lib/C.java").write_bytes(b"class C { }")
    assert _listed([root])[0][0].sha256 != first


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("src.tar", "w"),
        ("src.tar.gz", "w:gz"),
        ("src.tgz", "w:gz"),
        ("src.tar.xz", "w:xz"),
        ("src.tar.bz2", "w:bz2"),
    ],
)
def test_tar_archives_give_the_same_files_as_the_folder(tmp_path, name, mode):
    archive = _tar(tmp_path / name, mode)
    sources, files = _listed([archive])
    assert [(p, d) for _, p, _, d in files] == [(n, FILES[n]) for n in JAVA]
    assert sources[0].kind == "tar"
    assert sources[0].sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert sources[0].size == archive.stat().st_size


@pytest.mark.parametrize("name", ["src.zip", "lib-sources.jar"])
def test_zip_and_jar_archives(tmp_path, name):
    archive = _zip(tmp_path / name)
    sources, files = _listed([archive])
    assert [(p, d) for _, p, _, d in files] == [(n, FILES[n]) for n in JAVA]
    assert sources[0].sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()


def test_single_java_file_and_mixed_sources_keep_their_index(tmp_path):
    single = tmp_path / "Main.java"
    single.write_bytes(b"class Main {}")
    archive = _zip(tmp_path / "src.zip")
    sources, files = _listed([single, archive])
    assert files[0] == (0, "Main.java", 13, b"class Main {}")
    assert {s for s, *_ in files[1:]} == {1}
    assert sources[0].sha256 == hashlib.sha256(b"class Main {}").hexdigest()


def test_files_over_the_limit_are_listed_but_not_read(tmp_path):
    root = _folder(tmp_path / "proj")
    (root / "Big.java").write_bytes(b"x" * 100)
    _, files = _listed([root], max_bytes=50)
    assert ("Big.java", 100, None) in [(p, n, d) for _, p, n, d in files]
    tar = _tar(tmp_path / "a.tar.gz", "w:gz")
    _, files = _listed([tar], max_bytes=10)
    assert [(p, d) for _, p, _, d in files] == [
        ("lib/C.java", b"class C {}"),  # exactly 10 bytes: at the limit, still read
        ("src/main/java/a/A.java", None),
        ("src/main/java/a/b/B.java", None),
    ]


def test_missing_source(tmp_path):
    with pytest.raises(WrdscoreError, match="does not exist"):
        open_sources([tmp_path / "nope"])


def test_no_source_at_all():
    with pytest.raises(WrdscoreError, match="no SOURCE"):
        open_sources([])


def test_unsupported_file_kind(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(WrdscoreError, match=r"is not a folder, \.java file"):
        open_sources([tmp_path / "notes.txt"])


def test_source_without_java_files(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README").write_text("nothing")
    with pytest.raises(WrdscoreError, match=r"contains no \.java files"):
        _listed([tmp_path / "empty"])


@pytest.mark.parametrize("name", ["bad.zip", "bad.tar.gz", "bad.tar.xz"])
def test_garbage_archive(tmp_path, name):
    (tmp_path / name).write_bytes(b"this is not an archive at all" * 10)
    with pytest.raises(WrdscoreError, match=rf"broken archive .*{name}"):
        _listed([tmp_path / name])


@pytest.mark.parametrize(
    ("name", "mode", "keep"),
    [
        ("src.tar.gz", "w:gz", 0.5),
        ("src.tar.xz", "w:xz", 0.5),
        ("src.tar.bz2", "w:bz2", 0.5),
        ("src.tar", "w", 520 / 10240),  # inside the first member's data
    ],
)
def test_truncated_tar(tmp_path, name, mode, keep):
    archive = _tar(tmp_path / name, mode)
    data = archive.read_bytes()
    archive.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(WrdscoreError, match="broken archive"):
        _listed([archive])


def test_zip_with_a_corrupt_member(tmp_path):
    archive = tmp_path / "src.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("A.java", b"class A { void alpha() {} }")
    data = bytearray(archive.read_bytes())
    at = data.index(b"alpha")
    data[at] = ord("A")  # the stored CRC no longer matches
    archive.write_bytes(bytes(data))
    with pytest.raises(WrdscoreError, match=r"broken archive .*CRC"):
        _listed([archive])


def test_zip_with_an_encrypted_member_is_a_one_line_error(tmp_path):
    archive = encrypted_zip(tmp_path / "enc.zip")
    with pytest.raises(WrdscoreError) as raised:
        _listed([archive])
    assert str(raised.value) == (
        f"archive {archive}: member A.java is encrypted (password required); "
        "unpack the archive with its password and ingest the folder"
    )


def test_the_file_count_is_known_for_folders_zips_and_java_files(tmp_path, monkeypatch):
    root = _folder(tmp_path / "proj")
    single = tmp_path / "Main.java"
    single.write_bytes(b"class Main {}")
    archive = _zip(tmp_path / "src.zip")
    walks = []
    rglob = Path.rglob
    monkeypatch.setattr(
        Path, "rglob", lambda self, pattern: walks.append(self) or rglob(self, pattern)
    )
    sources = open_sources([root, single, archive])
    assert count_java_files(sources) == 3 + 1 + 3
    assert len(list(iter_java_files(sources, 1 << 20))) == 7
    assert walks == [root.resolve()]  # the count's walk of the folder is the one read


def test_no_file_count_with_a_tar_archive(tmp_path):
    # A tar has no index: counting would decompress it all once more.
    sources = open_sources([_folder(tmp_path / "proj"), _tar(tmp_path / "src.tar.gz", "w:gz")])
    assert count_java_files(sources) is None


def test_counting_a_broken_zip_is_the_reading_error(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK not a zip")
    with pytest.raises(WrdscoreError, match=r"broken archive .*bad\.zip"):
        count_java_files(open_sources([bad]))
