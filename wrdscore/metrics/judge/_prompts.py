"""The judge's rubrics, the messages it sends, and the strict reading of its replies.

The rubrics follow the published rating instructions: for summaries the three criteria
of the human studies of code summarisation that Crupi et al. (2025, "LLMs as a judge for
software engineering") compare judges with, *content adequacy*, *conciseness* and
*fluency*, each on a 1-5 scale; for names how well the name says what the method does
(the question the WRDScore paper's raters answered against a reference name), on the
same scale. A rating ``r`` becomes ``(r - 1) / 4``, on the 0-1 scale of the other
metrics.

Everything that is sent (the system text, the rubric, the layout of the user message,
the schema of the reply) is hashed into :func:`prompt_hash`, which the signature
records and the cache keys on: changing one word of a rubric is a new prompt.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

#: The lowest and highest rating of every criterion.
LOW, HIGH = 1, 5

SYSTEM = (
    "You rate the work of a code-documentation tool for a software engineering study. "
    'Reply with one JSON object only, for example {"score": 3}, nothing else.'
)

#: The criteria rated per target, in the order of the reply's keys.
CRITERIA: dict[str, tuple[str, ...]] = {
    "name": ("score",),
    "summary": ("adequacy", "conciseness", "fluency"),
}

RUBRICS: dict[str, str] = {
    "name": (
        "Rate how well the candidate method name says what the method does, from 1 to 5:\n"
        "5 = says exactly what the method does; 4 = right, missing a detail; "
        "3 = partly right or too vague; 2 = mostly wrong; 1 = unrelated or misleading.\n"
        'Reply as {"score": N}.'
    ),
    "summary": (
        "Rate the candidate summary of the method on three criteria, each from 1 to 5.\n"
        "adequacy: how much of the method's important information the summary gives "
        "(5 = all of it, 1 = none or wrong);\n"
        "conciseness: how free it is of unnecessary information (5 = nothing "
        "unnecessary, 1 = mostly unnecessary);\n"
        "fluency: how easy it is to read and understand (5 = fluent, 1 = unreadable).\n"
        'Reply as {"adequacy": N, "conciseness": N, "fluency": N}.'
    ),
}

#: Where the method's own name stood in code shown for a name (the name is the answer).
MASK = "METHOD_NAME"


def reply_schema(target: str) -> dict[str, Any]:
    """The JSON schema of a reply: one integer from 1 to 5 per criterion, nothing else."""
    keys = CRITERIA[target]
    return {
        "type": "object",
        "properties": {k: {"type": "integer", "minimum": LOW, "maximum": HIGH} for k in keys},
        "required": list(keys),
        "additionalProperties": False,
    }


def prompt_hash(target: str) -> str:
    """8 hex digits of SHA-256 over everything fixed in the messages of ``target``.

    Examples
    --------
    >>> len(prompt_hash("name")), prompt_hash("name") != prompt_hash("summary")
    (8, True)
    """
    fixed = [SYSTEM, RUBRICS[target], _layout(target), MASK, reply_schema(target)]
    text = json.dumps(fixed, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def _layout(target: str) -> str:
    """The user message's layout, with its fields left as ``{...}`` (part of the hash)."""
    what = "name" if target == "name" else "summary"
    return f"{{rubric}}\n\n{{code}}{{reference}}Candidate {what}: {{prediction}}"


def messages(
    target: str,
    prediction: str,
    reference: str | None = None,
    code: str | None = None,
    language: str | None = None,
) -> list[dict[str, str]]:
    """The chat messages that ask for one rating.

    ``code`` is shown as given (its name already masked for names, see
    :func:`mask_name`), in a fenced block of its ``language``; the reference, when
    there is one, as what a developer wrote for the same method.

    Examples
    --------
    >>> m = messages("name", "getUserName", reference="fetchUserName")
    >>> m[1]["content"].splitlines()[-2:]
    ['Reference name written by the developer: fetchUserName', 'Candidate name: getUserName']
    """
    what = "name" if target == "name" else "summary"
    shown = ""
    if code is not None:
        fence = language or ""
        shown = f"Method (its name replaced by {MASK}):\n" if target == "name" else "Method:\n"
        shown += f"```{fence}\n{code.rstrip()}\n```\n"
    ref = "" if reference is None else f"Reference {what} written by the developer: {reference}\n"
    content = _layout(target).format(
        rubric=RUBRICS[target], code=shown, reference=ref, prediction=prediction
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


def mask_name(code: str, name: str | None) -> str:
    """``code`` with every whole identifier equal to ``name`` replaced by :data:`MASK`.

    Whole identifiers only, as scoring masks the name (a field ``userName`` in
    ``getUserName`` stays: it is evidence, not the answer); nothing is masked
    without a name.

    Examples
    --------
    >>> mask_name("int size() { return size(items) + sizes; }", "size")
    'int METHOD_NAME() { return METHOD_NAME(items) + sizes; }'
    """
    if not name:
        return code
    return re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", MASK, code)


class InvalidReply(ValueError):
    """A reply that is not one JSON object of the rubric's integer ratings in range."""


def parse_reply(text: str | None, target: str) -> dict[str, float]:
    """The ratings of a reply, each mapped to 0-1 (``(r - 1) / 4``), read strictly.

    The whole reply must be one JSON object (surrounding white space allowed, and one
    Markdown code fence, which chat models add even when told not to) with exactly
    the rubric's keys, each an integer from 1 to 5. Anything else is an
    :class:`InvalidReply`: never a guess, never a 0.

    Examples
    --------
    >>> parse_reply('{"score": 5}', "name")
    {'score': 1.0}
    >>> parse_reply('```json\\n{"score": 2}\\n```', "name")
    {'score': 0.25}
    >>> parse_reply('{"score": 7}', "name")
    Traceback (most recent call last):
    ...
    wrdscore.metrics.judge._prompts.InvalidReply: score is 7, not an integer from 1 to 5
    """
    if text is None:
        raise InvalidReply("empty reply")
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.DOTALL)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        raise InvalidReply(f"not JSON: {_short(text)}") from None
    keys = CRITERIA[target]
    if not isinstance(data, Mapping) or set(data) != set(keys):
        raise InvalidReply(f"not an object of {', '.join(keys)}: {_short(text)}")
    out = {}
    for k in keys:
        value = data[k]
        if isinstance(value, bool) or not isinstance(value, int) or not LOW <= value <= HIGH:
            raise InvalidReply(f"{k} is {value!r}, not an integer from {LOW} to {HIGH}")
        out[k] = (value - LOW) / (HIGH - LOW)
    return out


def _short(text: str) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= 60 else one[:57] + "...")
