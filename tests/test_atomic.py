import pytest

from wrdscore.atomic import atomic_dir, atomic_write
from wrdscore.errors import WrdscoreError


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_dir_refuses_existing_without_force(tmp_path):
    out = tmp_path / "corpus"
    out.mkdir()
    with pytest.raises(WrdscoreError, match="--force"), atomic_dir(out):
        pass


def test_atomic_dir_replaces_with_force_and_cleans_up_on_error(tmp_path):
    out = tmp_path / "corpus"
    with atomic_dir(out) as tmp:
        (tmp / "a").write_text("1")
    with pytest.raises(KeyboardInterrupt), atomic_dir(out, force=True) as tmp:
        (tmp / "b").write_text("2")
        raise KeyboardInterrupt
    assert sorted(p.name for p in out.iterdir()) == ["a"]
    with atomic_dir(out, force=True) as tmp:
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in out.iterdir()) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_get_the_mode_of_any_new_file(tmp_path, umask):
    # mkstemp/mkdtemp make private (0600/0700) temporaries; the renamed outputs must
    # have the modes the umask gives a new file or folder, or shared models are unreadable.
    import os

    old = os.umask(umask)
    try:
        with atomic_write(tmp_path / "f.txt") as fh:
            fh.write("x")
        with atomic_dir(tmp_path / "d") as d:
            (d / "inner.txt").write_text("y")
    finally:
        os.umask(old)
    assert (tmp_path / "f.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o777 & ~umask
