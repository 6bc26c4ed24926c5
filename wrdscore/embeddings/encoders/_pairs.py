"""Positive pairs for contrastive tuning: names that mean the same, from code or from a file.

A SOURCE is either a corpus folder (written by ``wrdscore ingest``) or a TSV file of
``a<TAB>b`` pairs. From a corpus come three kinds, each switchable:

summary
    A method's name (split into words) with the first sentence of its Javadoc: the
    sentence says what the name means, in other words.
synonym
    The token pairs the specialisation miner finds (two names documented alike), kept
    only where static vectors already relate them (:func:`~wrdscore.embeddings.confirm_synonyms`).
abbreviation
    The short form and expansion pairs the miner finds (``idx``/``index``).

Every text is normalised as the metrics read it: split into sub-tokens
(:func:`~wrdscore.corpora.split_identifier`) and joined by single spaces, so an
encoder is tuned on exactly the strings it will be asked to score. Pairs that coincide
with held-out rated pairs (the ones agreement is measured on) are dropped and counted,
so a tuned encoder is never measured on what it was trained on.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wrdscore.corpora import split_identifier
from wrdscore.errors import WrdscoreError, counted

if TYPE_CHECKING:
    from gensim.models import KeyedVectors

#: The kinds of pairs a corpus gives, in the order the card lists them.
CORPUS_KINDS = ("summary", "synonym", "abbreviation")
#: The kind of every pair read from a TSV file.
FILE_KIND = "file"


def normalise(text: str) -> str:
    """``text`` as the metrics read it: sub-tokens joined by single spaces.

    Examples
    --------
    >>> normalise("getUserName"), normalise("Returns the user's name.")
    ('get user name', 'returns the user s name')
    """
    return " ".join(split_identifier(text))


@dataclass(frozen=True)
class PairOptions:
    """Which pairs to take from the sources, and how many.

    Attributes
    ----------
    summaries, synonyms, abbreviations : bool
        The corpus kinds to mine (see the module docstring).
    hard_negatives : bool
        Give a pair a third text, its second with one token replaced by a mined
        contrast (``get name`` -> ``set name``), that the loss pushes away.
    max_pairs : int, optional
        Keep a seeded random sample of this many pairs (after dropping duplicates
        and held-out pairs).
    seed : int
        Seed of that sample and of the choice among a token's contrasts.
    """

    summaries: bool = True
    synonyms: bool = True
    abbreviations: bool = True
    hard_negatives: bool = False
    max_pairs: int | None = None
    seed: int = 0

    def kinds(self) -> list[str]:
        """The corpus kinds switched on."""
        on = (self.summaries, self.synonyms, self.abbreviations)
        return [k for k, wanted in zip(CORPUS_KINDS, on, strict=True) if wanted]


@dataclass
class TrainingPairs:
    """Pairs ready for training, and the counts the tune card reports.

    Attributes
    ----------
    anchors, positives : list of str
        The two texts of each pair (normalised, see :func:`normalise`).
    negatives : list of str or None
        A hard negative per pair where one was made (``hard_negatives``), else None.
    sources : list of dict
        Per source: ``path``, ``type`` (``corpus`` or ``pairs``) and ``pairs`` (count
        per kind, as read); a corpus also has ``methods`` and ``with_summary``.
    dropped : dict of str to int
        Pairs left out: ``duplicates`` (the same two texts, either order, again),
        ``held_out`` (coincide with a held-out rated pair), ``held_out_token_links``
        (one-token pairs linking a token of a rated reference to one of its
        prediction), ``max_pairs`` (past the sample), ``held_out_negatives``
        (negatives not used because they make a held-out pair).
    """

    anchors: list[str] = field(default_factory=list)
    positives: list[str] = field(default_factory=list)
    negatives: list[str | None] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    confirmation: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.anchors)

    def by_kind(self) -> dict[str, int]:
        """Pairs used, per kind."""
        out: dict[str, int] = {}
        for k in self.kinds:
            out[k] = out.get(k, 0) + 1
        return out

    def summary(self) -> dict[str, Any]:
        """What the tune card records about the pairs."""
        return {
            "used": len(self),
            "by_kind": self.by_kind(),
            "hard_negatives": sum(n is not None for n in self.negatives),
            "dropped": dict(self.dropped),
            "confirm": self.confirmation,
        }


class HeldOut:
    """Rated pairs no training pair may coincide with.

    Parameters
    ----------
    pairs : iterable of (str, str)
        ``(reference, prediction)`` of each rated pair, as identifiers or words.

    Notes
    -----
    A training pair is held out when its two texts are a rated pair's two texts
    (sub-token strings, either order). A one-token training pair (a mined synonym,
    ``size``/``count``) is also held out when it links a token of a rated reference
    to a token of its prediction, as the curated list is written: otherwise tuning
    would pull together exactly the words a rated pair differs by.
    """

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self.exact: set[frozenset[str]] = set()
        self.links: set[frozenset[str]] = set()
        for ref, pred in pairs:
            a, b = split_identifier(ref), split_identifier(pred)
            self.exact.add(frozenset((" ".join(a), " ".join(b))))
            self.links.update(frozenset((x, y)) for x in a for y in b if x != y)

    def reason(self, a: str, b: str) -> str | None:
        """``held_out``, ``held_out_token_links`` or None for normalised texts ``a``, ``b``."""
        if frozenset((a, b)) in self.exact:
            return "held_out"
        if " " not in a and " " not in b and frozenset((a, b)) in self.links:
            return "held_out_token_links"
        return None


def read_pair_file(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The pairs of a TSV file, ``a<TAB>b`` per line, normalised.

    Blank lines and lines starting with ``#`` are skipped.

    Raises
    ------
    WrdscoreError
        A file that cannot be read as UTF-8, a line without exactly two tab-separated
        fields, a field with no letter or digit, or a file with no pair: one line
        naming ``file:line`` and the reason.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "p.tsv"
    >>> _ = f.write_text("getIdx\\tget index\\n# comment\\n\\nmsg\\tmessage\\n")
    >>> read_pair_file(f)
    [('get idx', 'get index'), ('msg', 'message')]
    """
    p = Path(path)
    out: list[tuple[str, str]] = []
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            for lineno, raw in enumerate(fh, 1):
                line = raw.rstrip("\r\n")
                if not line.strip() or line.startswith("#"):
                    continue
                parts = line.split("\t")
                if len(parts) != 2:
                    raise WrdscoreError(
                        f"{p}:{lineno}: expected two fields 'a<TAB>b', found {len(parts)}"
                    )
                a, b = (normalise(x) for x in parts)
                if not a or not b:
                    raise WrdscoreError(f"{p}:{lineno}: a field has no letter or digit")
                out.append((a, b))
    except UnicodeDecodeError as exc:
        raise WrdscoreError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not out:
        raise WrdscoreError(f"{p}: no pairs (expected lines 'a<TAB>b')")
    return out


