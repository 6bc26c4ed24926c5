"""Hints for likely misuse: inputs that run, but probably not as the user meant.

Each function looks at what a command was given and returns a one-line hint, or ``None``.
A hint never changes a result and never stops a command: the commands print it on
standard error as ``hint: ...``, after their output. Looking is cheap: at most the first
:data:`SAMPLE` predictions are read, and an input that cannot be read gives no hint (the
command itself reports the problem).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wrdscore.errors import WrdscoreError, counted

#: Predictions a hint looks at: the first ones of the file.
SAMPLE = 1000
#: Share of the predictions looked at that must look like chat replies, or sentences,
#: for a hint: a few odd items in a file of names are no sign of a wrong option.
SHARE = 0.1
SENTENCE_SHARE = 0.5
#: Pairs below which a bootstrap's interval is itself unreliable: the resamples of a
#: handful of pairs take few distinct values, so the percentile interval is coarse and
#: usually too narrow (the usual rule of thumb for the percentile bootstrap asks 30+).
SMALL_SAMPLE = 30

# Four words or more that end like a sentence, or begin with a capital: 'Returns the
# name.', 'Gets the user by id' (names written out in words are lower case: 'get user
# name').
_SENTENCE = re.compile(r"^(?=(?:\S+\s+){3,}\S)(?:[A-Z].*|.*[.!?])$", re.S)


def first_predictions(path: str | Path) -> list[Any]:
    """The first :data:`SAMPLE` items of a predictions file (``[]`` where it cannot be read).

    Predictions by id (a ``.jsonl`` of ``{"id": ..., "prediction": ...}`` objects, for
    ``score --corpus``) give their predictions.
    """
    from wrdscore.inputs import id_predictions, iter_line_chunks, parse_lines

    if not Path(path).is_file():
        # A pipe can be read once, and scoring refuses it: a look here would block on it
        # or take what scoring needs.
        return []
    try:
        by_id = id_predictions(path)
        if by_id is not None:
            return list(by_id.values())[:SAMPLE]
        chunk = next(iter(iter_line_chunks(path, SAMPLE)), [])
        return parse_lines(chunk, path)
    except (WrdscoreError, OSError, UnicodeDecodeError, ValueError):
        return []


def chat_hint(predictions: Sequence[Any], cleaned: bool) -> str | None:
    """A hint to ``--clean-predictions`` when many predictions hold more than a name.

    A prediction that :func:`~wrdscore.corpora.clean_prediction` would change (a code
    fence, a lead-in such as 'The method name is', quotes, a call) is scored with all of
    it otherwise: 'The method name is `getName`.' against ``getName`` loses most of its
    score to the words around the name.
    """
    if cleaned:
        return None
    from wrdscore.corpora import clean_prediction

    texts = [p for p in predictions if isinstance(p, str)]
    chat = sum(clean_prediction(p) != p for p in texts)
    if not texts or chat < SHARE * len(texts):
        return None
    return (
        f"{chat} of the first {counted(len(texts), 'prediction')} hold more than a name or "
        "summary (a code fence, a lead-in, quotes, a call); --clean-predictions scores "
        "what they give instead (docs/scoring.md, 'Names as models write them')"
    )


def sentence_hint(predictions: Sequence[Any], target: str) -> str | None:
    """A hint to ``--target summary`` when most predictions read as sentences but are
    scored as names against the code."""
    if target != "name":
        return None
    texts = [p for p in predictions if isinstance(p, str)]
    sentences = sum(bool(_SENTENCE.match(p.strip())) for p in texts)
    if not texts or sentences < SENTENCE_SHARE * len(texts):
        return None
    return (
        f"{sentences} of the first {counted(len(texts), 'prediction')} read as sentences, "
        "but they are scored as names; give --target summary if they are summaries"
    )


def model_folder_hint(words: Sequence[str], command: str) -> str | None:
    """A hint when a word given to ``similarity`` or ``neighbors`` names a model folder.

    ``similarity my-model getBook`` compares the word 'my-model' with getBook in the
    bundled model: the model goes after ``-e``.
    """
    for word in words:
        if (Path(word) / "model.json").is_file():
            usage = "A B" if command == "similarity" else "TOKEN"
            return (
                f"{word} is a model folder, read here as a word; to use the model: "
                f"wrdscore {command} {usage} -e {word}"
            )
    return None


def small_sample_hint(pairs: int) -> str | None:
    """A hint that a bootstrap of fewer than :data:`SMALL_SAMPLE` pairs is unreliable."""
    if pairs >= SMALL_SAMPLE:
        return None
    return (
        f"only {counted(pairs, 'pair')}: the bootstrap's interval and p-value "
        f"are rough on fewer than {SMALL_SAMPLE}; score more pairs before drawing a conclusion"
    )
