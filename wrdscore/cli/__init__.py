"""The ``wrdscore`` command: one typer app that parses arguments and calls the library.

No logic lives here beyond turning options into library calls and results into
tables or JSON. Each command group has its own module (:mod:`.corpora`,
:mod:`.embeddings`, :mod:`.encoders`, :mod:`.scoring`, :mod:`.study`, :mod:`.tune`);
errors a user can fix (:class:`~wrdscore.errors.WrdscoreError`, file-system errors) become
``error: <one line>`` on stderr and exit code 2; Ctrl-C exits 130 after the library
has cleaned up its temporary outputs. The libraries are imported inside the commands,
so ``wrdscore --help`` and each command only pay for what they use.
"""

from __future__ import annotations

import typer

from wrdscore import __version__
from wrdscore.cli import corpora, embeddings, encoders, scoring, study, tune
from wrdscore.cli._common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    Group,
    typer_app,
)

# The name the tests and older code use for the error-handling group.
_Group = Group

app = typer_app(
    "Score predicted code identifiers with WRDScore and its family.",
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"wrdscore {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version."
    ),
) -> None:
    """wrdscore: judge how good a predicted code identifier is."""


# The order of `wrdscore --help`: scoring first, what most users come for.
for group in (scoring, corpora, embeddings, encoders, tune, study):
    group.register(app)

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_USER_ERROR", "app"]
