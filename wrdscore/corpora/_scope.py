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
    """One method declaration as a parser saw it (``context``: see ``_context``)."""

    name: str
    type: str
    line: int
    summary: str | None
    context: list[str]


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
