"""What both parsers report per method, and how enclosing scopes are named.

The ``type`` of a method is the dotted chain of declarations around it, outermost
first: named classes, interfaces, enums, records and annotation types by their
name; an anonymous class as ``<anonymous>``; an enum constant with a body by the
constant's name; and, for local and anonymous classes, the method (by name) or
constructor (``<init>``) they are declared in. So ``run`` in ``new Runnable() {...}``
inside ``Outer.start`` has type ``Outer.start.<anonymous>``, and ``g`` in a local
class ``L`` declared in ``Outer.f`` has type ``Outer.f.L``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ANONYMOUS = "<anonymous>"
_LONE_CR = re.compile(r"\r(?!\n)")
_LONE_CR_BYTES = re.compile(rb"\r(?!\n)")
CONSTRUCTOR = "<init>"


class MethodFound(NamedTuple):
    """One method declaration as a parser saw it (``context``: see ``_context``).

    ``code`` is the declaration's source text (:func:`method_source`), from its
    first annotation or modifier to the end of its body, without its Javadoc; empty
    where the parser cannot place the declaration.
    """

    name: str
    type: str
    line: int
    summary: str | None
    context: list[str]
    code: str


class ParseFailure(NamedTuple):
    """Why a parser could not read a file cleanly."""

    parser: str
    reason: str

    def __str__(self) -> str:
        return f"{self.parser}: {self.reason}"


def lf_line_breaks(text: str) -> str:
    """``text`` with each lone CR (an old Mac line break) made an LF.

    Java ends lines at CR, LF or CRLF, but both parsers (and the context's ``//``
    comments) count LFs only. The length stays the same, so offsets still hold.

    Examples
    --------
    >>> lf_line_breaks("a\\rb\\r\\nc")
    'a\\nb\\r\\nc'
    """
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def lf_line_breaks_bytes(data: bytes) -> bytes:
    """:func:`lf_line_breaks` for UTF-8 bytes."""
    return _LONE_CR_BYTES.sub(b"\n", data) if b"\r" in data else data


def method_source(data: bytes, start: int, end: int) -> str:
    """The source text of the declaration at bytes ``start:end`` of a file, dedented.

    Line breaks become LF, and when only white space comes before the declaration
    on its first line, that indentation is removed from every line that starts with
    it, so a method reads as if written at the left margin. (The length is capped
    later, by :func:`~wrdscore.corpora._extract.extract_file`.)

    Examples
    --------
    >>> src = b"class A {\\r\\n    int f() {\\r\\n        return 1;\\r\\n    }\\r\\n}"
    >>> print(method_source(src, 15, 50))
    int f() {
        return 1;
    }
    """
    line_start = data.rfind(b"\n", 0, start) + 1
    indent = data[line_start:start]
    text = data[start:end].decode("utf-8", "replace").replace("\r\n", "\n")
    if indent and not indent.strip(b" \t"):
        text = text.replace("\n" + indent.decode("ascii"), "\n")
    return text
