"""The summary of a method: the first sentence of its Javadoc comment."""

from __future__ import annotations

import html
import re

# Inline tags whose text a reader sees: ``{@code x}`` -> ``x``, ``{@link A#b label}`` ->
# ``label``, ``{@link A#b}`` -> ``A#b``, ``{@return x}`` -> ``Returns x.`` (javadoc's own
# expansion). Anything else inline (``{@inheritDoc}``) has no words of its own and is
# dropped. A tag's text may hold one level of balanced braces: ``{@code {a, b}}``, or an
# inline tag inside ``{@return}`` or a link's label.
_INLINE_TAG = re.compile(r"\{@(\w+)\s*((?:[^{}]|\{[^{}]*\})*)\}")
# A link's target is a name, with a parenthesised parameter list that may hold spaces
# (``Math#max(long, long)``); the label is what follows.
_LINK = re.compile(r"([^\s(]*(?:\([^)]*\))?)\s*(.*)", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# Where an HTML tag was. A tag between words separates them (``a<br>b``), but not from
# the punctuation after it or the parenthesis before it (``<code>x</code>,``).
_TAG_MARK = "\0"
_MARK_AT_PUNCTUATION = re.compile(r"\0+(?=[.,;:!?)])|(?<=\()\0+")
_LINE_BREAK = re.compile(r"\r\n?")
_LINE_PREFIX = re.compile(r"^\s*\*+ ?", re.MULTILINE)
_BLOCK_TAG = re.compile(r"(^|\n)\s*@\w+")
# Javadoc's own rule (without a BreakIterator locale): the first sentence ends at the
# first period followed by a space, tab or line terminator, or the end of the text; a
# no-break space (``e.g.&nbsp;the``) does not end it.
_SENTENCE_END = re.compile(r"\.(?=[ \t\n\r\f]|$)")
_SPACES = re.compile(r"\s+")
_TEXT_TAGS = {"code", "literal", "value", "link", "linkplain", "summary", "systemProperty"}


def _inline_text(text: str) -> str:
    return _INLINE_TAG.sub(_inline, text)


def _inline(match: re.Match[str]) -> str:
    tag, body = match.group(1), match.group(2).strip()
    if tag in ("code", "literal"):
        # Shown as it is written: escaped, so that ``<T>`` is not taken for an HTML tag
        # (nor ``&lt;`` for an entity) when the HTML is stripped and decoded.
        return html.escape(body, quote=False)
    if tag == "return":
        return f"Returns {_inline_text(body)}."
    if tag not in _TEXT_TAGS:
        return ""
    if tag in ("link", "linkplain"):
        link = _LINK.match(body)
        assert link is not None  # every string matches
        target, label = link.groups()
        return _inline_text(label.strip()) or target
    return _inline_text(body)


def first_sentence(comment: str | None) -> str | None:
    """The first sentence of a Javadoc comment as plain text, or ``None``.

    The comment delimiters and leading ``*`` are removed, block tags (``@param``...)
    and everything after them are dropped, inline tags are replaced by the text they
    show (``{@return x}`` by ``Returns x.``, as javadoc expands it; ``{@code}`` text
    as written, ``<`` and all), HTML tags are removed (a removed tag separates words
    but leaves no space before punctuation) and entities decoded, and white space is
    collapsed. The sentence ends at the first ``.`` followed by a space, tab or line
    break (Javadoc's rule: a no-break space does not end it).

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
    >>> first_sentence("/** {@return the {@code List<String>} of <i>names</i>} */")
    'Returns the List<String> of names.'
    >>> first_sentence("/** @return nothing */") is None
    True
    """
    # ``/**/`` is an empty plain comment, not a Javadoc one.
    if not comment or not comment.startswith("/**") or comment.startswith("/**/"):
        return None
    body = comment[3:]
    if body.endswith("*/"):
        body = body[:-2]
    # Java ends lines at CR, LF or CRLF (an old Mac file has CRs only).
    body = _LINE_PREFIX.sub("", _LINE_BREAK.sub("\n", body))
    tag = _BLOCK_TAG.search(body)
    if tag:
        body = body[: tag.start()]
    body = _inline_text(body.replace(_TAG_MARK, " "))
    body = _HTML_TAG.sub(_TAG_MARK, body)
    body = _MARK_AT_PUNCTUATION.sub("", body).replace(_TAG_MARK, " ")
    text = html.unescape(body).strip()
    end = _SENTENCE_END.search(text)
    if end:
        text = text[: end.end()]
    return _SPACES.sub(" ", text).strip() or None
