"""The context of a method: the words around its name, for training embeddings.

A method name has two or three sub-tokens, too few for an embedding to learn what
each one means; the code and prose around the name carry that meaning. The
``context`` of a method is the list of lower-cased sub-tokens, in source order, of
the *words* of

1. its Javadoc comment, whole (every sentence, and the text of block tags such as
   ``@param x the x``), with HTML tags (``<code>``, ``<a href=...>``) removed;
2. then its declaration after the modifiers and annotations: type parameters,
   return type, parameters, ``throws`` clause and body, comments and string
   literals included, but not the method's own name,

capped at :data:`CONTEXT_MAX_TOKENS` tokens. A *word* is a maximal run of ASCII
letters, digits, ``_``, ``$``, ``@``, non-ASCII characters and, in Javadoc, ``&``;
everything else (operators, punctuation, quotes, white space, comment markers,
string escapes such as ``\\n`` or ``\\u00e9``) separates words. Dropped are the words
that start with a digit (number literals: ``0x1F``, ``10L``), with ``@`` (an
annotation such as ``@Override``, a Javadoc tag name such as ``@param`` or
``{@code``) or with ``&`` (an HTML entity such as ``&lt;``), and the words spelled as
Java reserved keywords, ``true``, ``false``, ``null``, ``var`` or ``yield`` wherever
they occur (in comments these are mostly function words: *for*, *if*, *this*, *do*,
*new*). Every other word goes through
the shared splitter :func:`~wrdscore.corpora.split_identifier`, so ``getUserName``
gives ``get user name`` here as everywhere else. So the context holds the type
names, parameters, local variables, fields and called methods of the declaration,
the words of its comments and string literals, in the order they are written.

Why leave things out: the method's own name (only the declaring identifier; a
recursive call in the body is body text) so that a model trained on names and
context learns a name from what surrounds it, never from itself; modifiers and
annotations because they describe the declaration rather than what it does
(``override`` alone would be in a fifth of all contexts).

The parsers only locate the declaration (where its type parameters or return type
start, where its name is, where it ends) and its Javadoc; the words are read by
:func:`context_tokens` here, so both parsers give the same context for the same
method. The reading is a few C-level passes over the bytes (``translate``,
``split``) and one dictionary look-up per word, which keeps ingest fast.
"""

from __future__ import annotations

import re
from itertools import chain

from wrdscore.corpora._defaults import RESERVED_WORDS
from wrdscore.corpora._tokenize import _split

#: At most this many context tokens per method. The whole context of 96% of the
#: methods of OpenJDK 17 is shorter (median 28 tokens, 95th percentile about 220;
#: benchmarks/README.md); the rest, mostly long Javadoc and generated or table-like
#: code, is cut so that a few huge methods do not weigh more in training than
#: thousands of ordinary ones.
CONTEXT_MAX_TOKENS = 256

_WORD_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$@"
) | frozenset(range(0x80, 0x100))
# Every byte that is not part of a word becomes a space, so ``split()`` finds words;
# "&" starts an HTML entity in Javadoc but is an operator in code (``a&&b``).
_CODE_SPACES = bytes(b if b in _WORD_BYTES else 0x20 for b in range(256))
_DOC_SPACES = bytes(b if b in _WORD_BYTES or b == ord("&") else 0x20 for b in range(256))
# A string escape (``\n``, ``\\``, ``\u00e9``, octal ``\0``) is a separator.
_ESCAPE = re.compile(rb"\\(?:u+[0-9A-Fa-f]{4}|.)", re.S)
_HTML_TAG = re.compile(rb"</?[A-Za-z][^<>]*>")
_DROPPED_START = frozenset(b"0123456789@&")
_NOT_WORDS = frozenset(w.encode("ascii") for w in RESERVED_WORDS["java"]) | {b"var", b"yield"}
# Distinct words kept per process before the cache starts over: about 16 MB. OpenJDK
# has 235,000 distinct words, but the frequent ones come back at once after a clear;
# twice the size saved 5% of the context's time for twice the memory.
_CACHE_SIZE = 1 << 16


class _WordTokens(dict[bytes, tuple[str, ...]]):
    """word -> its tokens (empty for dropped words), filled on first look-up.

    ``not_words`` are dropped; so are words that start as a number, annotation or
    entity does, and the empty word (a parser's zero-width *missing* identifier, where
    it recovered from a syntax error: issue 34's crash on Python read as Java).
    """

    def __init__(self, not_words: frozenset[bytes] = _NOT_WORDS) -> None:
        super().__init__()
        self.not_words = not_words

    def __missing__(self, word: bytes) -> tuple[str, ...]:
        tokens = word_tokens(word, self.not_words)
        if len(self) >= _CACHE_SIZE:
            self.clear()
        self[word] = tokens
        return tokens


def word_tokens(word: bytes, not_words: frozenset[bytes] = _NOT_WORDS) -> tuple[str, ...]:
    """A word's tokens, empty for a dropped word (see :class:`_WordTokens`), without a
    cache: for callers that keep their own.

    Examples
    --------
    >>> word_tokens(b"getHTTPResponse"), word_tokens(b"Size"), word_tokens(b"2nd")
    (('get', 'http', 'response'), ('size',), ())
    >>> word_tokens(b"int"), word_tokens(b"int", IDENTIFIER_NOT_WORDS)
    ((), ('int',))
    """
    if not word or word[0] in _DROPPED_START or word in not_words:
        return ()
    if word.isalpha() and (word.islower() or word.isupper() or word[1:].islower()):
        # ASCII "word", "Word" or "WORD": one token, as the splitter would find
        # (bytes.isalpha is ASCII-only), without its character-by-character pass.
        return (word.decode("ascii").lower(),)
    # Not through the splitter's own cache: the callers' caches hold the word.
    return _split(word.decode("utf-8", "replace"))


