"""The one sub-token splitter shared by the whole toolkit.

Ingestion, embedding training, scoring and studies all call :func:`split_identifier`,
so a name is tokenised the same way everywhere (``toASN1Primitive`` ->
``to asn 1 primitive``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

_UPPER = "U"
_LOWER = "L"
_DIGIT = "D"
_MARK = "M"
_SEP = " "

# Unicode categories -> the classes the splitter reasons about. Titlecase letters
# (``ǅ``) start a word like capitals; modifier and "other" letters (CJK, ``ʰ``) have
# no case and behave like lower-case ones; combining marks stay with the letter
# before them so ``é`` written as ``e`` + U+0301 is never cut apart.
_CATEGORY_KIND = {
    "Lu": _UPPER,
    "Lt": _UPPER,
    "Ll": _LOWER,
    "Lm": _LOWER,
    "Lo": _LOWER,
    "Nd": _DIGIT,
    "Nl": _DIGIT,
    "No": _DIGIT,
    "Mn": _MARK,
    "Mc": _MARK,
    "Me": _MARK,
}


def _kind(ch: str) -> str:
    if ch.isascii():
        # Fast path: almost every Java identifier is ASCII.
        if ch.isupper():
            return _UPPER
        if ch.islower():
            return _LOWER
        if ch.isdigit():
            return _DIGIT
        return _SEP
    return _CATEGORY_KIND.get(unicodedata.category(ch), _SEP)


def _lower(token: str) -> str:
    # Character by character, so context rules (Greek final sigma) cannot make the
    # lower-cased token depend on where the split fell.
    return "".join(c.lower() for c in token)


# The rules of _split_chars for ASCII text, as one regular expression (4x faster; most
# names are ASCII): a plural acronym (getURLs), capitals before a capitalised word
# (HTTPResponse), a word with at most one leading capital, a run of capitals, digits.
# Everything else separates. A test checks both agree on random ASCII strings.
# Space-separated pieces that the splitter returns unchanged.
_SUBTOKENS = re.compile(r"(?:[a-z]+|[0-9]+)(?: (?:[a-z]+|[0-9]+))*")
_ASCII_TOKEN = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _split(text: str) -> tuple[str, ...]:
    """The splitter without a cache (callers with their own cache use this one)."""
    if text.isascii():
        # One lower() over the joined tokens, not one per token (3x faster on
        # sentence-length items); ASCII lower-casing is per character, so it is the same.
        return tuple(" ".join(_ASCII_TOKEN.findall(text)).lower().split())
    return _split_chars(text)


_split_cached = lru_cache(maxsize=1 << 16)(_split)


def _split_chars(text: str) -> tuple[str, ...]:
    """The splitter, character by character (any text; see :func:`split_identifier`)."""
    tokens: list[str] = []
    cur: list[str] = []
    prev = _SEP  # kind of the last non-mark character in ``cur``
    upper_run = 0  # how many capitals end ``cur``
    last_upper_at = 0  # index in ``cur`` where the last capital (with its marks) starts
    n = len(text)
    i = 0
    while i < n:
        ch = text[i]
        k = _kind(ch)
        if k == _SEP:
            if cur:
                tokens.append(_lower("".join(cur)))
                cur = []
            prev, upper_run = _SEP, 0
            i += 1
            continue
        if k == _MARK:
            cur.append(ch)
            i += 1
            continue
        if cur:
            if (k == _DIGIT) != (prev == _DIGIT) or (k == _UPPER and prev == _LOWER):
                # digit/letter edge, or camelCase hump: a new token starts here
                tokens.append(_lower("".join(cur)))
                cur, upper_run = [], 0
            elif k == _LOWER and prev == _UPPER and upper_run >= 2:
                nxt = _kind(text[i + 1]) if i + 1 < n else _SEP
                if ch == "s" and nxt != _LOWER and nxt != _MARK:
                    # Plural acronym: getURLs -> get urls, not get ur ls.
                    cur.append(ch)
                    prev, upper_run = k, 0
                    i += 1
                    continue
                # End of an acronym: the last capital starts the next word
                # (parseHTTPResponse -> parse http response).
                tokens.append(_lower("".join(cur[:last_upper_at])))
                cur = cur[last_upper_at:]
                upper_run = 1
        if k == _UPPER:
            last_upper_at = len(cur)
            upper_run += 1
        else:
            upper_run = 0
        cur.append(ch)
        prev = k
        i += 1
    if cur:
        tokens.append(_lower("".join(cur)))
    return tuple(tokens)


def split_identifier(text: str) -> list[str]:
    """Split an identifier (or any text) into lower-case sub-tokens.

    Rules, applied in one left-to-right pass:

    * anything that is not a letter, digit or combining mark separates tokens
      (``_``, ``$``, spaces, punctuation), so snake_case, SCREAMING_CASE and free
      text all work;
    * a capital after a lower-case letter starts a token (camelCase, PascalCase);
    * in a run of capitals followed by a lower-case letter, the last capital starts
      the next token (``XMLHttpRequest`` -> ``xml http request``), except a single
      trailing ``s`` that ends the run (``getURLs`` -> ``get urls``);
    * a run of digits is its own token (``md5Hex`` -> ``md 5 hex``);
    * letters without case (CJK) join the lower-case letters around them, combining
      marks stay with the character before them.

    Lower-casing is per character, so ``"".join(tokens)`` is always exactly the
    lower-cased letters and digits of ``text``: splitting never loses a letter.

    Parameters
    ----------
    text : str
        An identifier such as ``"toASN1Primitive"``, sub-tokens such as
        ``"get user name"``, or free text.

    Returns
    -------
    list of str
        Non-empty lower-case tokens; empty for text without letters or digits.

    Examples
    --------
    >>> split_identifier("toASN1Primitive")
    ['to', 'asn', '1', 'primitive']
    >>> split_identifier("parseHTTPResponse")
    ['parse', 'http', 'response']
    >>> split_identifier("MAX_VALUE")
    ['max', 'value']
    """
    return list(_split_cached(text))


def to_tokens(item: str | Sequence[str]) -> list[str]:
    """Tokens of one item: a string, or a sequence of strings split and concatenated.

    A list such as ``["get", "userName"]`` gives ``["get", "user", "name"]``: every
    piece goes through :func:`split_identifier`, so callers never bypass the splitter.

    Examples
    --------
    >>> to_tokens("getUserName")
    ['get', 'user', 'name']
    >>> to_tokens(["get", "userName"])
    ['get', 'user', 'name']
    """
    if isinstance(item, str):
        return split_identifier(item)
    try:
        joined = " ".join(item)
    except TypeError:
        joined = ""  # a piece that is not a string: reported below
    if joined.count(" ") == len(item) - 1 and _SUBTOKENS.fullmatch(joined):
        # Every piece is already a sub-token (lower-case letters or digits, no space
        # inside one): token lists are mostly made of these, and one match beats a loop.
        return list(item)
    out: list[str] = []
    for piece in item:
        if not isinstance(piece, str):
            raise TypeError(
                f"expected a string or a sequence of strings, got {type(piece).__name__}"
            )
        if piece.isascii() and (piece.isdigit() or (piece.isalpha() and piece.islower())):
            # Already a sub-token (the splitter would return it unchanged): token lists
            # are mostly made of these, and the C string tests beat a cache lookup.
            out.append(piece)
        else:
            out.extend(_split_cached(piece))
    return out
