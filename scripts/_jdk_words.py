"""OpenJDK 17's ``src.zip`` read for the segmentation word list: shared by two scripts.

``segment_words.py`` builds ``wrdscore/data/segment_words.txt.gz`` with these functions
and ``segment_accuracy.py`` scores candidate lists built with them; both import this
module (a script's own folder is on ``sys.path`` when it runs). The package split, the
names and identifier words read, and the list's order are described in
``segment_words.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import wordninja  # type: ignore[import-untyped]

from wrdscore.atomic import atomic_write
from wrdscore.corpora import split_identifier

SRC_ZIP = Path("/usr/lib/jvm/openjdk-17/lib/src.zip")
WIKIPEDIA = Path(wordninja.__file__).parent / "wordninja" / "wordninja_words.txt.gz"
SINGLE_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# Comments, then string and character literals: what is left is code.
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_LITERALS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
# A member declaration: a modifier, the type, then the name before "(", "=" or ";".
_MEMBER = re.compile(
    r"\b(?:public|protected|private|static|final|abstract|synchronized|native|default)\s"
    r"[^;{}=()]*?\b([a-z][A-Za-z0-9]*)\s*[(=;]"
)
#: Names used for accuracy: ASCII letters only, lowerCamelCase.
_NAME = re.compile(r"[a-z]+(?:[A-Z]+[a-z]*)+")


def part_of(package: str) -> str:
    """``build``, ``dev`` or ``test``: the split a package directory of src.zip belongs to."""
    bucket = int(hashlib.sha1(package.encode()).hexdigest(), 16) % 10
    return "test" if bucket < 2 else "dev" if bucket < 4 else "build"


def java_files(src_zip: Path) -> Iterator[tuple[str, str]]:
    """(split, code without comments and literals) of every ``.java`` file of src.zip."""
    with zipfile.ZipFile(src_zip) as z:
        for info in z.infolist():
            if not info.filename.endswith(".java"):
                continue
            package = info.filename.rpartition("/")[0]
            text = z.read(info).decode("utf-8", "replace")
            yield part_of(package), _LITERALS.sub(" ", _COMMENTS.sub(" ", text))


def require(src_zip: Path) -> None:
    """A one-line error when ``src_zip`` is missing."""
    if not src_zip.is_file():
        sys.exit(
            f"error: {src_zip} does not exist; install it (apt-get install openjdk-17-source) "
            "or give --src-zip"
        )


def read_jdk(src_zip: Path) -> tuple[Counter[str], dict[str, set[str]]]:
    """Sub-token counts of the build packages, and the member names of each split."""
    require(src_zip)
    counts: Counter[str] = Counter()
    names: dict[str, set[str]] = {"build": set(), "dev": set(), "test": set()}
    for part, code in java_files(src_zip):
        if part == "build":
            for ident in _IDENTIFIER.findall(code):
                counts.update(t for t in split_identifier(ident) if t.isalpha())
        names[part].update(n for n in _MEMBER.findall(code) if _NAME.fullmatch(n))
    return counts, names


def wikipedia_words() -> list[str]:
    """wordninja's bundled list (English Wikipedia unigrams, most frequent first)."""
    with gzip.open(WIKIPEDIA, "rt", encoding="utf-8") as f:
        return [w for w in f.read().split() if w.isalpha()]


def code_list(
    counts: Counter[str], min_count: int, single_letters: str, english: bool
) -> list[str]:
    """Code words by frequency (ties alphabetical), then the English words they lack."""
    words = [
        w
        for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))
        if c >= min_count and (len(w) > 1 or w in single_letters)
    ]
    if english:
        seen = set(words)
        words += [
            w for w in wikipedia_words() if w not in seen and (len(w) > 1 or w in single_letters)
        ]
    return words


def write_list(words: list[str], path: Path) -> None:
    # mtime=0: the same words give the same bytes, so a rebuild shows no spurious change.
    # The header names the final file, not atomic_write's temporary one.
    with (
        atomic_write(path, "wb") as raw,
        gzip.GzipFile(str(path), "wb", fileobj=raw, mtime=0) as f,
    ):
        f.write(("\n".join(words) + "\n").encode())
