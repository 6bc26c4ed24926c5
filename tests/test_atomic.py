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
