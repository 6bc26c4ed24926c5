"""What every command shares: the error-handling group, exit codes, tables, options."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from wrdscore.cli._tables import print_tables
from wrdscore.errors import WrdscoreError

try:  # typer 0.27 vendors click as a private copy; older typers use the click package
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - typer < 0.27
    from click.exceptions import ClickException, UsageError  # type: ignore[assignment,no-redef]

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
#: A reader that went away (``... | head``): the status rich's tables exit with then
#: (``Console.on_broken_pipe``), so every command ends the same way.
EXIT_BROKEN_PIPE = 1


class Group(TyperGroup):
    """Turns user errors anywhere below it into one-line messages."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; click's usage errors become one ``error:`` line, exit 2.

        Every parse error of every command (a missing or unknown option, a value of the
        wrong type or not among the choices) is raised to the root group's ``main``,
        wherever it happens, so this is the one place that reports them. typer would
        print a five-line box with the usage; ``docs/errors.md`` promises one line.
        """
        run = super().main
        if not standalone_mode:  # a caller that handles click's exceptions itself
            return run(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            # Not standalone: click raises its errors here instead of printing them.
            # It then returns the exit code of a typer.Exit, or the command's return
            # value (None for every command here).
            code = run(args, prog_name, complete_var, standalone_mode=False, **extra)
        except UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                # A group called without a command: its help is already printed.
                sys.exit(exc.exit_code)
            typer.echo(usage_error_line(exc), err=True)
            sys.exit(EXIT_USER_ERROR)
        except ClickException as exc:
            typer.echo(f"error: {_one_line(exc.format_message())}", err=True)
            sys.exit(EXIT_USER_ERROR)
        except typer.Abort:  # Ctrl-D at a prompt
            typer.echo("aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    # ctx is a plain click Context, not a typer.Context: the click package's in older
    # typer, typer's private vendored copy in 0.27; no public name covers both.
    def invoke(self, ctx: Any) -> Any:
        try:
            # typer.echo flushes each line, so a closed pipe shows up here, not in the
            # flush at exit.
            return super().invoke(ctx)
        except WrdscoreError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except BrokenPipeError:
            # The reader went away (``wrdscore corpus pairs DIR | head``): stop quietly,
            # as the Unix tools do, instead of reporting an error nobody asked about.
            # stdout is pointed at /dev/null so the flush at exit cannot fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            typer.echo(f"error: {exc.strerror or exc}{where}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except KeyboardInterrupt:
            # Every output is renamed into place whole, so what was not reported as
            # written was not; but train reports its model before adding baselines.
            typer.echo("interrupted: no partial output was left", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _one_line(message: str) -> str:
    """A message on one line, starting lower-case and without a final full stop."""
    text = " ".join(message.split()).rstrip(".")
    return text[:1].lower() + text[1:]


def usage_error_line(exc: Any) -> str:
    """``error: no such option: --bogus (see wrdscore train --help)``: one line.

    Parameters
    ----------
    exc : click UsageError
        What click raised while parsing the command line.
    """
    line = f"error: {_one_line(exc.format_message())}"
    ctx = getattr(exc, "ctx", None)
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        line += f" (see {ctx.command_path} {ctx.help_option_names[0]})"
    return line


def print_table(
    heading: str, table: Table, *, narrow: Table | None = None, stderr: bool = False
) -> Console:
    """Print a heading line, then the table (a rich title would wrap to the table's width).

    Parameters
    ----------
    heading : str
        The line above the table.
    table : rich Table
        The table as it reads best.
    narrow : rich Table, optional
        The same data turned a quarter (a row per column of ``table``), printed instead
        when ``table`` is wider than the terminal: rich would cut every value to
        ``0.…`` to fit it.
    stderr : bool
        Print to standard error (standard output carries other data).

    Returns
    -------
    Console
        The console printed on, for lines that follow the table.
    """
    from rich.console import Console

    console = Console(stderr=stderr)
    wide = console.options.update_width(10_000)
    if not console.is_terminal:
        # A pipe or file has no width to fit, and rich assumes 80 columns: a table of many
        # metrics would print its values cut to "0.…". Give it the width it needs.
        console.width = max(console.width, console.measure(table, options=wide).maximum)
    elif narrow is not None and console.measure(table, options=wide).maximum > console.width:
        table = narrow
    console.print(heading, highlight=False, soft_wrap=True)
    # Where even the narrow table does not fit, its columns go in blocks, none cut.
    return print_tables([table], console)


def wrote(path: object, detail: str = "") -> None:
    """Say on standard error that ``path`` was written (``wrote PATH: detail``).

    Every command says where its outputs went the same way, on standard error, so that
    standard output carries only data (``--format json``, ``--per-pair -``).
    """
    typer.echo(f"wrote {path}" + (f": {detail}" if detail else ""), err=True)


def typer_app(help: str, **kwargs: Any) -> typer.Typer:
    """A typer app (the root or a command group) whose errors become one-line messages."""
    return typer.Typer(cls=Group, help=help, no_args_is_help=True, **kwargs)


FORMATS = ("table", "json")


#: The largest seed gensim's generators take (numpy's take any seed of 0 or more): one
#: range for every command's --seed, as the training library checks it.
MAX_SEED = 2**32 - 1


def _check_seed(value: int) -> int:
    # numpy's and gensim's generators refuse other seeds with a traceback deep inside
    # the work (compare, baseline); refused here first, as a usage error.
    if not 0 <= value <= MAX_SEED:
        raise WrdscoreError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {value}")
    return value


def seed_option(default: int, help: str) -> Any:
    """The ``--seed`` option of every command: a whole number from 0 to :data:`MAX_SEED`."""
    return typer.Option(default, "--seed", help=help, callback=_check_seed)


def check_format(fmt: str) -> None:
    """Refuse an output format other than table or json."""
    if fmt not in FORMATS:
        raise WrdscoreError(f"unknown format {fmt!r}; choose table or json")


def metric_names(names: list[str] | None) -> list[str] | None:
    """The callback of every ``--metric`` option: names in any case (``-m WRD``) as they are
    registered, so that a ``--set wrd...`` of the same metric finds it."""
    from wrdscore.metrics import canonical_name

    return None if names is None else [canonical_name(n) for n in names]


def metric_options(specs: list[str]) -> dict[str, dict[str, Any]]:
    """``--set wrd.weights=idf`` -> ``{"wrd": {"weights": "idf"}}``; JSON values typed.

    The metric is named in any case, as with ``-m`` (:func:`metric_names`).
    """
    import json

    from wrdscore.metrics import canonical_name

    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        target, sep, raw = spec.partition("=")
        metric, dot, key = target.partition(".")
        if not (sep and dot and metric and key.isidentifier()):
            raise WrdscoreError(
                f"--set {spec!r}: expected METRIC.OPTION=VALUE, e.g. wrd.weights=idf"
            )
        try:
            value = json.loads(raw)  # true, 0.1, 3, "x"
        except json.JSONDecodeError:
            value = raw  # a bare word such as norm*idf
        out.setdefault(canonical_name(metric), {})[key] = value
    return out


# Options of every command that writes a MODEL_DIR or shows a progress bar.
FORCE_OPTION = typer.Option(False, "--force", help="Replace an existing MODEL_DIR.")
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="No progress bar or status lines.")
# Every command takes -q, so a script can pass it to each; these show no progress to hide.
QUIET_TAKEN_OPTION = typer.Option(
    False, "--quiet", "-q", help="Taken by every command; this one shows no progress anyway."
)
OOV_OPTION = typer.Option(
    "auto",
    "--oov",
    help="Unseen tokens: auto (subword when the model has subword vectors, else zero), "
    "zero, drop or subword.",
)

# How items become tokens, shared by every command that scores.
NO_SEGMENT_OPTION = typer.Option(
    False,
    "--no-segment",
    help="Keep run-together lower-case names whole (getuserbyid stays one unknown token), "
    "as the WRDScore paper tokenised. By default such a token is split into words when "
    "the model does not know it as a word, so a name as LLMs write it scores as its "
    "camelCase form (docs/scoring.md, 'Names as models write them').",
)
# Segmentation is the default now; --segment, its switch before, still runs
# the commands written then. Hidden: a --segment/--no-segment pair adds a column that
# cuts the longest option names.
SEGMENT_OPTION = typer.Option(False, "--segment", hidden=True)


def segment_setting(segment: bool, no_segment: bool) -> bool:
    """Whether to segment: yes unless ``--no-segment``; both given is an error."""
    if segment and no_segment:
        raise WrdscoreError("give --segment or --no-segment, not both")
    return not no_segment


CLEAN_OPTION = typer.Option(
    False,
    "--clean-predictions",
    help="Reduce chat models' replies to the name or summary they give: code fences, "
    "Javadoc markers and tags, Markdown emphasis, a lead-in ('The method name is ...'), "
    "quotes, a declaration or call around the name (docs/scoring.md lists every rule).",
)

# Encoder options that commands outside the --encoder family (wrdscore.cli._encoder_options)
# take too: one definition, one help.
LAYER_OPTION = typer.Option(None, "--layer", help="Encoder layer \\[default: the last].")
DEVICE_OPTION = typer.Option(
    None, "--device", help="Encoder device, cpu or cuda \\[default: cuda when available]."
)


def parse_weights(text: str, option: str) -> tuple[float, float]:
    """``"1,0.5"`` -> ``(1.0, 0.5)``: the two weights of a fusion."""
    parts = text.split(",")
    try:
        a, b = (float(p) for p in parts)
    except ValueError:
        raise WrdscoreError(f"{option} {text!r}: expected two numbers A,B, e.g. 1,0.5") from None
    return a, b