def _summary_pairs(corpus: Any) -> tuple[list[tuple[str, str]], int, int]:
    """``(name, summary)`` pairs of a corpus, the number of methods and of those with a summary."""
    out: list[tuple[str, str]] = []
    methods = documented = 0
    for record in corpus.iter_methods():
        methods += 1
        summary = normalise(record.get("summary") or "")
        if not summary:
            continue
        documented += 1
        out.append((" ".join(record["tokens"]), summary))
    return out, methods, documented


def _contrasts(constraints: Any) -> dict[str, list[str]]:
    """Each token's mined contrasts, sorted: what a hard negative swaps a token for."""
    out: dict[str, set[str]] = {}
    for p in constraints.contrast:
        out.setdefault(p.a, set()).add(p.b)
        out.setdefault(p.b, set()).add(p.a)
    return {t: sorted(v) for t, v in out.items()}


def corpus_pairs(
    corpus_dir: str | os.PathLike[str],
    options: PairOptions,
    confirm_kv: KeyedVectors | None,
) -> tuple[list[tuple[str, str, str]], dict[str, Any], dict[str, list[str]], dict[str, Any] | None]:
    """Mine the pairs of the kinds ``options`` switches on from one corpus.

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``.
    options : PairOptions
    confirm_kv : gensim KeyedVectors, optional
        Vectors that confirm mined synonyms (:func:`~wrdscore.embeddings.confirm_synonyms`);
        None keeps every mined synonym.

    Returns
    -------
    pairs : list of (kind, a, b)
    source : dict
        The card's entry for this source.
    contrasts : dict of str to list of str
        Each token's mined contrasts (for hard negatives; empty unless asked for).
    confirmation : dict or None
        What confirming the synonyms kept and dropped.

    Raises
    ------
    WrdscoreError
        A corpus with no Javadoc summary when summaries are the only kind asked for.
    """
    from wrdscore.corpora import open_corpus

    corpus = open_corpus(corpus_dir)
    pairs: list[tuple[str, str, str]] = []
    source: dict[str, Any] = {"path": str(corpus_dir), "type": "corpus"}
    counts = dict.fromkeys(options.kinds(), 0)
    if options.summaries:
        found, methods, documented = _summary_pairs(corpus)
        source.update(methods=methods, with_summary=documented)
        if not found and options.kinds() == ["summary"]:
            raise WrdscoreError(
                f"corpus {corpus_dir}: none of its {methods} methods has a Javadoc summary, "
                "and summaries are the only kind of pair asked for"
            )
        pairs += [("summary", a, b) for a, b in found]
        counts["summary"] = len(found)
    contrasts: dict[str, list[str]] = {}
    confirmation = None
    if options.synonyms or options.abbreviations or options.hard_negatives:
        from wrdscore.embeddings import confirm_synonyms, mine_constraints

        constraints = mine_constraints(Path(corpus_dir))
        if options.synonyms and confirm_kv is not None:
            constraints, confirmed = confirm_synonyms(constraints, confirm_kv)
            confirmation = confirmed.summary()
        if options.synonyms:
            pairs += [("synonym", p.a, p.b) for p in constraints.synonym]
            counts["synonym"] = len(constraints.synonym)
        if options.abbreviations:
            pairs += [("abbreviation", p.a, p.b) for p in constraints.abbreviation]
            counts["abbreviation"] = len(constraints.abbreviation)
        if options.hard_negatives:
            contrasts = _contrasts(constraints)
            source["contrasts"] = len(constraints.contrast)
    source["pairs"] = counts
    return pairs, source, contrasts, confirmation


