"""Lexical constraints mined from a code corpus: contrasts, synonyms and abbreviations.

Distributional embeddings learn relatedness: ``get`` and ``set`` occur in the same
places, so they end up close. People rating method names judge *similarity* (could
one name stand in for the other?). The constraints mined here tell the two apart,
from the training corpus alone (never from rated pairs), and feed
:func:`~wrdscore.embeddings.attract_repel`:

contrast
    Two methods of one class are different methods, so tokens that alternate between
    otherwise identical sibling names (``getName``/``setName``,
    ``rotateLeft``/``rotateRight``) are not interchangeable.
synonym
    Methods of different classes with the same Javadoc summary but different names
    (``Inserts the specified element into this queue.`` on ``add`` and ``offer``) name
    the same operation in different words. On a corpus with method context (format
    2), so do methods of different classes whose whole context (Javadoc, signature
    and body words) is the same.
abbreviation
    A short token that is a prefix (``num``/``number``) or a consonant skeleton
    (``msg``/``message``) of a longer one and fills the same name frames
    (``get_Count``, ``_Format``) stands for it.

Everything is counted in one streaming pass over the corpus; memory grows with the
number of distinct summaries and (token, frame) pairs, not with the number of
methods kept in memory.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.errors import WrdscoreError

KINDS = ("contrast", "synonym", "abbreviation")
#: Word endings that make a longer token an inflection or derivation of a shorter one
#: (``index``/``indexes``, ``paint``/``painter``), not an expansion of an abbreviation.
_INFLECTIONS = frozenset(
    [
        "s",
        "es",
        "ed",
        "d",
        "er",
        "ers",
        "ing",
        "ings",
        "ly",
        "ren",
        "able",
        "ible",
        "ment",
        "ments",
        "ness",
        "ful",
        "ion",
        "ions",
        "ation",
        "ations",
        "ize",
        "ized",
        "ise",
        "ised",
        "ity",
        "al",
        "ally",
        "ive",
        "or",
        "ors",
        "ler",
        "lers",
        "ary",
    ]
)
_VOWELS = frozenset("aeiou")
PAIRS_FILE = "pairs.tsv"
#: Where a synonym's evidence came from (a pair found both ways has both, joined by "+").
SYNONYM_SOURCES = ("summary", "body")
#: The source of pairs from the curated list (:func:`~wrdscore.embeddings.read_curated`).
CURATED_SOURCE = "curated"
#: Source of pairs carried over to inflected forms (:func:`~wrdscore.embeddings.add_inflections`).
INFLECTION_SOURCE = "inflection"


@dataclass(frozen=True)
class MinedPair:
    """One mined constraint.

    Attributes
    ----------
    kind : {"contrast", "synonym", "abbreviation"}
    a, b : str
        The two tokens (``a < b`` for contrasts and synonyms; ``a`` is the short
        form for abbreviations).
    support : int
        contrast: distinct classes (path, type) where the tokens alternate;
        synonym: distinct normalised summaries, plus distinct method contexts,
        shared by names that differ by them; abbreviation: distinct name frames both
        tokens fill.
    frames : int
        contrast: distinct name frames of the alternation (``_ name`` counts once
        however many classes have it); synonym: distinct classes; abbreviation:
        occurrences of the short token.
    example : str
        One piece of evidence, for people reading the list.
    source : str
        synonym: ``summary``, ``body`` or ``summary+body`` (which rule found it);
        ``siblings`` for contrasts and ``frames`` for abbreviations; ``curated`` for
        pairs from the curated list (:func:`~wrdscore.embeddings.read_curated`);
        ``inflection`` for pairs carried over to inflected forms
        (:func:`~wrdscore.embeddings.add_inflections`);
        empty when not recorded (pairs files written before the column existed).
    """

    kind: str
    a: str
    b: str
    support: int
    frames: int
    example: str
    source: str = ""


@dataclass(frozen=True)
class MiningSettings:
    """The thresholds of the confidence rules (see :func:`mine_constraints`)."""

    min_types: int = 3
    min_frames: int = 2
    max_fillers: int = 5
    min_alternation_rate: float = 1 / 3
    min_summary_words: int = 4
    max_summary_names: int = 5
    min_summaries: int = 2
    min_count: int = 5
    min_short_length: int = 3
    min_shared_frames: int = 3
    min_context_tokens: int = 12
    min_context_distinct: int = 6
    max_context_names: int = 3
    min_bodies: int = 3
    min_body_types: int = 3


@dataclass(frozen=True)
class Constraints:
    """Mined pairs of every kind, with the settings and corpus they came from."""

    contrast: list[MinedPair]
    synonym: list[MinedPair]
    abbreviation: list[MinedPair]
    settings: MiningSettings = field(default_factory=MiningSettings)
    corpus_sha256: str = ""

    def pairs(self, kind: str) -> list[MinedPair]:
        """The pairs of one kind (error for an unknown kind)."""
        check_kind(kind)
        return list(getattr(self, kind))

    def sizes(self) -> dict[str, int]:
        """Number of pairs of each kind."""
        return {kind: len(getattr(self, kind)) for kind in KINDS}

    def __iter__(self) -> Iterator[MinedPair]:
        for kind in KINDS:
            yield from getattr(self, kind)

    def synonym_sources(self) -> dict[str, int]:
        """Number of synonym pairs found by each rule (a pair found by both counts in both)."""
        return {
            src: sum(src in p.source.split("+") for p in self.synonym) for src in SYNONYM_SOURCES
        }

    def curated_sizes(self) -> dict[str, int]:
        """Number of pairs of each kind that come from the curated list, not from mining."""
        return self._sizes_of(CURATED_SOURCE)

    def inflected_sizes(self) -> dict[str, int]:
        """Number of pairs of each kind carried over to inflected forms of other pairs."""
        return self._sizes_of(INFLECTION_SOURCE)

    def _sizes_of(self, source: str) -> dict[str, int]:
        return {kind: sum(p.source == source for p in getattr(self, kind)) for kind in KINDS}

    def summary(self) -> dict[str, Any]:
        """Sizes (curated and inflected pairs included), the curated and inflected
        shares, synonym sources, settings and corpus hash, as stored in ``model.json``."""
        return {
            "sizes": self.sizes(),
            "curated": self.curated_sizes(),
            "inflected": self.inflected_sizes(),
            "synonym_sources": self.synonym_sources(),
            "settings": asdict(self.settings),
            "corpus_manifest_sha256": self.corpus_sha256,
            "file": PAIRS_FILE,
        }


def check_kind(kind: str) -> None:
    """Refuse a kind that is not one of :data:`KINDS`."""
    if kind not in KINDS:
        raise WrdscoreError(f"unknown pair kind {kind!r}; choose one of {', '.join(KINDS)}")


def normalise_summary(summary: str) -> str:
    """Lower-cased sub-tokens of a summary joined by spaces (punctuation and markup gone).

    Examples
    --------
    >>> normalise_summary("Returns the {@code Size} of this list.")
    'returns the size of this list'
    """
    return " ".join(split_identifier(summary.replace("{@code", " ").replace("}", " ")))


def _substitution(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    """The one word that differs between two names of the same length, as a sorted pair.

    Such names fill the same frame (``is _``), as sibling names do for contrasts. Names
    of different shapes (``getLineJoin`` against ``strokeLineJoinProperty``) or with
    two words changed (``removeAll`` against ``replaceValues``) are different methods
    that happen to share a sentence of Javadoc, not one operation in other words; so is
    a difference in a number or other non-word (``arg1``/``arg2``): None for all of these.

    Examples
    --------
    >>> _substitution(("is", "empty"), ("is", "blank"))
    ('blank', 'empty')
    >>> _substitution(("get", "line", "join"), ("stroke", "line", "join", "property")) is None
    True
    >>> _substitution(("remove", "all"), ("replace", "values")) is None
    True
    """
    if len(a) != len(b):
        return None
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(differ) != 1 or not (differ[0][0].isalpha() and differ[0][1].isalpha()):
        return None
    return (min(differ[0]), max(differ[0]))


def _is_subsequence(short: str, long: str) -> bool:
    chars = iter(long)
    return all(ch in chars for ch in short)


class _Miner:
    """Accumulates the evidence of one pass over the records."""

    def __init__(self, settings: MiningSettings) -> None:
        self.s = settings
        # contrast: pair -> classes, frames; first evidence for display.
        self.contrast_types: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.contrast_frames: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.contrast_example: dict[tuple[str, str], str] = {}
        # token -> the classes (ids, increasing) whose method names contain it, to tell
        # paired operations from tokens that merely share a class.
        self.token_types: dict[str, list[int]] = defaultdict(list)
        self._type_arrays: dict[str, NDArray[np.int64]] = {}
        # synonyms: normalised summary -> {name tokens: classes}; None once boilerplate.
        self.summaries: dict[str, dict[tuple[str, ...], set[int]] | None] = {}
        # abbreviations: token -> frames it fills (frames with at least one other token).
        self.token_frames: dict[str, set[int]] = defaultdict(set)
        self.name_counts: Counter[str] = Counter()
        self.summary_counts: Counter[str] = Counter()
        self.frame_ids: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
        self.frame_keys: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        self.type_ids: dict[tuple[str, str], int] = {}
        self.type_names: list[str] = []
        # body synonyms: hash of a context -> (name tokens, class) of its first method,
        # upgraded to _Body once a second name has it; None once boilerplate.
        self.contexts: dict[int, tuple[tuple[str, ...], int] | _Body | None] = {}

    def _frame(self, tokens: tuple[str, ...], i: int) -> int:
        key = (tokens[:i], tokens[i + 1 :])
        fid = self.frame_ids.get(key)
        if fid is None:
            fid = self.frame_ids[key] = len(self.frame_keys)
            self.frame_keys.append(key)
        return fid

    def add_file(self, records: list[dict[str, Any]]) -> None:
        """The methods of one source file (sibling groups never cross files)."""
        by_type: dict[int, set[tuple[str, ...]]] = defaultdict(set)
        for record in records:
            tokens = tuple(record.get("tokens") or split_identifier(record.get("name") or ""))
            if not tokens:
                continue
            tkey = (str(record.get("path")), str(record.get("type")))
            type_id = self.type_ids.get(tkey)
            if type_id is None:
                type_id = self.type_ids[tkey] = len(self.type_names)
                self.type_names.append(tkey[1])
            by_type[type_id].add(tokens)
            self.name_counts.update(tokens)
            if len(tokens) > 1:
                for i, tok in enumerate(tokens):
                    self.token_frames[tok].add(self._frame(tokens, i))
            if record.get("summary"):
                self._add_summary(str(record["summary"]), tokens, type_id)
            context = record.get("context")
            if context:
                self._add_context(context, tokens, type_id)
        for type_id, names in sorted(by_type.items()):
            self._add_siblings(type_id, names)

    def _add_summary(self, summary: str, tokens: tuple[str, ...], type_id: int) -> None:
        words = normalise_summary(summary).split()
        self.summary_counts.update(words)
        if len(words) < self.s.min_summary_words:
            return
        key = " ".join(words)
        names = self.summaries.setdefault(key, {})
        if names is None:
            return
        names.setdefault(tokens, set()).add(type_id)
        if len(names) > self.s.max_summary_names:
            # Boilerplate ("Not supported.", "Tests ..."): said of too many names to
            # mean any one operation; forget it to keep memory bounded.
            self.summaries[key] = None

    def _add_context(self, context: str | list[str], tokens: tuple[str, ...], type_id: int) -> None:
        words = tuple(context.split() if isinstance(context, str) else context)
        # A short or repetitive context (``int count`` of ``return count;``) is shared
        # by chance, not because two methods do the same thing.
        if len(words) < self.s.min_context_tokens or len(set(words)) < self.s.min_context_distinct:
            return
        # A 64-bit hash instead of the words keeps memory at one small entry per
        # method; a collision would need two different contexts with equal hashes.
        key = hash(words)
        entry = self.contexts.get(key, _MISSING)
        if entry is _MISSING:
            self.contexts[key] = (tokens, type_id)
        elif entry is None:
            return
        elif isinstance(entry, tuple):
            if entry[0] != tokens:
                body = _Body(" ".join(words[:12]))
                body.names[entry[0]] = {entry[1]}
                body.names[tokens] = {type_id}
                self.contexts[key] = body
        else:
            entry.names.setdefault(tokens, set()).add(type_id)
            if len(entry.names) > self.s.max_context_names:
                # The same code under many names (a stub that throws, a visitor's
                # dispatch) says nothing about any one name.
                self.contexts[key] = None

    def _add_siblings(self, type_id: int, names: set[tuple[str, ...]]) -> None:
        for tok in set().union(*names):
            self.token_types[tok].append(type_id)
        fillers: dict[int, set[str]] = defaultdict(set)
        # Sorted, so frame ids and the example shown do not depend on hash order.
        for tokens in sorted(names):
            for i, tok in enumerate(tokens):
                fillers[self._frame(tokens, i)].add(tok)
        for frame, toks in fillers.items():
            # A slot with many fillers (get_ of a bean with 30 properties) is a list of
            # different things rather than a pair of alternatives; skip it.
            if len(toks) < 2 or len(toks) > self.s.max_fillers:
                continue
            for a, b in itertools.combinations(sorted(toks), 2):
                self.contrast_types[(a, b)].add(type_id)
                self.contrast_frames[(a, b)].add(frame)
                self.contrast_example.setdefault((a, b), self._frame_text(frame, a, b))

    def shared_types(self, a: str, b: str) -> int:
        """Number of classes whose method names contain both ``a`` and ``b``."""
        return int(np.intersect1d(self._types_of(a), self._types_of(b), assume_unique=True).size)

    def _types_of(self, token: str) -> NDArray[np.int64]:
        # Arrays, made once per token asked for: ``get`` is in some 100,000 classes of
        # the default corpus and in thousands of candidate pairs.
        found = self._type_arrays.get(token)
        if found is None:
            # unique: a class whose methods are not consecutive in the records is
            # listed once per run of them.
            found = self._type_arrays[token] = np.unique(self.token_types.get(token, ()))
        return found

    def _frame_text(self, frame: int, a: str, b: str) -> str:
        before, after = self.frame_keys[frame]
        return " ".join([*before, f"{a}|{b}", *after])

    # ---- the confidence rules -------------------------------------------------

    def synonym_candidates(self) -> dict[tuple[str, str], tuple[set[str], set[int]]]:
        found: dict[tuple[str, str], tuple[set[str], set[int]]] = {}
        for summary, names in self.summaries.items():
            if not names or len(names) < 2:
                continue
            for (ta, ca), (tb, cb) in itertools.combinations(sorted(names.items()), 2):
                if ca == cb and len(ca) == 1:
                    continue  # the same single class: siblings, not independent wording
                pair = _substitution(ta, tb)
                if pair is None:
                    continue
                texts, classes = found.setdefault(pair, (set(), set()))
                texts.add(summary)
                classes.update(ca | cb)
        return found

    def body_candidates(self) -> dict[tuple[str, str], tuple[set[int], set[int], str]]:
        """Substitutions between names sharing a context: pair -> (contexts, classes, example)."""
        found: dict[tuple[str, str], tuple[set[int], set[int], str]] = {}
        for key, entry in self.contexts.items():
            if not isinstance(entry, _Body):
                continue
            for (ta, ca), (tb, cb) in itertools.combinations(sorted(entry.names.items()), 2):
                # Both names in one class only: siblings or an in-class alias, and a
                # class's copied stubs (rotateLeft/rotateRight throwing the same
                # exception) look the same; only independent classes count.
                types = {self.type_names[t] for t in ca | cb}
                if len(types) == 1:
                    continue
                pair = _substitution(ta, tb)
                if pair is None:
                    continue
                example = f"{' '.join(ta)} / {' '.join(tb)}: {entry.preview}"
                bodies, classes, _ = found.setdefault(pair, (set(), set(), example))
                bodies.add(key)
                classes.update(ca | cb)
        return found

    def abbreviations(self, vocab: set[str]) -> dict[str, tuple[str, int]]:
        s = self.s
        by_first: dict[str, list[str]] = defaultdict(list)
        for tok in sorted(vocab):
            by_first[tok[0]].append(tok)
        best: dict[str, tuple[tuple[int, int, str], str, int]] = {}
        for short in sorted(vocab):
            # Two letters stand for too many words to expand from name frames alone
            # (do: double, me: message, lo: location or long).
            if len(short) < s.min_short_length:
                continue
            frames_short = self.token_frames.get(short, set())
            for long in by_first[short[0]]:
                if len(long) < len(short) + 2:
                    continue
                if long.startswith(short):
                    rest = long[len(short) :]
                    # A compound (keymap = key + map) or an inflection (indexes, wrapped)
                    # is not an expansion. A compound's parts are words at least as common
                    # as the compound; a rare token that happens to spell the remainder
                    # (ber, from ASN.1's encoding rules, in num + ber) does not make one.
                    if rest in _INFLECTIONS:
                        continue
                    if rest in vocab and self.name_counts[rest] >= self.name_counts[long]:
                        continue
                    if rest[0] == short[-1] and rest[1:] in _INFLECTIONS:
                        continue
                elif not (
                    len(short) >= 3
                    and not set(short[1:]) & _VOWELS
                    and len(long) <= 2.5 * len(short)
                    and _is_subsequence(short, long)
                ):
                    continue
                # A real word used in prose (for/format, of/offset, state/statement) is
                # not an abbreviation: in summaries the full form must be the commoner.
                if self.summary_counts[short] >= self.summary_counts[long]:
                    continue
                frames_long = self.token_frames.get(long, set())
                shared = len(frames_short & frames_long)
                if shared < s.min_shared_frames:
                    continue
                key = (shared, self.name_counts[long], long)
                if short not in best or key > best[short][0]:
                    best[short] = (key, long, shared)
        return {short: (long, shared) for short, (_, long, shared) in best.items()}


_MISSING: Any = object()


class _Body:
    """Names seen with one context: name tokens -> classes, and the context's start."""

    __slots__ = ("names", "preview")

    def __init__(self, preview: str) -> None:
        self.names: dict[tuple[str, ...], set[int]] = {}
        self.preview = preview


