"""What the scoring commands share: the code options, and how hints are printed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from wrdscore.errors import WrdscoreError, counted, only_with

#: ``--code-support``: shared by the commands that read code.
CODE_SUPPORT_OPTION = typer.Option(
    None,
    "--code-support",
    help="The support model that turns a metric's match in the code into code support: "
    "distinct-coverage (summaries: what they find in the code and what of it they cover, "
    "each word once; names as src69-copied), src69-copied (round 4's copied-share gate), "
    "jdk17-seq (round 2's priors, R0), coverage (as distinct-coverage, every occurrence "
    "counted) or none (the match alone) \\[default: distinct-coverage for wrd, "
    "src69-copied for the others]; the signature records it (prior:NAME).",
)


#: ``--strings``, ``--set`` and ``--rescale`` as ``score`` and ``compare`` take them
#: (``explain`` and ``study analyze`` say them otherwise).
STRINGS_OPTION = typer.Option(
    None, "--strings", help="String literals in code: drop or keep \\[default: drop]."
)
SET_OPTION = typer.Option(
    [], "--set", help="A metric option, METRIC.OPTION=VALUE (wrd.weights=idf); repeatable."
)
RESCALE_OPTION = typer.Option(
    False, "--rescale", help="Rescale embedding metrics: (s - b) / (1 - b), b from the model."
)
#: ``--allow-unmasked`` as ``score`` and ``compare`` take it (``explain`` says it otherwise).
ALLOW_UNMASKED_OPTION = typer.Option(
    False,
    "--allow-unmasked",
    help="With --target name: score code whose name cannot be masked (read in its "
    "language it declares no function, or not the 'name' given) unmasked, counted in "
    "a note (signature mask:name-if-declared), instead of refusing it.",
)


def check_sources(refs: Path | None, code: Path | None, corpus: Path | None, verb: str) -> bool:
    """Refuse a ``score`` or ``compare`` (``verb``) that is given no references, code or
    corpus, or a corpus with either of the others; True where it reads code."""
    if corpus is not None and (refs is not None or code is not None):
        raise WrdscoreError("--corpus gives the references and the code: drop --refs and --code")
    if refs is None and code is None and corpus is None:
        raise WrdscoreError(f"nothing to {verb} against: give --refs, --code or --corpus")
    return code is not None or corpus is not None


def corpus_reading(metrics: Iterable[Any]) -> tuple[str, bool]:
    """How a ``--corpus`` is read for ``metrics``: the target of the references (the
    metrics' first code scorer's), and whether the methods' source must be decoded
    (where some metric keeps string literals; else a stored corpus's identifiers do).

    Raises
    ------
    WrdscoreError
        A metric that cannot score against code (its own one-line refusal), or the
        judge, which has no code scorer to read a corpus with.
    """
    metrics = list(metrics)
    for m in metrics:
        m.check_reads_code()
    if any(m.name == "judge" for m in metrics):
        # A corpus keeps what scoring reads, not always the source the judge shows.
        raise WrdscoreError("-m judge reads --code CODE.jsonl, not --corpus")
    scorers = [m.code_scorer for m in metrics if m.code_scorer is not None]
    return scorers[0].target, any(c.strings != "drop" for c in scorers)


def code_options(
    code: bool,
    target: str | None,
    code_weight: float | None,
    strings: str | None,
    code_support: str | None = None,
) -> dict[str, Any]:
    """The code options given on the command line, checked (none without code: each
    would be ignored); :func:`with_code_options` gives each metric those it takes."""
    given = {
        "--target": target,
        "--code-weight": code_weight,
        "--strings": strings,
        "--code-support": code_support,
    }
    if not code:
        stray = [k for k, v in given.items() if v is not None]
        if stray:
            raise only_with(stray, "--code or --corpus")
        return {}
    if code_weight is not None and not 0.0 <= code_weight <= 1.0:
        # repr, not :g: 1.0000001 must not print as the 1 it is refused against.
        raise WrdscoreError(f"--code-weight must be from 0 to 1, not {code_weight!r}")
    if code_support is not None:
        from wrdscore.metrics.code import support_model

        support_model(code_support)  # an unknown name is refused before anything loads
    out: dict[str, Any] = {}
    for key, value in (
        ("target", target),
        ("code_weight", code_weight),
        ("strings", strings),
        ("code_support", code_support),
    ):
        if value is not None:
            out[key] = value
    return out


def check_code_weight(code_weight: float | None, refs: Path | None, corpus: Path | None) -> None:
    """Refuse ``--code-weight`` without references (``--refs`` or ``--corpus``): it weighs
    the code against them in ``combined``, which code alone does not give, so it changed
    nothing but the signature (``cw:``)."""
    if code_weight is not None and refs is None and corpus is None:
        raise only_with(["--code-weight"], "--refs (combined = (1 - w) ref + w code)")


def add_allow_unmasked(shared: dict[str, Any], allowed: bool, code: bool) -> None:
    """Add ``--allow-unmasked`` (``allowed``) to the ``shared`` code options; refused
    without code (``code`` False), where it would be ignored."""
    if allowed:
        if not code:
            raise WrdscoreError("--allow-unmasked applies to code: give --code or --corpus")
        shared["allow_unmasked"] = True


def unmasked_note(methods: int) -> str:
    """The note on ``methods`` scored unmasked under ``--allow-unmasked`` ('' for none)."""
    if not methods:
        return ""
    their = "its" if methods == 1 else "their"
    return (
        f"{counted(methods, 'method')} scored unmasked (--allow-unmasked): read in {their} "
        "language, the code declares no function or not the name given, so a true name "
        "may be copied from it"
    )


def with_code_options(
    metrics: list[str],
    per_metric: dict[str, dict[str, Any]],
    shared: dict[str, Any],
    language: str | None,
    code: Path | None,
    corpus: Path | None,
) -> dict[str, dict[str, Any]]:
    """Each metric's options with the code options given on the command line (a
    ``--set`` for one metric wins), and the code's language: ``--language``, or a
    corpus's own. A metric gets only the code options it takes
    (:meth:`~wrdscore.metrics.Metric.taken_code_options`); one given that no metric
    reading the code takes is refused."""
    if language is not None and code is None:
        why = "a corpus records its languages" if corpus is not None else "give --code"
        raise WrdscoreError(f"--language applies to --code snippets: {why}")
    given = {**shared, **({} if language is None else {"language": language})}
    if corpus is not None:
        # A corpus of one language other than Java says so (ingest --language python).
        from wrdscore.corpora import open_corpus

        said = open_corpus(corpus).manifest.get("language")
        if isinstance(said, str) and said != "all":
            # Like --target: every metric reads the code in it (its signature: lang:python).
            shared = {**shared, "language": said}
    if not given and not shared:
        return per_metric
    from wrdscore.metrics.base import metric_class

    takes = {n: metric_class(n).taken_code_options() for n in dict.fromkeys(metrics)}
    readers = [n for n, options in takes.items() if options]
    # A metric that reads no code at all says so when it is asked to (cannot score
    # against code); one that reads it without this option (the judge, which has no
    # code support to weigh) refuses the option rather than ignore it.
    for key in given:
        if readers and not any(key in takes[n] for n in readers):
            why = "; ".join(f"{n}: {metric_class(n).no_code_reason}" for n in readers)
            flag = "--" + key.replace("_", "-")
            raise WrdscoreError(f"{flag} does not apply to {', '.join(readers)} ({why})")
    options = {**shared, **given}
    # Options --set for a metric not being scored are kept, so that build_metrics
    # refuses them as it does without code options, rather than they vanish here.
    return per_metric | {
        n: {**{k: v for k, v in options.items() if k in takes[n]}, **per_metric.get(n, {})}
        for n in takes
    }


def echo_hints(hints: Iterable[str | None]) -> None:
    """Each hint as a ``hint:`` line on standard error (after the output it is about)."""
    for hint in filter(None, hints):
        typer.echo(f"hint: {hint}", err=True)
