"""LLM replies cleaned down to the name or sentence they give.

:func:`clean_prediction` strips what a chat model wraps its answer in: code fences,
Javadoc markers, block tags, quotes and a trailing parameter list.
"""

from __future__ import annotations

import re

# A fenced block (```java ... ```): its inside is the answer.
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|\Z)", re.S)
# Javadoc's inline tags keep their text: {@code x} -> x, {@link A#b} -> A#b.
_INLINE_TAG = re.compile(r"\{@\w+\s*([^{}]*)\}")
# A block tag (@param, @return, @throws, ...) at the start of a line: the description
# ends there, as Javadoc defines it.
_BLOCK_TAG = re.compile(r"^\s*@\w+", re.M)
# A name followed by its parameter list: getUserById(), getUserById(int id);
_CALL = re.compile(r"([A-Za-z_$][\w$.]*)\s*\([^()]*\)\s*;?")
_QUOTES = "\"'`"


def clean_prediction(text: str) -> str:
    """A prediction as a chat model returns it, reduced to the name or sentence itself.

    In order: the inside of the first code fence (```` ```java ... ``` ````) if there is
    one; Javadoc's ``/**``, ``*/`` and leading ``*`` markers; everything from the first
    block tag on (``@param``, ``@return``, ``@throws``: the summary ends there);
    inline tags reduced to their text (``{@code id}`` -> ``id``); lines joined by one
    space; surrounding quotes or backticks; a trailing parameter list of a lone name
    (``getUserById()`` -> ``getUserById``).

    Examples
    --------
    >>> clean_prediction("```java\\ngetUserById()\\n```")
    'getUserById'
    >>> reply = "/**\\n * Returns the user with the given {@code id}.\\n * @param id the id\\n */"
    >>> clean_prediction(reply)
    'Returns the user with the given id.'
    >>> clean_prediction("`isTimeoutSet`")
    'isTimeoutSet'
    """
    fence = _FENCE.search(text)
    if fence is not None:
        text = fence.group(1)
    text = text.replace("/**", " ").replace("*/", " ")
    text = "\n".join(line.strip().lstrip("*") for line in text.splitlines())
    block = _BLOCK_TAG.search(text)
    if block is not None:
        text = text[: block.start()]
    text = _INLINE_TAG.sub(r"\1", text)
    text = " ".join(text.split())
    while len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        text = text[1:-1].strip()
    call = _CALL.fullmatch(text)
    return call.group(1) if call is not None else text