def _negative(text: str, contrasts: dict[str, list[str]], rng: random.Random) -> str | None:
    """``text`` with its first token that has a mined contrast swapped for one of them."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if w in contrasts:
            return " ".join([*words[:i], rng.choice(contrasts[w]), *words[i + 1 :]])
    return None


def check_sources(sources: Sequence[str | os.PathLike[str]]) -> None:
    """Refuse a ``--pairs`` source that :func:`gather_pairs` would, before any model loads.

    Quick: a folder must open as a corpus (its manifest is read, not its records) and
    a file must parse as pairs (files of pairs are small).

    Raises
    ------
    WrdscoreError
        No source, a source that is neither a corpus folder nor a file, a malformed
        pairs file.
    """
    from wrdscore.corpora import open_corpus

    if not sources:
        raise WrdscoreError("no --pairs source given (a corpus folder or a TSV of pairs)")
    for src in sources:
        path = Path(src)
        if path.is_dir():
            open_corpus(path)
        elif path.is_file():
            read_pair_file(path)
        else:
            raise WrdscoreError(f"--pairs {src}: no such file or folder")


def gather_pairs(
    sources: Sequence[str | os.PathLike[str]],
    options: PairOptions,
    held_out: Iterable[tuple[str, str]],
    confirm_kv: KeyedVectors | None = None,
) -> TrainingPairs:
    """The training pairs of every source, deduplicated, with held-out pairs dropped.

    Parameters
    ----------
    sources : sequence of paths
        Corpus folders and TSV files of pairs, in any mix.
    options : PairOptions
    held_out : iterable of (str, str)
        ``(reference, prediction)`` pairs that must not be trained on (the rated
        pairs agreement is measured on); see :class:`HeldOut`.
    confirm_kv : gensim KeyedVectors, optional
        Vectors that confirm mined synonyms.

    Raises
    ------
    WrdscoreError
        No source, a source that is neither a folder nor a file, a malformed pairs
        file, or no pair left to train on.
    """
    if not sources:
        raise WrdscoreError("no --pairs source given (a corpus folder or a TSV of pairs)")
    out = TrainingPairs()
    raw: list[tuple[str, str, str]] = []
    contrasts: dict[str, list[str]] = {}
    for src in sources:
        path = Path(src)
        if path.is_dir():
            mined, entry, found, confirmation = corpus_pairs(path, options, confirm_kv)
            for token, others in found.items():
                contrasts[token] = sorted({*contrasts.get(token, []), *others})
            if confirmation is not None:
                out.confirmation = confirmation
            raw += mined
        elif path.is_file():
            pairs = read_pair_file(path)
            entry = {"path": str(src), "type": "pairs", "pairs": {FILE_KIND: len(pairs)}}
            raw += [(FILE_KIND, a, b) for a, b in pairs]
        else:
            raise WrdscoreError(f"--pairs {src}: no such file or folder")
        out.sources.append(entry)
    rated = HeldOut(held_out)
    dropped = dict.fromkeys(("duplicates", "held_out", "held_out_token_links", "max_pairs"), 0)
    seen: set[frozenset[str]] = set()
    kept: list[tuple[str, str, str]] = []
    for kind, a, b in raw:
        reason = rated.reason(a, b)
        if reason is not None:
            dropped[reason] += 1
            continue
        key = frozenset((a, b))
        if key in seen:
            dropped["duplicates"] += 1
            continue
        seen.add(key)
        kept.append((kind, a, b))
    rng = random.Random(options.seed)
    if options.max_pairs is not None and len(kept) > options.max_pairs:
        dropped["max_pairs"] = len(kept) - options.max_pairs
        kept = rng.sample(kept, options.max_pairs)
    if len(kept) < 2:
        raise WrdscoreError(
            f"{counted(len(kept), 'training pair')} left after dropping duplicates and held-out "
            "pairs; in-batch negatives need at least 2"
        )
    dropped["held_out_negatives"] = 0
    for kind, a, b in kept:
        # The loss reads (anchor, positive[, negative]): the longer text (a summary)
        # asks for the name, whose contrast-swapped twin is the hard negative.
        anchor, positive = (b, a) if kind == "summary" else (a, b)
        negative = _negative(positive, contrasts, rng) if contrasts else None
        if negative is not None and rated.reason(anchor, negative) is not None:
            dropped["held_out_negatives"] += 1
            negative = None
        out.anchors.append(anchor)
        out.positives.append(positive)
        out.negatives.append(negative)
        out.kinds.append(kind)
    out.dropped = dropped
    return out


def iter_texts(pairs: TrainingPairs) -> Iterator[str]:
    """Every text of the pairs (anchors, positives, negatives), once each."""
    seen: set[str] = set()
    for text in (*pairs.anchors, *pairs.positives, *(n for n in pairs.negatives if n)):
        if text not in seen:
            seen.add(text)
            yield text
