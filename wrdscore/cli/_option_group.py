"""Options that several commands take together, declared once as a dataclass.

typer reads a command's options from its parameters, one parameter an option, so a family
of options shared by several commands (the judge's eight, the encoder's five) would be
written out again in each. Instead its options are a dataclass's fields, each holding its
``typer.Option``, and :func:`option_group` turns a command's one parameter of that class
into the fields' parameters for typer, and their values back into one instance for the
command.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

import typer

Command = TypeVar("Command", bound=Callable[..., Any])


def option(flag: str, help: str, **kwargs: Any) -> Any:
    """A dataclass field that is the option ``flag``; ``None`` when it is not given.

    ``kwargs`` go to ``typer.Option`` (``rich_help_panel``, ...).
    """
    return declared(typer.Option(None, flag, help=help, **kwargs))


def declared(info: Any) -> Any:
    """A dataclass field that is ``info``, a ``typer.Option(None, ...)`` declared elsewhere:
    one that commands outside the group take as well, so that its help is written once."""
    return dataclasses.field(default=None, metadata={"option": info})


def flag(field: dataclasses.Field[Any]) -> str:
    """The option a field of :func:`option` is (``--judge-url``), for messages."""
    return str(field.metadata["option"].param_decls[0])


def option_group(parameter: str, group: type) -> Callable[[Command], Command]:
    """A decorator: the command's ``parameter`` becomes the options of the dataclass ``group``.

    Each field ``F`` of ``group`` is a parameter ``{parameter}_{F}`` of the command as
    typer sees it, in the place of ``parameter`` (so ``--help`` lists them where it
    stood), typed as the field and with the field's option as its default; the command
    itself is called with ``parameter=group(F=value, ...)``.
    """
    fields = dataclasses.fields(group)
    # Real types, not the strings that postponed annotations leave: typer reads them.
    types = get_type_hints(group)

    def decorate(command: Command) -> Command:
        signature = inspect.signature(command)
        params = list(signature.parameters.values())
        at = [p.name for p in params].index(parameter)
        names = {f.name: f"{parameter}_{f.name}" for f in fields}
        expanded = [
            inspect.Parameter(
                names[f.name],
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=f.metadata["option"],
                annotation=types[f.name],
            )
            for f in fields
        ]

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            values = {f.name: kwargs.pop(names[f.name], f.default) for f in fields}
            return command(*args, **kwargs, **{parameter: group(**values)})

        # typer reads the signature, and the annotations for their types (they win).
        run.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*params[:at], *expanded, *params[at + 1 :]]
        )
        hints = {k: v for k, v in command.__annotations__.items() if k != parameter}
        run.__annotations__ = {**hints, **{p.name: p.annotation for p in expanded}}
        return run  # type: ignore[return-value]

    return decorate
