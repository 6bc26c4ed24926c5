"""LLM replies cleaned down to the name or sentence they give.

:func:`clean_prediction` strips what a chat model wraps its answer in: code fences,
Javadoc markers and tags, Markdown emphasis, a lead-in such as "The method name is",
quotes, and the rest of a declaration or call around a name. What it keeps and drops is
listed, with examples the tests check, in docs/scoring.md ("Names as models write them").
"""

from __future__ import annotations

import re

# A fenced block (```java ... ```): its inside is the answer.
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|\Z)", re.S)
# Javadoc's inline tags keep their text: {@code x} -> x, {@link A#b} -> A#b.
_INLINE_TAG = re.compile(r"\{@\w+\s*([^{}]*)\}")
# The HTML Javadoc writes inside a description (<code>id</code>, <p>) keeps its text.
# Only these tags: a type's generics (List<String>) are not markup.
_HTML_TAG = re.compile(r"</?(?:a|b|code|em|i|p|pre|strong|tt|br)\b[^<>]*>", re.I)
# A block tag (@param, @return, @throws, ...) at the start of a line: the description
# ends there, as Javadoc defines it.
# (Lower case: @Override at a line's start is an annotation of a declaration.)
# (Blanks only, not \s: from each of many empty lines \s* would run to the end.)
_BLOCK_TAG = re.compile(r"^[ \t]*@([a-z]\w*)[ \t]*(.*)", re.M | re.S)
# Block tags whose first word is what they describe (a parameter, an exception type).
_NAMED_TAGS = frozenset({"param", "throws", "exception"})
# Markdown emphasis (*x*, **x**, ***x***) around a word or words, not touching a word
# on the outside: a Javadoc line's leading "* " and a product a*b are not emphasis.
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,3})(?=[^\s*])([^*\n]*?[^\s*])\1(?![\w*])")
_QUOTES = "\"'`"
# A lone name, maybe quoted, emphasised or called, maybe ending a sentence.
_LONE = r"[\"'`]*[A-Za-z_$][\w$.]*(?:\s*\([^()]*\))?[\"'`]*\.?"
# A lead-in that speaks of a name, then a lone name: "Suggested name: X" (any word),
# "The method name is X", "I would call it X" (a word that looks like code: "Checks
# whether the name is valid" is a summary).
_LEAD_IN_COLON = re.compile(r"[^:]*\b(?:name|identifier)\b[^:]*:\s*(" + _LONE + ")", re.I)
_LEAD_IN_WORDS = re.compile(
    r".*?\b(?:(?:name|identifier)\b.*?\b(?:is|be)|(?:call|name)\s+it)\s+(" + _LONE + ")",
    re.I,
)
# A reply with a lead-in is one short sentence; past this length it is prose, and not
# tried (the lead-in patterns' backtracking grows with the square of the length).
_LEAD_IN_CHARS = 300
# Quoted, camelCase, snake_case or called: a name, not an English word.
_CODE_LIKE = re.compile(r"[\"'`_(]|.[A-Z]")
_MODIFIERS = (
    r"(?:(?:public|protected|private|internal|static|final|abstract|synchronized|native|"
    r"default|strictfp|override|virtual|sealed)\s+)*"
)
# A Java type: a primitive or void, a capitalised or qualified name, with generics and
# array brackets. A summary's words (lower case) are none of these.
_TYPE = (
    r"(?:void|boolean|byte|char|short|int|long|float|double|string|bool|object|"
    r"[A-Z][\w$]*(?:\.[A-Za-z_$][\w$]*)*|[a-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)"
    r"(?:\s*<[^()]*?>)?(?:\s*\[\s*\])*"
)
_PARAM = r"(?:final\s+)?(?:@\w+\s+)?" + _TYPE + r"(?:\s*\.\.\.)?\s+[A-Za-z_$][\w$]*"
_PARAMS = r"\(\s*(?:" + _PARAM + r"(?:\s*,\s*" + _PARAM + r")*)?\s*\)"
# A declaration's head: annotations, modifiers, type parameters, a return type, the
# name and typed parameters, then maybe throws, a body or a semicolon.
_DECLARATION = re.compile(
    r"(?:@\w+(?:\([^()]*\))?\s+)*"
    + _MODIFIERS
    + r"(?:<[^()]*?>\s+)?"
    + _TYPE
    + r"\s+([A-Za-z_$][\w$]*)\s*"
    + _PARAMS
    + r"\s*(?:throws\s+[\w$.]+(?:\s*,\s*[\w$.]+)*)?\s*(?:\{.*)?;?",
    re.S,
)
# Other languages' definitions: def name(...), function name(...), func name(...).
_DEFINITION = re.compile(
    r"(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|function|func|fun|fn|sub)\s+"
    r"([A-Za-z_$][\w$]*)\s*\(.*",
    re.S,
)
# A name followed by its parameter list: getUserById(), getUserById(int id);
_CALL = re.compile(r"([A-Za-z_$][\w$.]*)\s*\([^()]*\)\s*;?")