_word_tokens = _WordTokens()
#: The keywords an identifier's tokens leave out. Only ``var`` and ``yield`` of the
#: keywords can be a Java identifier (contextual keywords); in other languages a keyword
#: is never an identifier node, and their identifiers may be spelled as Java keywords
#: (Python's ``default``, ``int``), which are words there.
IDENTIFIER_NOT_WORDS = frozenset({b"var", b"yield"})
#: The tokens of an identifier.
_identifier_tokens = _WordTokens(IDENTIFIER_NOT_WORDS)


def _words(text: bytes, spaces: bytes) -> list[bytes]:
    if b"\\" in text:
        text = _ESCAPE.sub(b" ", text)
    return text.translate(spaces).split()


def context_tokens(
    data: bytes,
    start: int,
    end: int,
    name_at: int,
    name_end: int,
    javadoc: bytes | None,
    limit: int = CONTEXT_MAX_TOKENS,
) -> list[str]:
    r"""The context of one method declaration (see the module docstring).

    Parameters
    ----------
    data : bytes
        The whole file, UTF-8.
    start, end : int
        Byte offsets of the declaration after its modifiers (its type parameters or
        return type) and of its end (after the body's ``}`` or the ``;``).
    name_at, name_end : int
        Byte offsets of the method's name, which is left out.
    javadoc : bytes or None
        The method's Javadoc comment, with ``/**`` and ``*/``.
    limit : int
        The cap on the number of tokens.

    Returns
    -------
    list of str
        At most ``limit`` lower-case sub-tokens.

    Examples
    --------
    >>> src = b'int countLines(String text) { return text.split("\n", 0x1F).length; }'
    >>> doc = b"/** Counts {@code text} <b>lines</b>.\n * @param text the input */"
    >>> context_tokens(src, 0, len(src), 4, 14, doc)  # doctest: +NORMALIZE_WHITESPACE
    ['counts', 'text', 'lines', 'text', 'the', 'input',
     'string', 'text', 'text', 'split', 'length']
    """
    out: list[str] = []
    if javadoc:
        # An entity starts a word even inside one (``a&lt;b``), so the rule for "&" sees it.
        plain = _HTML_TAG.sub(b" ", javadoc).replace(b"&", b" &")
        _take(_words(plain, _DOC_SPACES), out, limit)
    # The body is read a piece at a time, each ending at a line break (so no word or
    # escape is cut), until the cap is reached: a long method's tail costs nothing.
    piece_end = _piece_end(data, name_end, end)
    head = data[start:name_at] + b" " + data[name_end:piece_end]
    _take(_words(head, _CODE_SPACES), out, limit)
    while len(out) < limit and piece_end < end:
        at, piece_end = piece_end, _piece_end(data, piece_end, end)
        _take(_words(data[at:piece_end], _CODE_SPACES), out, limit)
    del out[limit:]
    return out


# Bytes of a method read at once: the median method is far shorter, and 256 tokens of
# code take about 3.7 kB (14.5 bytes per word in OpenJDK).
_PIECE = 4096


def _piece_end(data: bytes, at: int, end: int) -> int:
    if end - at <= _PIECE:
        return end
    cut = data.find(b"\n", at + _PIECE, end)
    return end if cut < 0 else cut + 1


def _take(words: list[bytes], out: list[str], limit: int) -> None:
    """Append the tokens of ``words`` to ``out`` until it holds at least ``limit``."""
    # A word gives zero or more tokens: ``limit`` words at a time are looked up while
    # ``out`` falls short.
    tokens = _word_tokens.__getitem__
    read = 0
    while len(out) < limit and read < len(words):
        out += chain.from_iterable(map(tokens, words[read : read + limit]))
        read += limit


# What javalang needs to find a declaration's name and end: comments, strings and
# characters are skipped whole; identifiers, brackets and semicolons are seen.
_STRUCTURE = re.compile(
    rb"//[^\n]*|/\*.*?\*/"
    rb'|"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"'
    rb"|'(?:[^'\\\n]|\\.)*'"
    rb"|[0-9][\w$]*"
    rb"|([A-Za-z_$\x80-\xff][\w$\x80-\xff]*)"
    rb"|([(){};])",
    re.S,
)


def declaration_span(data: bytes, start: int) -> tuple[int, int, int] | None:
    """Where the name of the declaration starting at ``start`` is, and where it ends.

    For parsers that report only where a method declaration starts (javalang): the
    name is the identifier just before the first ``(``; the declaration ends at the
    first ``;`` outside parentheses (an abstract method) or at the ``}`` closing the
    first ``{`` outside parentheses (its body).

    Returns
    -------
    (int, int, int) or None
        Byte offsets of the start and end of the name and of the declaration's end,
        or ``None`` when the text does not have that shape.

    Examples
    --------
    >>> declaration_span(b"class A { <T> T pick(T[] a) { return a[0]; } }", 10)
    (16, 20, 44)
    """
    name: tuple[int, int] | None = None
    last_identifier: tuple[int, int] | None = None
    parens = braces = 0
    for match in _STRUCTURE.finditer(data, start):
        if match.lastindex == 1:
            last_identifier = match.span()
            continue
        punct = match.group(2)
        if punct is None:
            continue
        if punct == b"(":
            if name is None:
                if last_identifier is None:
                    return None
                name = last_identifier
            parens += 1
        elif punct == b")":
            parens -= 1
        elif parens == 0 and name is not None:
            if punct == b"{":
                braces += 1
            elif punct == b"}":
                braces -= 1
                if braces <= 0:
                    return (*name, match.end()) if braces == 0 else None
            elif braces == 0:
                return (*name, match.end())
    return None
