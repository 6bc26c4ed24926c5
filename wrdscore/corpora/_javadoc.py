"""The summary of a method: the first sentence of its Javadoc comment."""

from __future__ import annotations

import html
import re

# Inline tags whose text a reader sees: ``{@code x}`` -> ``x``, ``{@link A#b label}`` ->
# ``label``, ``{@link A#b}`` -> ``A#b``. Anything else inline (``{@inheritDoc}``) has no
# words of its own and is dropped.
_INLINE_TAG = re.compile(r"\{@(\w+)\s*([^{}]*)\}")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LINE_PREFIX = re.compile(r"^\s*\*+ ?", re.MULTILINE)
_BLOCK_TAG = re.compile(r"(^|\n)\s*@\w+")
# Javadoc's own rule (without a BreakIterator locale): the first sentence ends at the
# first period followed by white space or the end of the text.
_SENTENCE_END = re.compile(r"\.(?=\s|$)")
_SPACES = re.compile(r"\s+")
_TEXT_TAGS = {"code", "literal", "value", "link", "linkplain", "summary", "systemProperty"}


def _inline(match: re.Match[str]) -> str:
    tag, body = match.group(1), match.group(2).strip()
    if tag not in _TEXT_TAGS:
        return ""
    if tag in ("link", "linkplain"):
        target, _, label = body.partition(" ")
        return label.strip() or target
    return body


def first_sentence(comment: str | None) -> str | None:
    """The first sentence of a Javadoc comment as plain text, or ``None``.

    The comment delimiters and leading ``*`` are removed, block tags (``@param``...)
    and everything after them are dropped, inline tags are replaced by the text they
    show, HTML tags are removed and entities decoded, and white space is collapsed.
    The sentence ends at the first ``.`` followed by white space (Javadoc's rule).

    Parameters
    ----------
    comment : str or None
        The comment text including ``/**`` and ``*/``.

    Returns
    -------
    str or None
        The sentence with its final period, or ``None`` when the comment has no text.

    Examples
    --------
    >>> first_sentence("/**\\n * Returns the {@code int} value. More.\\n * @return x\\n */")
    'Returns the int value.'
    >>> first_sentence("/** @return nothing */") is None
    True
    """
    # ``/**/`` is an empty plain comment, not a Javadoc one.
    if not comment or not comment.startswith("/**") or comment.startswith("/**/"):
        return None
    body = comment[3:]
    if body.endswith("*/"):
        body = body[:-2]
    body = _LINE_PREFIX.sub("", body)
    tag = _BLOCK_TAG.search(body)
    if tag:
        body = body[: tag.start()]
    body = _INLINE_TAG.sub(_inline, body)
    body = _HTML_TAG.sub(" ", body)
    text = _SPACES.sub(" ", html.unescape(body)).strip()
    end = _SENTENCE_END.search(text)
    if end:
        text = text[: end.end()]
    return text or None
