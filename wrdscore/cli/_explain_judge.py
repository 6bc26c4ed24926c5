"""``wrdscore explain --judge-url URL --judge-model M``: the judge's prompt and reply."""

from __future__ import annotations

import json
from typing import Any

import typer

from wrdscore.errors import WrdscoreError


def explain_judge(
    options: dict[str, Any],
    reference: str | None,
    prediction: str,
    code: str | None,
    target: str,
    language: str | None,
    fmt: str,
) -> None:
    """Print the messages the judge sends for one pair, its replies and their ratings."""
    from wrdscore.cli._explain_code import read_code_arg
    from wrdscore.metrics import get_metric

    if code is None and reference is None:
        raise WrdscoreError("give REFERENCE PREDICTION, or PREDICTION with --code")
    judge = get_metric("judge", target=target, language=language, **options)
    source = None if code is None else read_code_arg(code)
    seen = judge.explain(reference, prediction, source)  # type: ignore[attr-defined]
    if fmt == "json":
        typer.echo(json.dumps(seen, indent=2, ensure_ascii=False))
        return
    for message in seen["messages"]:
        typer.echo(f"--- {message['role']}")
        typer.echo(message["content"])
    for reply in seen["replies"]:
        typer.echo(f"--- reply (seed {reply['seed']}, {reply['model']})")
        typer.echo(reply["reply"] if reply["reply"] is not None else "(empty)")
        if "ratings" in reply:
            read = ", ".join(f"{k} {v:.2f}" for k, v in reply["ratings"].items())
            typer.echo(f"read as: {read} (1-5 mapped to 0-1)")
        else:
            typer.echo(f"not a rating: {reply['invalid']}")
    typer.echo(seen["signature"])