def _block_tag_text(match: re.Match[str]) -> str:
    """The description a reply that is only a block tag gives (``@return the name`` ->
    ``the name``; ``@param id the id`` -> ``the id``): its first line's text."""
    tag, rest = match.group(1), match.group(2).split("\n", 1)[0].strip()
    if tag in _NAMED_TAGS:
        rest = rest.partition(" ")[2].strip()
    return rest


def _unquote(text: str) -> str:
    """``text`` without the quotes or backticks around it, pair by pair, and the blanks
    inside them (by positions: a slice per pair would copy a long text once per pair)."""
    i, j = 0, len(text)
    while j - i >= 2 and text[i] == text[j - 1] and text[i] in _QUOTES:
        i, j = i + 1, j - 1
        while i < j and text[i].isspace():
            i += 1
        while j > i and text[j - 1].isspace():
            j -= 1
    return text[i:j]


def clean_prediction(text: str) -> str:
    """A prediction as a chat model returns it, reduced to the name or sentence itself.

    In order: the inside of the first code fence (```` ```java ... ``` ````) if there is
    one; Javadoc's ``/**`` and ``*/``; Markdown emphasis (``**getUserName**`` ->
    ``getUserName``); Javadoc's leading ``*``; everything from the first block tag on
    (``@param``, ``@return``, ``@throws``: the summary ends there), unless nothing comes
    before it, when the tag's own text is the answer (``@return the name`` -> ``the
    name``); inline tags and HTML markup reduced to their text (``{@code id}`` -> ``id``);
    lines joined by one space; a lead-in that speaks of a name before a lone name (``The
    method name is `writeUsersAsCsv`.``); a full stop after a lone word; surrounding
    quotes or backticks; and around a name, a declaration's modifiers, return type,
    parameters, throws clause and body (``public String getUserName(int id)``), another
    language's ``def``/``function``/``func``, or a call's parameter list
    (``getUserById()``). Anything else is kept as it is: prose around a name with no such
    lead-in, several candidates, a summary with a parenthesis.

    Examples
    --------
    >>> clean_prediction("```java\\ngetUserById()\\n```")
    'getUserById'
    >>> reply = "/**\\n * Returns the user with the given {@code id}.\\n * @param id the id\\n */"
    >>> clean_prediction(reply)
    'Returns the user with the given id.'
    >>> clean_prediction("The method name is `writeUsersAsCsv`.")
    'writeUsersAsCsv'
    >>> clean_prediction("public static String getUserName(int id) throws IOException {")
    'getUserName'
    >>> clean_prediction("@return the name")
    'the name'
    """
    fence = _FENCE.search(text)
    if fence is not None:
        text = fence.group(1)
    text = text.replace("/**", " ").replace("*/", " ")
    text = _EMPHASIS.sub(r"\2", text)
    text = "\n".join(line.strip().lstrip("*") for line in text.splitlines())
    block = _BLOCK_TAG.search(text)
    if block is not None:
        before = text[: block.start()]
        text = before if before.strip() else _block_tag_text(block)
    text = _HTML_TAG.sub("", _INLINE_TAG.sub(r"\1", text))
    text = " ".join(text.split())
    lead_in = _LEAD_IN_COLON.fullmatch(text) if len(text) <= _LEAD_IN_CHARS else None
    if lead_in is None and len(text) <= _LEAD_IN_CHARS:
        lead_in = _LEAD_IN_WORDS.fullmatch(text)
        if lead_in is not None and not _CODE_LIKE.search(lead_in.group(1)):
            lead_in = None
    if lead_in is not None:
        text = lead_in.group(1)
    if text.endswith(".") and re.fullmatch(_LONE, text):
        text = text[:-1]
    text = _unquote(text)
    for pattern in (_DECLARATION, _DEFINITION, _CALL):
        match = pattern.fullmatch(text)
        if match is not None:
            return match.group(1)
    return text
