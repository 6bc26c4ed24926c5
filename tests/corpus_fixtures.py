"""Small corpora written the way ``wrdscore ingest`` writes them, and a runner for the
scripts that read them, for tests."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from wrdscore.atomic import atomic_dir
from wrdscore.corpora import CorpusWriter, split_identifier


def method_record(
    name: str, cls: str = "T", summary: str | None = None, context: str | None = None
) -> dict[str, Any]:
    """One method of class ``cls`` in ``cls.java``; ``context`` only when given (format 2)."""
    out: dict[str, Any] = {
        "name": name,
        "tokens": split_identifier(name),
        "type": cls,
        "path": f"{cls}.java",
        "line": 1,
        "summary": summary,
        "source": 0,
    }
    if context is not None:
        out["context"] = context
    return out


def write_records(
    folder: Path, records: Iterable[dict[str, Any]], manifest: dict[str, Any] | None = None
) -> Path:
    """Write ``records`` as a corpus folder (label ``fixture`` unless ``manifest`` says)."""
    with atomic_dir(folder) as tmp, CorpusWriter(tmp) as w:
        for r in records:
            w.write(r)
        w.write_manifest({"label": "fixture", **(manifest or {})})
    return folder


#: Two Javadoc summaries, each written on two names in different classes that differ in
#: one token: ``blank``/``empty`` is mined as a synonym from them.
EMPTY = "Returns true if the text holds no characters at all."
EMPTY2 = "Checks that a buffer has no content whatsoever."


def blank_empty_records(classes: str = "ABCD") -> list[dict[str, Any]]:
    """``isEmpty``/``isBlank`` sharing :data:`EMPTY` and ``emptyBuffer``/``blankBuffer``
    sharing :data:`EMPTY2`, one method in each of four ``classes``: the synonym
    ``blank``/``empty`` from two summaries."""
    names = [
        ("isEmpty", EMPTY),
        ("isBlank", EMPTY),
        ("emptyBuffer", EMPTY2),
        ("blankBuffer", EMPTY2),
    ]
    return [method_record(n, c, doc) for (n, doc), c in zip(names, classes, strict=True)]


def specialise_records() -> list[dict[str, Any]]:
    """A getter/setter class repeated four times (contrasts ``get``/``set`` and
    ``name``/``value``) and the ``blank``/``empty`` synonym of :data:`EMPTY`."""
    siblings = [
        method_record(n, c)
        for c in ("A", "B", "C", "D")
        for n in ("getName", "setName", "getValue", "setValue")
    ]
    return [*siblings, *blank_empty_records("EFGH")]


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` imported as module ``NAME`` (once), for tests of its functions."""
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/SCRIPT`` on a corpus fixture as a user would, with this checkout's package."""
    root = Path(__file__).resolve().parents[1]
    return subprocess.run(
        [sys.executable, str(root / "scripts" / script), *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def encrypted_zip(path: Path) -> Path:
    """A zip whose one member, ``A.java``, is flagged encrypted, as ``zip -P`` writes it.

    zipfile cannot encrypt; setting bit 0 of the member's flags in its local and
    central headers is what makes an archive reader ask for a password.
    """
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("A.java", b"class A { void alpha() {} }")
    data = bytearray(path.read_bytes())
    for header, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        data[data.index(header) + flags_at] |= 0x1
    path.write_bytes(bytes(data))
    return path


def fasttext_model_dir(folder: Path) -> Path:
    """A tiny FastText MODEL_DIR (4 dims, 64 n-gram buckets), for subword-vector tests.

    The bundled default is a fusion without subword vectors, so tests of FastText's
    unseen-token vectors train their own.
    """
    from gensim.models import FastText

    from wrdscore.embeddings import save_embeddings

    model = FastText(vector_size=4, min_count=1, bucket=64, seed=1, workers=1)
    words = ["get", "size", "set", "name", "fetch", "remove", "delete", "idx", "index", "value"]
    sentences = [[a, b] for a, b in zip(words, words[1:] + words[:1], strict=True)] * 5
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=2)
    return save_embeddings(model.wv, folder, meta={"name": "ft", "n_docs": 50}, doc_freq={})


def terminal_sigint() -> None:
    """``preexec_fn`` for a child that a test interrupts with SIGINT, as a terminal would.

    A process started in the background (``nohup``, ``&``, some CI runners) inherits
    SIGINT ignored, and Python then never turns it into KeyboardInterrupt; a terminal's
    foreground job has it at its default, which this restores.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: Java's keywords (reserved, contextual and literal): no identifier may be one of them.
_KEYWORD_TEXT = (
    "abstract assert boolean break byte case catch char class const continue default do "
    "double else enum extends final finally float for goto if implements import "
    "instanceof int interface long native new package private protected public return "
    "short static strictfp super switch synchronized this throw throws transient try void "
    "volatile while true false null var yield record sealed permits non exports module "
    "open opens requires to uses provides with transitive when"
)
JAVA_KEYWORDS = frozenset(_KEYWORD_TEXT.split())


def java_identifiers(longest: int) -> Any:
    """A hypothesis strategy of Java identifiers of 1 to ``longest`` characters."""
    from hypothesis import strategies as st

    return st.from_regex(rf"[A-Za-z_$][A-Za-z0-9_$]{{0,{longest - 1}}}", fullmatch=True).filter(
        lambda s: s not in JAVA_KEYWORDS and s != "_"
    )
