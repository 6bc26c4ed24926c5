"""The judge's command-line options, shared by ``score``, ``compare``, ``explain`` and
``study analyze``: each command declares them and hands them to :func:`judge_settings`.

They are the ``judge`` metric's own options (``--set judge.OPTION=VALUE`` gives the
rest), in a help panel of their own; the judge package is not imported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from wrdscore.errors import only_with

_PANEL = "LLM judge (-m judge)"

JUDGE_URL_OPTION = typer.Option(
    None,
    "--judge-url",
    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1.",
    rich_help_panel=_PANEL,
)
JUDGE_MODEL_OPTION = typer.Option(
    None, "--judge-model", help="Model to ask for.", rich_help_panel=_PANEL
)
JUDGE_KEY_ENV_OPTION = typer.Option(
    None,
    "--judge-key-env",
    help="Variable holding the API key \\[default: OPENAI_API_KEY].",
    rich_help_panel=_PANEL,
)
JUDGE_SAMPLES_OPTION = typer.Option(
    None,
    "--judge-samples",
    help="Replies per pair, averaged (needs judge.temperature > 0) \\[default: 1].",
    rich_help_panel=_PANEL,
)
JUDGE_CACHE_OPTION = typer.Option(
    None,
    "--judge-cache",
    help="SQLite file of answers \\[default: judge.sqlite in the cache folder].",
    rich_help_panel=_PANEL,
)
JUDGE_JOBS_OPTION = typer.Option(
    None, "--judge-jobs", help="Requests at once \\[default: 4].", rich_help_panel=_PANEL
)
JUDGE_TIMEOUT_OPTION = typer.Option(
    None,
    "--judge-timeout",
    help="Seconds per request \\[default: 60].",
    rich_help_panel=_PANEL,
)
JUDGE_FORMAT_OPTION = typer.Option(
    None,
    "--judge-format",
    help="Reply format asked for: json_schema, object_schema (llama-cpp-python's "
    "server), json_object or none \\[default: json_schema].",
    rich_help_panel=_PANEL,
)


def judge_settings(
    metrics: list[str],
    per_metric: dict[str, dict[str, Any]],
    url: str | None,
    model: str | None,
    key_env: str | None,
    samples: int | None,
    cache: Path | None,
    jobs: int | None,
    timeout: float | None,
    reply_format: str | None = None,
) -> dict[str, dict[str, Any]]:
    """``per_metric`` with the ``--judge-*`` options given as the judge's options (a
    ``--set judge.X`` wins); a one-line error when they are given without ``-m judge``."""
    given = {
        "base_url": ("--judge-url", url),
        "model": ("--judge-model", model),
        "key_env": ("--judge-key-env", key_env),
        "samples": ("--judge-samples", samples),
        "cache": ("--judge-cache", cache),
        "concurrency": ("--judge-jobs", jobs),
        "timeout": ("--judge-timeout", timeout),
        "format": ("--judge-format", reply_format),
    }
    options = {k: v for k, (_, v) in given.items() if v is not None}
    if not options:
        return per_metric
    if "judge" not in metrics:
        raise only_with([flag for flag, v in given.values() if v is not None], "-m judge")
    return {**per_metric, "judge": {**options, **per_metric.get("judge", {})}}


def show_judging(metrics: list[Any], bar: Any) -> None:
    """A progress line counting the judge's answers as they come (a run of hundreds of
    requests would otherwise show nothing until its one chunk is done)."""
    for m in metrics:
        if m.name == "judge":
            task = bar.add_task("judge: answers", total=None)
            m.report = lambda k, task=task: bar.advance(task, k)
