"""The CLI's error contract: one line on stderr, a non-zero exit, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from conftest import HUNG
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore import __version__
from wrdscore.cli import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USER_ERROR, _Group, app
from wrdscore.errors import WrdscoreError


def _app_raising(exc: BaseException) -> typer.Typer:
    demo = typer.Typer(cls=_Group)

    @demo.command()
    def boom() -> None:
        raise exc

    @demo.command()
    def ok() -> None:
        typer.echo("fine")

    return demo


def test_user_error_is_one_line_exit_2():
    result = CliRunner().invoke(
        _app_raising(WrdscoreError("corpus folder x does not exist")), ["boom"]
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.strip() == "error: corpus folder x does not exist"
    assert "Traceback" not in result.output


def test_os_error_names_the_file():
    exc = FileNotFoundError(2, "No such file or directory", "refs.txt")
    result = CliRunner().invoke(_app_raising(exc), ["boom"])
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.strip() == "error: No such file or directory: refs.txt"


def test_ctrl_c_exits_130():
    result = CliRunner().invoke(_app_raising(KeyboardInterrupt()), ["boom"])
    assert result.exit_code == EXIT_INTERRUPTED
    assert "interrupted" in result.output


@pytest.mark.parametrize(
    "args",
    [
        # More output than a pipe's buffer: the write fails while the command runs.
        ["corpus", "pairs", "CORPUS", "--curated"],
        # One line (the header; the corpus has no synonyms).
        ["corpus", "pairs", "CORPUS", "--kind", "synonym"],
        # rich's tables end the same way.
        ["similarity", "default", "size", "count"],
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, args):
    # `wrdscore ... | head`: the reader closes the pipe before the command writes.
    write_records(tmp_path / "c", [method_record("getName", "A")])
    cmd = [sys.executable, "-c", "from wrdscore.cli import app; app()"]
    cmd += [str(tmp_path / "c") if a == "CORPUS" else a for a in args]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=HUNG) == EXIT_BROKEN_PIPE
    assert err == b""


def test_bugs_are_not_hidden():
    # Only user errors are turned into messages; a programming error must still surface.
    result = CliRunner().invoke(_app_raising(ZeroDivisionError("bug")), ["boom"])
    assert isinstance(result.exception, ZeroDivisionError)


def test_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"wrdscore {__version__}"


def _commands(group, prefix=()):
    """Every leaf command of the CLI with the words that call it."""
    import typer.main

    click_group = typer.main.get_command(group) if isinstance(group, typer.Typer) else group
    for name, cmd in click_group.commands.items():
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*prefix, name))
        else:
            yield (*prefix, name), cmd


def test_help_keeps_square_brackets():
    # Rich reads an unescaped [default: ...] as markup and drops it from --help.
    res = CliRunner().invoke(app, ["train", "--help"], env={"COLUMNS": "300"})
    assert res.exit_code == 0
    assert "Context window [default: the whole document for svd" in res.stdout
    res = CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "300"})
    assert "MODEL_DIR or vectors file [default: bundled model]." in res.stdout
    # Every help text with a bracket escapes it, so none is lost.
    for words, cmd in _commands(app):
        for param in cmd.params:
            text = getattr(param, "help", None) or ""
            assert text.count("[") == text.count("\\["), (words, param.name, text)


def test_python_dash_m_runs_the_same_command_line():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "wrdscore", "--version"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0 and done.stdout.startswith("wrdscore ")


def test_subword_vectors_asked_of_a_model_without_them_is_one_line(tmp_path):
    # A model with neither n-grams nor word pieces (an SVD or plain vectors file): the
    # error must say what to use instead.
    from wrdscore.embeddings import TokenEmbeddings, save_embeddings

    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "size": [0.0, 1.0]})
    meta = {"name": "debian-java-ft-50-cf+all-MiniLM-L6-v2-static-64-cf", "n_docs": None}
    model = save_embeddings(emb.kv, tmp_path / "m", meta=meta, doc_freq={})
    examples = Path(__file__).resolve().parents[1] / "examples"
    args = ["score", "--refs", str(examples / "refs.txt"), "--preds", str(examples / "preds.txt")]
    result = CliRunner().invoke(app, [*args, "--oov", "subword", "-e", str(model)])
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.strip() == (
        "error: embeddings 'debian-java-ft-50-cf+all-MiniLM-L6-v2-static-64-cf' have no "
        "subword vectors; use oov='zero' or 'drop', or a FastText or distilled model"
    )


def _leaf_words() -> list[tuple[str, ...]]:
    return [words for words, _ in _commands(app)]


#: Bad command lines click itself refuses (typer showed them as a five-line box).
USAGE_ERRORS = [
    # Every command, and every group, with an option it does not have.
    *[[*words, "--bogus"] for words in _leaf_words()],
    ["--bogus"],
    ["corpus", "--bogus"],
    ["study", "--bogus"],
    # Commands that do not exist, at every level.
    ["frobnicate"],
    ["corpus", "pars"],
    ["study", "frobnicate"],
    # A required option missing.
    ["train", "CORPUS", "-o", "m", "--dim", "0"],
    ["tune", "model", "-o", "out"],
    ["compare", "--refs", "refs.txt"],
    ["score", "--preds", "preds.txt"],
    ["study", "analyze"],
    ["study", "sample", "--refs", "a", "--preds", "b"],
    ["specialise", "model", "corpus"],
    ["distill", "encoder"],
    ["fuse", "a", "b"],
    ["ingest", "src"],
    # A required argument missing, or one too many.
    ["corpus", "stats"],
    ["corpus", "pairs"],
    ["explain", "getName"],
    ["fuse", "a", "b", "c", "-o", "m"],
    ["train", "-o", "m", "--method", "svd"],
    # A value of the wrong type.
    ["score", "--refs", "a", "--preds", "b", "--jobs", "abc"],
    ["train", "c", "-o", "m", "--method", "svd", "--dim", "big"],
    ["ingest", "src", "-o", "c", "--max-file-mb", "lots"],
    ["compare", "--refs", "a", "--preds", "b", "--preds", "c", "--resamples", "1e3"],
    ["tune", "m", "-o", "x", "--pairs", "p", "--lr", "fast"],
    ["distill", "enc", "-o", "m", "--layer", "last"],
    ["baseline", "c", "--pairs", "many"],
    ["neighbors", "get", "-k", "x"],
    ["corpus", "stats", "c", "--top", "all"],
    ["study", "sample", "--refs", "a", "--preds", "b", "-o", "s", "--sets", "two"],
    ["study", "analyze", "-o", "r", "--scale", "high"],
    # An option without its value.
    ["score", "--refs"],
    ["similarity", "a", "b", "-e"],
    ["explain", "a", "b", "--format"],
]


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_a_usage_error_is_one_line_and_exit_2(args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr and "╭" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_usage_errors_say_what_is_wrong_and_where_help_is():
    run = CliRunner().invoke
    result = run(app, ["train", "CORPUS", "-o", "m", "--dim", "0"], prog_name="wrdscore")
    assert result.stderr == "error: missing option '--method' (see wrdscore train --help)\n"
    result = run(app, ["corpus", "pars"], prog_name="wrdscore")
    assert result.stderr == (
        "error: no such command 'pars'. Did you mean 'pairs'? (see wrdscore corpus --help)\n"
    )


def test_the_installed_command_line_reports_usage_errors_in_one_line():
    # The real entry point (sys.exit from click's main), not the test runner.
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "wrdscore", "score", "--refs", "a", "--preds", "b", "-j", "x"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == EXIT_USER_ERROR
    assert done.stdout == ""
    assert done.stderr == (
        "error: invalid value for '--jobs' / '-j': 'x' is not a valid int "
        "(see wrdscore score --help)\n"
    )


def test_help_and_a_bare_group_still_show_the_help():
    result = CliRunner().invoke(app, ["train", "--help"])
    assert result.exit_code == 0 and "--method" in result.stdout and result.stderr == ""
    # A group without its command shows its help (click's exit code for it, 2).
    result = CliRunner().invoke(app, ["corpus"])
    assert result.exit_code == EXIT_USER_ERROR
    assert "stats" in result.stdout and result.stderr == ""


@pytest.mark.parametrize("side", ["--preds", "--refs"])
def test_a_pipe_as_input_is_refused_in_one_line(tmp_path, side):
    # `--preds <(...)` is a pipe: scoring reads each input twice (to count, then to
    # score), and the second read of a pipe found nothing (an IndexError). The FIFO is
    # never opened: refused from its type alone, so the test cannot block on it.
    fifo, plain = tmp_path / "fifo", tmp_path / "names.txt"
    os.mkfifo(fifo)
    plain.write_text("getName\n")
    files = {"--refs": plain, "--preds": plain, side: fifo}
    args = ["score", *(a for k, v in files.items() for a in (k, str(v)))]
    result = subprocess.run(
        [sys.executable, "-m", "wrdscore", *args], capture_output=True, text=True, timeout=HUNG
    )
    assert result.returncode == EXIT_USER_ERROR, result.stderr
    assert result.stderr.strip() == (
        f"error: {fifo}: not a regular file (a pipe or device can be read only once, and "
        "scoring reads each input twice): write it to a file first"
    )


_EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _encoder_commands(out: Path) -> dict[tuple[str, ...], list[str]]:
    """Every command that takes --encoder, with arguments that reach its options' check."""
    refs, preds = str(_EXAMPLES / "refs.txt"), str(_EXAMPLES / "preds.txt")
    return {
        ("score",): ["--refs", refs, "--preds", preds],
        ("explain",): ["getName", "getUserName"],
        ("compare",): ["--refs", refs, "--preds", preds, "--preds", preds],
        ("baseline",): ["MODEL_DIR", "CORPUS"],
        ("study", "sample"): ["--refs", refs, "--preds", preds, "-o", str(out)],
        ("study", "analyze"): ["-o", str(out), "--pairs", "wrdscore-paper"],
    }


@pytest.mark.parametrize(
    ("stray", "error"),
    [
        (["--layer", "2"], "--layer only applies with --encoder"),
        (
            ["--layer", "1", "--device", "cpu", "--batch-size", "3", "--fuse-weights", "1,1"],
            "--layer, --device, --batch-size, --fuse-weights only apply with --encoder",
        ),
    ],
)
def test_every_encoder_command_refuses_the_encoder_options_without_it(tmp_path, stray, error):
    # The options are declared once (cli._encoder_options) and refused in one place: each
    # command that takes them refuses them alike, and writes nothing.
    commands = _encoder_commands(tmp_path / "out")
    taking = {w for w, cmd in _commands(app) if any("--encoder" in p.opts for p in cmd.params)}
    assert taking == set(commands)
    for words, args in commands.items():
        result = CliRunner().invoke(app, [*words, *args, *stray])
        assert result.exit_code == EXIT_USER_ERROR, (words, result.output)
        assert result.stderr == f"error: {error}\n", words
        assert not (tmp_path / "out").exists(), words