def _iter_files(records: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Group consecutive records of the same file (``ingest`` writes a file's methods together)."""
    current: list[dict[str, Any]] = []
    path = None
    for record in records:
        if current and record.get("path") != path:
            yield current
            current = []
        path = record.get("path")
        current.append(record)
    if current:
        yield current


def _mined(records: Iterable[dict[str, Any]], settings: MiningSettings) -> _Miner:
    """The miner after one pass over ``records``, a file's methods at a time."""
    miner = _Miner(settings)
    for file_records in _iter_files(records):
        miner.add_file(file_records)
    return miner


def mine_records(
    records: Iterable[dict[str, Any]], settings: MiningSettings | None = None
) -> Constraints:
    """Mine constraints from method records (the fields ``wrdscore ingest`` writes).

    See :func:`mine_constraints` for the rules; this is the same on any iterable of
    records, e.g. in tests.

    Examples
    --------
    >>> names = ("getName", "setName", "getSize", "setSize")
    >>> recs = [{"name": n, "tokens": split_identifier(n), "type": t, "path": t,
    ...          "summary": None} for t in "ABC" for n in names]
    >>> [(p.a, p.b, p.support) for p in mine_records(recs).contrast]
    [('get', 'set', 3), ('name', 'size', 3)]
    """
    s = settings or MiningSettings()
    miner = _mined(records, s)

    # Each rule keeps a pair on its own evidence; a pair kept by both sums the two.
    # Copied Javadoc or code (a setter documented like its getter) makes contrasts
    # look like synonyms, so a rule's support must exceed the number of classes where
    # the pair alternates as siblings.
    found: dict[tuple[str, str], list[tuple[str, int, set[int], str]]] = defaultdict(list)
    for pair, (texts, classes) in miner.synonym_candidates().items():
        alternations = len(miner.contrast_types.get(pair, ()))
        if len(texts) >= s.min_summaries and len(texts) > alternations:
            example = min(texts, key=lambda t: (len(t), t))
            found[pair].append(("summary", len(texts), classes, example))
    for pair, (bodies, classes, example) in miner.body_candidates().items():
        alternations = len(miner.contrast_types.get(pair, ()))
        type_names = {miner.type_names[t] for t in classes}
        enough = len(bodies) >= s.min_bodies and len(type_names) >= s.min_body_types
        if enough and len(bodies) > alternations:
            found[pair].append(("body", len(bodies), classes, example))
    synonyms: dict[tuple[str, str], MinedPair] = {}
    for pair, evidence in found.items():
        synonyms[pair] = MinedPair(
            "synonym",
            *pair,
            sum(e[1] for e in evidence),
            len(set().union(*(e[2] for e in evidence))),
            evidence[0][3],
            "+".join(e[0] for e in evidence),
        )

    vocab = {
        t for t, c in miner.name_counts.items() if c >= s.min_count and t.isalpha() and len(t) > 1
    }
    abbreviations: dict[tuple[str, str], MinedPair] = {}
    for short, (long, shared) in miner.abbreviations(vocab).items():
        pair = (min(short, long), max(short, long))
        if pair in synonyms:
            continue
        abbreviations[pair] = MinedPair(
            "abbreviation",
            short,
            long,
            shared,
            miner.name_counts[short],
            f"{short} -> {long}",
            "frames",
        )

    contrasts = []
    for pair, types in miner.contrast_types.items():
        frames = miner.contrast_frames[pair]
        if len(types) < s.min_types or len(frames) < s.min_frames:
            continue
        if pair in synonyms or pair in abbreviations:
            continue
        if len(types) < s.min_alternation_rate * miner.shared_types(*pair):
            continue
        contrasts.append(
            MinedPair(
                "contrast",
                *pair,
                len(types),
                len(frames),
                miner.contrast_example[pair],
                "siblings",
            )
        )
    return Constraints(
        contrast=_ranked(contrasts),
        synonym=_ranked(synonyms.values()),
        abbreviation=_ranked(abbreviations.values()),
        settings=s,
    )


def _ranked(pairs: Iterable[MinedPair]) -> list[MinedPair]:
    """Strongest evidence first, then alphabetical (a stable, reproducible order)."""
    return sorted(pairs, key=lambda p: (-p.support, -p.frames, p.a, p.b))


def mine_constraints(corpus_dir: str | Path, settings: MiningSettings | None = None) -> Constraints:
    """Mine contrast, synonym and abbreviation pairs from a corpus folder.

    The confidence rules (thresholds in :class:`MiningSettings`):

    contrast
        A *name frame* is a method name with one token replaced by a slot
        (``_ name`` for ``getName``). Within one class (``path``, ``type``), the
        tokens filling the same frame are alternatives (slots with more than
        ``max_fillers`` = 5 fillers, like ``get _`` of a big bean, are skipped).
        A pair is kept when it alternates in at least ``min_types`` = 3 classes and
        ``min_frames`` = 2 distinct frames, in at least ``min_alternation_rate`` = 1/3
        of the classes whose method names contain both tokens, and is not a synonym
        or abbreviation. The rate tells paired operations from tokens that merely
        meet in a class: where a class names both ``add`` and ``remove`` it pairs
        them (``addListener``/``removeListener``) in 72% of the classes of the
        default corpus, ``left``/``right`` in 81%, ``get``/``set`` in 63%; near-synonyms
        that happen to be siblings in a few classes (``getCount``/``getSize``) are
        mostly named in other shapes (``size()`` beside ``getItemCount()``):
        ``count``/``size`` 8%, ``delete``/``remove`` 5%, ``create``/``new`` 3%,
        and so are two unrelated properties (``name``/``size`` 16%). The third is
        the gap between the two groups on the default corpus (antonyms from 40%,
        ``open``/``close``, up; near-synonyms at or below 10%), read off the issue's
        example pairs, not off any rated pair. Opposites named in different shapes
        are lost with them (``up``/``down``, 11%: ``setUp``/``tearDown``).
    synonym
        Summaries are normalised (sub-tokens, lower case); a summary of fewer than
        ``min_summary_words`` = 4 words, or written on more than
        ``max_summary_names`` = 5 distinct names (boilerplate), is ignored. Two
        distinct names sharing a summary, from different classes, that have the same
        length and differ in exactly one token (the same frame, as for contrasts:
        ``isBlank``/``isEmpty``, not ``getLineJoin``/``strokeLineJoinProperty`` nor
        ``removeAll``/``replaceValues``) make that token pair a candidate. A
        pair is kept when at least ``min_summaries`` = 2 distinct summaries support
        it, and more summaries than classes where it alternates as a contrast.
        On a corpus with method context (format 2: records with ``context``), the
        same one-token rule runs over names sharing an identical context (the exact
        sequence of Javadoc, signature and body words; the name itself is not in
        it): contexts of fewer than ``min_context_tokens`` = 12 words or fewer than
        ``min_context_distinct`` = 6 distinct words (``return count;``, a one-line
        setter) are ignored, and so is a context seen under more than
        ``max_context_names`` = 3 distinct names (stubs, dispatch boilerplate);
        names of one and the same class (type name) do not count. A pair is kept
        when at least ``min_bodies`` = 3 distinct contexts support it, from at
        least ``min_body_types`` = 3 distinct type names, and more contexts than
        classes where it alternates as a contrast. A method that only delegates
        (``size() { return count(); }``) is not used as evidence: its context is
        a few words (``int count``), and without operators and literals it cannot
        tell an alias from ``isEmpty() { return size() == 0; }``. Each pair
        records which rule found it (``source``: ``summary``, ``body`` or both).
    abbreviation
        Over alphabetic tokens seen ``min_count`` = 5 times in names, a short form
        ``s`` of at least ``min_short_length`` = 3 letters (two letters, ``do`` or
        ``lo``, stand for too many words: ``double``, ``location``, ``long``) abbreviates
        ``l`` (``len(l) >= len(s) + 2``, same first letter) when ``s`` is a prefix
        of ``l`` whose remainder is neither an inflection (``-s``, ``-er``, ``-ing``...)
        nor a vocabulary token at least as frequent in names as ``l`` (a compound:
        ``keymap`` = ``key`` + ``map``; the rare token ``ber`` does not make ``number``
        one), or ``s`` has 3+ letters, no vowel
        after the first, and is a subsequence of ``l`` at most 2.5 times its length
        (``msg``/``message``). It must
        be confirmed by shared contexts: both fill at least ``min_shared_frames`` = 3
        common name frames; and the full form must be the commoner in summaries (a
        real word like ``for`` is written in prose, an abbreviation is not). Each
        short token keeps its best expansion: the most shared frames (then the
        commoner long token).

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``; ``tokens``, ``type``, ``path``,
        ``summary`` and, where records have it, ``context`` are read.
    settings : MiningSettings, optional
        Thresholds; the defaults above.

    Returns
    -------
    Constraints
        The pairs of each kind, strongest evidence first.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     for t in ("A", "B", "C"):
    ...         for n in ("getName", "setName", "getSize", "setSize"):
    ...             w.write({"name": n, "tokens": split_identifier(n), "type": t,
    ...                      "path": f"{t}.java", "summary": None})
    ...     w.write_manifest({})
    >>> c = mine_constraints(d)
    >>> [(p.a, p.b, p.support, p.frames, p.example) for p in c.contrast]
    [('get', 'set', 3, 2, 'get|set name'), ('name', 'size', 3, 2, 'get name|size')]
    """
    corpus = open_corpus(corpus_dir)
    mined = mine_records(corpus.iter_methods(), settings)
    return Constraints(
        mined.contrast, mined.synonym, mined.abbreviation, mined.settings, corpus.manifest_sha256
    )
