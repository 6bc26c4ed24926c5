"""The helper scripts under scripts/: bad arguments give one line, not a traceback or a run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import HUNG
from corpus_fixtures import method_record, run_script, write_records

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("script", "bad", "usage"),
    [
        (
            "build_default_model.sh",
            [["--bogus"], ["--download_only"], ["--help"], ["--download-only", "x"]],
            "[--download-only]",
        ),
        (
            "build_encoder_default.sh",
            [[], ["--help"], ["code"], ["code", "corpus", "x", "y"], ["code", "corpus", "--help"]],
            "CODE_MODEL_DIR CORPUS_DIR [OUTPUT]",
        ),
    ],
)
def test_build_scripts_refuse_unknown_arguments(script, bad, usage):
    # Their last stage overwrites the bundled model: a typo or --help must stop it at once.
    for args in bad:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / script), *args],
            capture_output=True,
            text=True,
            timeout=HUNG,
        )
        assert done.returncode == 2, args
        assert done.stdout == ""
        assert done.stderr == f"usage: scripts/{script} {usage}\n"


def corpus_without_constraints(tmp_path: Path) -> Path:
    """A corpus of three unrelated methods (an existing folder with a manifest)."""
    recs = [method_record(n, c) for n, c in (("open", "A"), ("parse", "B"), ("draw", "C"))]
    return write_records(tmp_path / "few", recs)


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("paper_examples.py", ["--embeddings", "{none}"], "embeddings {none} do not exist"),
        ("model_card_tables.py", ["x={none}"], "embeddings {none} do not exist"),
        ("model_card_tables.py", ["bad"], "'bad' is not LABEL=PATH"),
        ("model_card_tables.py", ["a={none}", "a={none}"], "label 'a' is given twice"),
        ("segment_words.py", ["--src-zip", "{none}"], "{none} does not exist"),
        (
            "segment_words.py",
            ["--src-zip", "{few}/manifest.json", "--output", "{few}/manifest.json"],
            "{few}/manifest.json exists; give --force to replace it",
        ),
        ("segment_accuracy.py", ["--src-zip", "{none}"], "{none} does not exist"),
    ],
)
def test_bad_input_is_one_error_line(tmp_path, script, args, message):
    where = {"none": str(tmp_path / "none")}
    where["few"] = str(corpus_without_constraints(tmp_path))
    done = run_script(script, *(a.format(**where) for a in args))
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {message.format(**where)}")
    assert done.stderr.count("\n") == 1 and done.stderr.endswith("\n")
    assert done.stdout == ""


def test_model_card_tables_has_help():
    done = run_script("model_card_tables.py", "--help")
    assert done.returncode == 0
    assert "LABEL=PATH [LABEL=PATH ...]" in done.stdout


SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_script_does_nothing_on_import_and_imports_no_other_script(path):
    # pytest imports every file of scripts/ for its doctests, so importing one must only
    # define things; and scripts share code through the package or a `_` helper module
    # beside them, never by importing another script or editing sys.path.
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {p.stem for p in SCRIPTS}
    for node in tree.body:
        if isinstance(node, ast.If):
            assert ast.unparse(node.test) == "__name__ == '__main__'", f"{path.name}:{node.lineno}"
        else:
            allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)
            allowed += (ast.AnnAssign, ast.Expr)  # Expr: the docstring
            assert isinstance(node, allowed), f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Expr):
                assert isinstance(node.value, ast.Constant), f"{path.name}:{node.lineno}"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else []
            modules += [] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for module in modules:
                top = (module or "").split(".")[0]
                assert top not in names or top.startswith("_"), f"{path.name} imports {module}"
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.path":
            raise AssertionError(f"{path.name}:{node.lineno} uses sys.path")
