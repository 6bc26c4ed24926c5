"""The ``judge`` metric: an LLM rates each prediction through an OpenAI-compatible server.

See :class:`Judge`. The prompts are in :mod:`._prompts`, the cache in :mod:`._cache`,
the requests in :mod:`._client`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import (
    DEFAULT_TARGET,
    MAX_CODE_CHARS,
    TARGETS,
    capped_code,
    clean_prediction,
)
from wrdscore.corpus_inputs import StoredCode
from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics._code_read import CodeItem, code_item
from wrdscore.metrics._metric import Metric
from wrdscore.metrics._registry import register
from wrdscore.metrics._result import ScoreResult
from wrdscore.metrics._tokenise import Prediction, Reference, Tokens
from wrdscore.metrics._validate import ItemError, check_flag
from wrdscore.metrics.judge._cache import AnswerCache, default_cache_path, request_key
from wrdscore.metrics.judge._client import Endpoint, ask_all
from wrdscore.metrics.judge._prompts import (
    CRITERIA,
    InvalidReply,
    mask_name,
    messages,
    parse_reply,
    prompt_hash,
    reply_schema,
)

#: How the reply's form is asked for: a JSON schema the server enforces, in OpenAI's
#: form (``response_format`` of type ``json_schema``: OpenAI, vLLM, llama.cpp's
#: llama-server, Ollama) or as the ``schema`` of a ``json_object`` format (the form
#: llama-cpp-python's server takes); any JSON object; or the prompt's words alone.
FORMATS = ("json_schema", "object_schema", "json_object", "none")

#: The counts a result keeps in its ``cuts`` (summed over a file's chunks by the engine).
_COUNTS = ("replies", "asked", "invalid", "prompt_tokens", "completion_tokens", "ms")


def _positive_int(option: str, value: object, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise WrdscoreError(f"judge: {option} must be an integer >= {low}, not {value!r}")
    return value


def _positive_number(option: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise WrdscoreError(f"judge: {option} must be a number > 0, not {value!r}")
    return float(value)


@register
class Judge(Metric):
    """An LLM's rating of each prediction, from a fixed rubric, cached on disk.

    The judge sends each pair to an OpenAI-compatible chat endpoint (a hosted API,
    vLLM, Ollama, llama.cpp's server) with a rubric written from the published rating
    instructions (:mod:`wrdscore.metrics.judge._prompts`), the method's code when given
    (the method's name masked for names) and the reference when given, and reads the
    reply as JSON, strictly. Ratings of 1-5 become ``(r - 1) / 4``. Nothing is contacted
    unless a scoring call has something the cache lacks.

    Values: ``score`` (for names, how well the name says what the method does; for
    summaries, content adequacy), and for summaries also ``conciseness`` and ``fluency``.
    Scored against the code alone the first value is called ``code``, as every metric's
    value against the code is.

    A reply that is not a rating (not JSON, other keys, a number out of range, cut at
    ``max_tokens``) is counted and never scored: with several samples a pair is the mean
    of its valid ones; a pair with no valid reply at all has no score that would not
    bias the mean (0 would charge the prediction for the judge's failure), so the call
    fails, after every other answer is cached, naming how many and the first.

    Parameters
    ----------
    base_url : str
        The endpoint, e.g. ``http://127.0.0.1:8080/v1``. Required: nothing is contacted
        unless asked.
    model : str
        The model to ask for. Required. The signature records the model as the server
        names it in its replies.
    key_env : str
        The environment variable holding the API key (default ``OPENAI_API_KEY``; local
        servers need none).
    samples : int
        Replies per pair, averaged (seeds ``seed`` ... ``seed + samples - 1``); more
        than one needs a ``temperature`` above 0.
    temperature : float
        0 by default (the most likely reply).
    seed : int
        Sent with every request, for servers that take one.
    max_tokens : int
        Most tokens of a reply (default 64: the JSON needs about 20).
    format : {"json_schema", "object_schema", "json_object", "none"}
        How the reply's form is asked for (see :data:`FORMATS`); llama-cpp-python's
        server needs ``"object_schema"``.
    cache : path, optional
        The SQLite file of answers (default: ``judge.sqlite`` in the user's cache folder).
    concurrency : int
        Requests in flight at once (default 4).
    timeout : float
        Seconds per request (default 60).
    retries : int
        Further tries of a request that timed out, could not connect, or met a 429 or
        5xx, each after ``backoff * 2**k`` seconds (default 3 and 0.5).

    Attributes
    ----------
    report : callable or None
        Called with 1 for every answer received (a progress bar's advance).
    """

    name = "judge"
    keys = ("score",)
    primary = "score"
    # Threads and an open SQLite file: scored in the calling process, never in forks.
    in_process = True
    # Built only with a server and a model: code that builds every metric from its
    # defaults leaves it out.
    needs_model = True
    #: No code support to mix with a reference value: the judge reads the code whole,
    #: in its prompt, and rates the prediction once (see :meth:`check_reads_code`).
    code_key: ClassVar[str | None] = None
    no_code_reason = (
        "it has no code support of its own to mix: it shows the code to the model and "
        "rates the prediction once"
    )

    def __init__(
        self,
        embeddings: object = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        samples: int = 1,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 64,
        format: str = "json_schema",
        cache: str | os.PathLike[str] | None = None,
        concurrency: int = 4,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        **options: Any,
    ) -> None:
        target = options.pop("target", DEFAULT_TARGET)
        language = options.pop("language", None)
        # The other code options are refused (taken_code_options): the code is shown
        # whole, its name masked as scoring masks it, with no code support to weigh.
        super().__init__(**options)
        if target not in TARGETS:
            raise WrdscoreError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if language is not None:
            from wrdscore.corpora import check_language

            check_language(language)
        #: What the predictions are (``name`` or ``summary``): the rubric asked.
        self.target: str = target
        #: The language every code item is shown in (None: each item's own, or told).
        self.language: str | None = language
        if not isinstance(base_url, str) or not base_url:
            raise WrdscoreError("the judge needs a server: --judge-url URL (Python: base_url=)")
        if not isinstance(model, str) or not model:
            raise WrdscoreError("the judge needs a model: --judge-model NAME (Python: model=)")
        if format not in FORMATS:
            choices = ", ".join(FORMATS)
            raise WrdscoreError(f"judge: format must be one of {choices}, not {format!r}")
        self.samples = _positive_int("samples", samples)
        if not isinstance(temperature, int | float) or not 0.0 <= temperature <= 2.0:
            raise WrdscoreError(f"judge: temperature must be from 0 to 2, not {temperature!r}")
        if self.samples > 1 and temperature == 0:
            raise WrdscoreError(
                "judge: several samples at temperature 0 are the same reply; "
                "give a temperature above 0"
            )
        self.base_url, self.model, self.format = base_url.rstrip("/"), model, format
        self.temperature = float(temperature)
        self.seed = _positive_int("seed", seed, 0)
        self.max_tokens = _positive_int("max_tokens", max_tokens)
        self.cache_path = Path(cache).expanduser() if cache is not None else default_cache_path()
        self.endpoint = Endpoint(
            base_url=self.base_url,
            key_env=key_env,
            concurrency=_positive_int("concurrency", concurrency),
            timeout=_positive_number("timeout", timeout),
            retries=_positive_int("retries", retries, 0),
            backoff=_positive_number("backoff", backoff),
        )
        check_flag("clean", self.clean)
        #: The model as the server named it in its last answers (None before any).
        self.served_model: str | None = None
        self.report: Callable[[int], None] | None = None

    # -- what the engine asks of every metric ---------------------------------------

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray]:
        # Never reached: score() is overridden, the judge reads text, not tokens.
        raise NotImplementedError("the judge rates text; call score()")

    @classmethod
    def taken_code_options(cls) -> tuple[str, ...]:
        """What the predictions are, and the language the code is shown in."""
        return ("target", "language")

    def check_reads_code(self) -> None:
        """The judge reads any method's code (shown to the model); nothing to refuse."""

    def result_keys(self, code: bool = False, references: bool = True) -> tuple[str, ...]:
        """``score`` (``code`` against the code alone), and for summaries ``conciseness``
        and ``fluency``."""
        first = "score" if references or not code else "code"
        return (first, *CRITERIA[self.target][1:])

    def _corpus_values(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        """The mean of every value over the pairs (the judge's ``code`` is a rating like
        its ``score``, with no ``combined`` to mix)."""
        return {k: s / pairs for k, s in sums.items()}

    def _signature_fields(self) -> dict[str, str]:
        served = (self.served_model or self.model).replace("|", "/")
        return {
            "model": served,
            "prompt": prompt_hash(self.target),
            "t": f"{self.temperature:g}",
            "n": str(self.samples),
            "seed": str(self.seed),
            "fmt": self.format,
            "tgt": self.target,
        }

    @property
    def signature(self) -> str:
        """``judge|model:<served>|prompt:<hash>|t:0|n:1|seed:0|fmt:...|tgt:name|v:...``."""
        return self._signature_with_only({})

    @property
    def code_signature(self) -> str:
        """:attr:`signature` with ``code:yes`` and the language the code is read in."""
        return self._signature_with_only({"code": "yes", "lang": self.language or "auto"})

    def _signature_with_only(self, extra: dict[str, str]) -> str:
        from wrdscore import __version__

        fields = {**self._signature_fields(), **extra, "v": __version__}
        if self.clean:
            fields = {**fields, "clean": "yes"}
        return "|".join(["judge", *(f"{k}:{v}" for k, v in fields.items())])

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        """The run in one line: replies, how many were asked (the rest came from the
        cache), invalid ones, tokens and the server's time."""
        if not cuts.get("replies"):
            return ""
        line = (
            f"judge: {counted(cuts['replies'], 'reply', 'replies')}, "
            f"{cuts.get('asked', 0):,} asked, {cuts['replies'] - cuts.get('asked', 0):,} "
            f"from the cache; {cuts.get('prompt_tokens', 0):,} prompt and "
            f"{cuts.get('completion_tokens', 0):,} reply tokens, "
            f"{cuts.get('ms', 0) / 1000:.1f} s of requests"
        )
        if cuts.get("invalid"):
            line += (
                f"; {counted(cuts['invalid'], 'reply', 'replies')} not a valid rating, "
                "not scored (the pairs' other samples were)"
            )
        return line

    # -- scoring -------------------------------------------------------------------

    def score(
        self,
        references: Sequence[Reference] | None,
        predictions: Sequence[Prediction],
        *,
        code: Sequence[CodeItem] | None = None,
        allow_empty_reference: bool = False,
        progress: Callable[[int], None] | None = None,
        index_offset: int = 0,
    ) -> ScoreResult:
        """Rate every prediction (see the class); the arguments are
        :meth:`Metric.score`'s. Empty predictions score 0 without being asked."""
        if isinstance(predictions, str):
            raise WrdscoreError("predictions must be a list of items, not one string")
        preds = [self._text(p, "prediction", index_offset + i) for i, p in enumerate(predictions)]
        if references is None and code is None:
            raise WrdscoreError("references may be None only when code is given (code=...)")
        refs: list[str | None] = [None] * len(preds)
        if references is not None:
            if isinstance(references, str):
                raise WrdscoreError("references must be a list of items, not one string")
            refs = [
                self._text(r, "reference", index_offset + i, reference=True)
                for i, r in enumerate(references)
            ]
            if len(refs) != len(preds):
                raise WrdscoreError(
                    f"{len(refs)} references but {len(preds)} predictions; "
                    "every prediction needs exactly one reference item"
                )
        codes: list[tuple[str, str] | None] = [None] * len(preds)
        if code is not None:
            if isinstance(code, str):
                raise WrdscoreError(
                    "code must be a list of items (one per prediction), not one string"
                )
            code = list(code)
            if len(code) != len(preds):
                raise WrdscoreError(
                    f"{len(code)} code items but {len(preds)} predictions; "
                    "every prediction needs the code of its method"
                )
            codes = [self._code(c, index_offset + i) for i, c in enumerate(code)]
        if not preds:
            raise WrdscoreError("nothing to score: no pairs")
        empty_refs = [i for i, r in enumerate(refs) if r is not None and not r.strip()]
        if empty_refs and not allow_empty_reference:
            raise ItemError("reference", index_offset + empty_refs[0], "has no text")
        # An empty prediction (or an allowed empty reference) scores 0 unasked.
        skipped = set(empty_refs)
        asked = [i for i, p in enumerate(preds) if p.strip() and i not in skipped]
        values, counts = self._rate(
            [(refs[i], preds[i], codes[i]) for i in asked], index_offset, asked
        )
        keys = self.result_keys(code is not None, references is not None)
        full = {k: np.zeros(len(preds)) for k in keys}
        for key, criterion in zip(keys, CRITERIA[self.target], strict=True):
            full[key][asked] = values[criterion]
        if progress is not None:
            progress(len(preds))
        return ScoreResult(
            metric=self.name,
            signature=self.signature if code is None else self.code_signature,
            values=full,
            primary=keys[0],
            corpus={k: float(np.mean(v)) for k, v in full.items()},
            empty_predictions=sum(1 for p in preds if not p.strip()),
            cuts={k: v for k, v in counts.items() if v},
        )

    def _text(self, item: object, side: str, i: int, reference: bool = False) -> str:
        """An item as the text shown to the model (token lists joined by spaces)."""
        if isinstance(item, str):
            text = item
        elif isinstance(item, list | tuple) and all(isinstance(t, str) for t in item):
            text = " ".join(item)
        elif reference and isinstance(item, list | tuple):
            raise ItemError(side, i, "is a list of alternatives: the judge reads one reference")
        else:
            raise ItemError(side, i, "must be a string or a list of strings")
        if not reference and self.clean:
            text = clean_prediction(text)
        return text

    def _code(self, item: CodeItem, i: int) -> tuple[str, str] | None:
        """``(code as shown, language)`` of one code item, read as scoring reads it
        (:func:`~wrdscore.corpora.read_method`): the name it masks replaced for names,
        the documentation it keeps apart left out for summaries (a reference summary is
        usually its first sentence)."""
        from wrdscore.corpora import code_language, read_method

        if item is None:
            return None
        said: str | None = None
        name: str | None
        if isinstance(item, StoredCode):
            stored = item.code
            if stored is None:
                raise ItemError("code", i, "was not read from the corpus (the judge reads source)")
            source, name, said = stored, item.name, item.language
        else:
            source, name = code_item(item, i)
        try:
            language = self.language or said
            if len(source) > MAX_CODE_CHARS:
                # Told before the cut: a cut SourceCode is a plain str.
                language = language or code_language(source)
                source = capped_code(source)[0]
            read = read_method(source, target=self.target, name=name, language=language)
        except WrdscoreError as exc:
            raise ItemError("code", i, f"cannot be read: {exc}") from None
        if self.target == "name":
            return mask_name(source, read.masked), read.language
        if read.docstring:
            source = source.replace(read.docstring, "")
        return source, read.language

    def _requests(
        self, ref: str | None, pred: str, code: tuple[str, str] | None
    ) -> list[tuple[str, dict[str, Any]]]:
        """The requests of one pair (one per sample) with their cache keys."""
        sent = messages(
            self.target,
            pred,
            reference=ref,
            code=None if code is None else code[0],
            language=None if code is None else code[1],
        )
        out = []
        for s in range(self.samples):
            request: dict[str, Any] = {
                "model": self.model,
                "messages": sent,
                "temperature": self.temperature,
                "seed": self.seed + s,
                "max_tokens": self.max_tokens,
            }
            if self.format == "json_schema":
                schema = {"name": "rating", "schema": reply_schema(self.target), "strict": True}
                request["response_format"] = {"type": "json_schema", "json_schema": schema}
            elif self.format == "object_schema":
                request["response_format"] = {
                    "type": "json_object",
                    "schema": reply_schema(self.target),
                }
            elif self.format == "json_object":
                request["response_format"] = {"type": "json_object"}
            out.append((request_key(request), request))
        return out

    def explain(
        self, reference: str | None, prediction: str, code: CodeItem = None
    ) -> dict[str, Any]:
        """One pair as the judge sees it: the messages sent, every sample's reply and
        what was read from it (the ratings on 0-1, or why the reply is not one), and the
        signature. Asks the server only for what the cache lacks.

        Returns
        -------
        dict
            ``messages``, ``replies`` (one ``{"seed", "model", "reply", "ratings" or
            "invalid"}`` per sample), ``signature``.
        """
        if reference is None and code is None:
            raise WrdscoreError("give a reference, the method's code, or both")
        shown = None if code is None else self._code(code, 0)
        requests = self._requests(reference, self._text(prediction, "prediction", 0), shown)
        cache = AnswerCache(self.cache_path)
        try:
            ask_all(requests, cache, self.endpoint, self.report)
            replies: list[dict[str, Any]] = []
            for key, request in requests:
                answer = cache.get(key)
                assert answer is not None
                self.served_model = answer.model
                entry: dict[str, Any] = {
                    "seed": request["seed"],
                    "model": answer.model,
                    "reply": answer.reply,
                }
                try:
                    entry["ratings"] = parse_reply(answer.reply, self.target)
                except InvalidReply as exc:
                    entry["invalid"] = str(exc)
                replies.append(entry)
        finally:
            cache.close()
        return {
            "messages": requests[0][1]["messages"],
            "replies": replies,
            "signature": self.signature if code is None else self.code_signature,
        }

    def _rate(
        self,
        items: list[tuple[str | None, str, tuple[str, str] | None]],
        offset: int,
        positions: list[int],
    ) -> tuple[dict[str, NDArray[np.float64]], dict[str, int]]:
        """Each item's mean valid rating per criterion, and the run's counts."""
        criteria = CRITERIA[self.target]
        per_item = [self._requests(*item) for item in items]
        counts = dict.fromkeys(_COUNTS, 0)
        cache = AnswerCache(self.cache_path)
        try:
            counts["asked"] = ask_all(
                [r for requests in per_item for r in requests],
                cache,
                self.endpoint,
                self.report,
            )
            values = {c: np.zeros(len(items)) for c in criteria}
            failed: list[tuple[int, str]] = []
            for k, requests in enumerate(per_item):
                valid: list[dict[str, float]] = []
                why = ""
                for key, _ in requests:
                    answer = cache.get(key)
                    assert answer is not None  # ask_all stored every one or raised
                    self.served_model = answer.model
                    counts["replies"] += 1
                    counts["prompt_tokens"] += answer.prompt_tokens
                    counts["completion_tokens"] += answer.completion_tokens
                    counts["ms"] += round(answer.seconds * 1000)
                    try:
                        valid.append(parse_reply(answer.reply, self.target))
                    except InvalidReply as exc:
                        counts["invalid"] += 1
                        why = why or str(exc)
                if not valid:
                    failed.append((offset + positions[k], why))
                    continue
                for c in criteria:
                    values[c][k] = math.fsum(v[c] for v in valid) / len(valid)
        finally:
            cache.close()
        if failed:
            first, why = failed[0]
            raise WrdscoreError(
                f"judge: {counted(len(failed), 'pair')} got no valid rating (pair {first + 1}: "
                f"{why}); no score is given for a failed reply. Every answer is kept in "
                f"{self.cache_path}: try samples > 1 with a temperature, another format "
                "or a stronger model"
            )
        return values, counts
