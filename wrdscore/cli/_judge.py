"""The judge's command-line options, shared by ``score``, ``compare``, ``explain`` and
``study analyze``: each command takes them as one :class:`JudgeOptions` parameter
(declared with :func:`judge_options`) and reads them with :meth:`JudgeOptions.settings`.

They are the ``judge`` metric's own options (``--set judge.OPTION=VALUE`` gives the
rest), in a help panel of their own; the judge package is not imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path  # a field's type: typer reads it at run time
from typing import Any

from wrdscore.cli._option_group import flag, option, option_group
from wrdscore.errors import only_with

_PANEL = "LLM judge (-m judge)"


def _judge_option(flag: str, help: str) -> Any:
    return option(flag, help, rich_help_panel=_PANEL)


#: The judge metric's keyword for an option whose field is named otherwise.
_KEYWORDS = {"url": "base_url", "jobs": "concurrency"}


@dataclass(frozen=True)
class JudgeOptions:
    """The ``--judge-*`` options as given (``None``: not given); fields in ``--help``'s order."""

    url: str | None = _judge_option(
        "--judge-url", "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1."
    )
    model: str | None = _judge_option("--judge-model", "Model to ask for.")
    key_env: str | None = _judge_option(
        "--judge-key-env", "Variable holding the API key \\[default: OPENAI_API_KEY]."
    )
    samples: int | None = _judge_option(
        "--judge-samples",
        "Replies per pair, averaged (needs judge.temperature > 0) \\[default: 1].",
    )
    # A field, not a shared default (ruff cannot tell: Path is not known immutable).
    cache: Path | None = _judge_option(  # noqa: RUF009
        "--judge-cache", "SQLite file of answers \\[default: judge.sqlite in the cache folder]."
    )
    jobs: int | None = _judge_option("--judge-jobs", "Requests at once \\[default: 4].")
    timeout: float | None = _judge_option("--judge-timeout", "Seconds per request \\[default: 60].")
    format: str | None = _judge_option(
        "--judge-format",
        "Reply format asked for: json_schema, object_schema (llama-cpp-python's "
        "server), json_object or none \\[default: json_schema].",
    )

    def settings(
        self, metrics: list[str], per_metric: dict[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """``per_metric`` with the options given as the judge's options (a ``--set
        judge.X`` wins); a one-line error when they are given without ``-m judge``."""
        given = {f: v for f in fields(self) if (v := getattr(self, f.name)) is not None}
        if not given:
            return per_metric
        if "judge" not in metrics:
            raise only_with([flag(f) for f in given], "-m judge")
        options = {_KEYWORDS.get(f.name, f.name): v for f, v in given.items()}
        return {**per_metric, "judge": {**options, **per_metric.get("judge", {})}}


#: The decorator of a command with a ``judge: JudgeOptions`` parameter: on the command
#: line, the options ``--judge-url`` ... ``--judge-format`` in its place.
judge_options = option_group("judge", JudgeOptions)


def show_judging(metrics: list[Any], bar: Any) -> None:
    """A progress line counting the judge's answers as they come (a run of hundreds of
    requests would otherwise show nothing until its one chunk is done)."""
    for m in metrics:
        if m.name == "judge":
            task = bar.add_task("judge: answers", total=None)
            m.report = lambda k, task=task: bar.advance(task, k)
