"""Asking an OpenAI-compatible chat endpoint: bounded concurrency, time-outs, retries.

The ``openai`` package (the ``judge`` extra) is imported here only, when a run has
something to ask: the registry, ``wrdscore score`` with other metrics, and a run answered
wholly from the cache never import it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics.judge._cache import Answer, AnswerCache


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask: the server, the key's variable and the request limits."""

    base_url: str
    key_env: str
    concurrency: int
    timeout: float
    retries: int
    backoff: float


class _Retry(Exception):
    """A failure worth another try (time-out, refused connection, 429, 5xx)."""


def _client(endpoint: Endpoint) -> Any:
    try:
        import openai
    except ImportError:
        raise WrdscoreError(
            "the judge needs the openai package: pip install 'wrdscore[judge]'"
        ) from None
    # Local servers (llama.cpp, vLLM, Ollama) take any key; the client insists on one.
    key = os.environ.get(endpoint.key_env) or "none"
    # Retries are ours (counted, with the same backoff for every error kind).
    return openai.OpenAI(
        base_url=endpoint.base_url, api_key=key, timeout=endpoint.timeout, max_retries=0
    )


def _ask_once(client: Any, request: dict[str, Any]) -> Answer:
    import openai

    start = time.perf_counter()
    try:
        response = client.chat.completions.create(**request)
    except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
        # APITimeoutError is an APIConnectionError.
        raise _Retry(_first_line(exc)) from None
    except openai.APIStatusError as exc:
        hint = ""
        if exc.status_code in (400, 422) and "response_format" in request:
            # Servers differ in the form of schema they take (judge.format).
            hint = "; if it is the reply format, try --judge-format object_schema or none"
        raise WrdscoreError(f"the server refused the request: {_first_line(exc)}{hint}") from None
    usage = getattr(response, "usage", None)
    choice = response.choices[0] if response.choices else None
    return Answer(
        model=str(response.model or request["model"]),
        reply=None if choice is None else choice.message.content,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        seconds=time.perf_counter() - start,
    )


def _ask(client: Any, request: dict[str, Any], endpoint: Endpoint) -> Answer:
    """One request, tried ``1 + retries`` times with exponential backoff."""
    for attempt in range(endpoint.retries + 1):
        try:
            return _ask_once(client, request)
        except _Retry as exc:
            if attempt == endpoint.retries:
                tries = counted(endpoint.retries + 1, "try", "tries")
                raise WrdscoreError(f"{endpoint.base_url}: {exc} ({tries})") from None
            time.sleep(endpoint.backoff * 2**attempt)
    raise AssertionError("unreachable")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:200]


def ask_all(
    requests: Sequence[tuple[str, dict[str, Any]]],
    cache: AnswerCache,
    endpoint: Endpoint,
    on_answer: Callable[[int], None] | None = None,
) -> int:
    """Ask every request whose key the cache lacks; store each answer as it comes.

    At most ``endpoint.concurrency`` requests are in flight. The first request that
    fails for good stops the run: nothing more is sent, the requests in flight are
    waited for (their answers are kept), and a one-line error says how many answers
    this run kept, so that a rerun asks only the rest.

    Returns
    -------
    int
        How many requests were sent (the others were answered from the cache).
    """
    todo = list({k: r for k, r in requests if cache.get(k) is None}.items())
    if not todo:
        return 0
    client = _client(endpoint)
    kept = 0
    failure: WrdscoreError | None = None
    pending: dict[Future[Answer], str] = {}
    queue = iter(todo)
    with ThreadPoolExecutor(max_workers=endpoint.concurrency) as pool:

        def submit() -> None:
            for key, request in queue:
                pending[pool.submit(_ask, client, request, endpoint)] = key
                if len(pending) >= endpoint.concurrency:
                    return

        submit()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                key = pending.pop(future)
                try:
                    answer = future.result()
                except WrdscoreError as exc:
                    failure = failure or exc
                    continue
                cache.put(key, answer)
                kept += 1
                if on_answer is not None:
                    on_answer(1)
            if failure is None:
                submit()
    if failure is not None:
        raise WrdscoreError(
            f"judge: {failure}; {counted(kept, 'answer')} of this run kept in {cache.path} "
            f"({counted(len(todo) - kept, 'request')} left): a rerun asks only those"
        )
    return len(todo)
