"""The one exception type the command line turns into a one-line message."""


class WrdscoreError(Exception):
    """A problem with the user's input or environment, explained in one line.

    Library code raises it for anything a user can fix (a missing file, a corrupt
    model, mismatched lengths). The CLI prints ``error: <message>`` and exits
    non-zero instead of showing a traceback, so the message must stand alone.
    """


def only_with(options: list[str], needs: str) -> WrdscoreError:
    """The error for ``options`` given without what they need: ``--a, --b only apply with X``.

    One option ``applies``, several ``apply``; every such message is made here so that
    none says ``--layer only apply``.

    Examples
    --------
    >>> str(only_with(["--layer"], "--encoder"))
    '--layer only applies with --encoder'
    >>> str(only_with(["layer", "device"], "an encoder"))
    'layer, device only apply with an encoder'
    """
    verb = "applies" if len(options) == 1 else "apply"
    return WrdscoreError(f"{', '.join(options)} only {verb} with {needs}")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in agreement, ``n`` with thousands separators: ``1 Java file``,
    ``2 Java files``; every message that counts goes through it, so none says ``1 pairs``
    or hedges with ``pair(s)``.

    Examples
    --------
    >>> counted(1, "Java file"), counted(0, "pair"), counted(12_345, "method")
    ('1 Java file', '0 pairs', '12,345 methods')
    >>> counted(2, "entry", "entries")
    '2 entries'
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
