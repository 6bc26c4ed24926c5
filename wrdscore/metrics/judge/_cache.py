"""The judge's answers on disk: a SQLite file keyed by model, prompt and input.

Every reply the server gives is written, and committed, as soon as it arrives, so a run
stopped at any point (Ctrl-C, a server that went away) keeps every answer it had; the
next run asks only what is not there. Replies that could not be read as a rating are
kept too: they are the server's answers to those requests, asking again at temperature
0 would give them again, and a rerun reports them as the first run did. Failed requests
(time-outs, refused connections) are not answers and are never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wrdscore.errors import WrdscoreError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """``judge.sqlite`` in the user's cache folder (``$WRDSCORE_CACHE``, else
    ``$XDG_CACHE_HOME/wrdscore``, else ``~/.cache/wrdscore``), as for encoder baselines."""
    root = os.environ.get("WRDSCORE_CACHE")
    if root:
        return Path(root) / "judge.sqlite"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "wrdscore" / "judge.sqlite"


def request_key(request: dict[str, Any]) -> str:
    """SHA-256 of a request (model, messages, sampling settings), its cache key.

    Examples
    --------
    >>> request_key({"model": "m", "seed": 0}) == request_key({"seed": 0, "model": "m"})
    True
    """
    text = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Answer:
    """One reply: the model as the server named it, the text, its tokens and time."""

    model: str
    reply: str | None
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class AnswerCache:
    """The answers of one SQLite file (created with its folder when missing).

    Opened per scoring call and closed after it; only the thread that opened it uses it
    (the judge's request threads hand their answers back to it).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30)
            # WAL: a reader (another run) never blocks the writer, and a commit is cheap.
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise WrdscoreError(f"judge cache {self.path}: cannot be used ({exc})") from None

    def get(self, key: str) -> Answer | None:
        """The stored answer of ``key``, or None."""
        row = self._db.execute(
            "SELECT model, reply, prompt_tokens, completion_tokens, seconds FROM answers "
            "WHERE key = ?",
            (key,),
        ).fetchone()
        return None if row is None else Answer(*row)

    def put(self, key: str, answer: Answer) -> None:
        """Store and commit one answer (at once: nothing answered is lost after this)."""
        self._db.execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                answer.model,
                answer.reply,
                answer.prompt_tokens,
                answer.completion_tokens,
                answer.seconds,
            ),
        )
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close the file."""
        self._db.close()
