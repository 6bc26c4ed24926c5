"""The one exception type the command line turns into a one-line message."""


class WrdscoreError(Exception):
    """A problem with the user's input or environment, explained in one line.

    Library code raises it for anything a user can fix (a missing file, a corrupt
    model, mismatched lengths). The CLI prints ``error: <message>`` and exits
    non-zero instead of showing a traceback, so the message must stand alone.
    """
