"""The judge's command-line options, shared by ``score``, ``compare``, ``explain`` and
``study analyze``: each command takes them as one :class:`JudgeOptions` parameter
(declared with :func:`judge_options`) and reads them with :meth:`JudgeOptions.settings`.

They are the ``judge`` metric's own options (``--set judge.OPTION=VALUE`` gives the
rest), in a help panel of their own, checked here in the command line's words (the
judge's checks name its keywords, ``samples``, ``concurrency``); the judge package is
imported only to read its formats, when ``--judge-format`` is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path  # a field's type: typer reads it at run time
from typing import Any

from wrdscore.cli._option_group import flag, option, option_group
from wrdscore.errors import WrdscoreError, only_with

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
        self, metrics: list[str], per_metric: dict[str, dict[str, Any]], *, sets: bool = True
    ) -> dict[str, dict[str, Any]]:
        """``per_metric`` with the options given as the judge's options (a ``--set
        judge.X`` wins); a one-line error when they are given without ``-m judge``.
        ``sets``: whether the command takes ``--set`` (the judge's temperature)."""
        given = {f: v for f in fields(self) if (v := getattr(self, f.name)) is not None}
        if not given:
            return per_metric
        if "judge" not in metrics:
            raise only_with([flag(f) for f in given], "-m judge")
        options = {_KEYWORDS.get(f.name, f.name): v for f, v in given.items()}
        judged = {**options, **per_metric.get("judge", {})}
        self._check(judged.get("temperature"), sets)
        return {**per_metric, "judge": judged}

    def _check(self, temperature: object, sets: bool) -> None:
        """Refuse a bad value given, naming its option (``temperature``: the judge's,
        from ``--set``, where the command takes it; several samples need one above 0)."""
        for name, value in (("--judge-samples", self.samples), ("--judge-jobs", self.jobs)):
            if value is not None and value < 1:
                raise WrdscoreError(f"{name} must be at least 1, not {value}")
        if self.timeout is not None and not (math.isfinite(self.timeout) and self.timeout > 0):
            raise WrdscoreError(f"--judge-timeout must be seconds above 0, not {self.timeout}")
        if self.format is not None:
            from wrdscore.metrics.judge import FORMATS

            if self.format not in FORMATS:
                raise WrdscoreError(
                    f"--judge-format must be one of {', '.join(FORMATS)}, not {self.format!r}"
                )
        if self.samples is not None and self.samples > 1 and not temperature:
            how = (
                "give a temperature above 0 (--set judge.temperature=0.7)"
                if sets
                else "this command cannot set one (score and compare take --set "
                "judge.temperature=0.7)"
            )
            raise WrdscoreError(
                f"--judge-samples {self.samples}: several samples at temperature 0 are the "
                f"same reply; {how}"
            )


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
