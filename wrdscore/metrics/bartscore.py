"""BARTScore (Yuan et al. 2021): how likely a seq2seq model finds one name given the other.

BARTScore ("BARTScore: Evaluating Generated Text as Text Generation", NeurIPS 2021)
scores a text ``y`` given a text ``x`` by the average log-likelihood a pretrained
sequence-to-sequence model (BART) gives ``y`` when it reads ``x``:

.. math::

    \\mathrm{BARTScore}(x \\to y) = \\frac{1}{m} \\sum_{t=1}^{m}
        \\log p(y_t \\mid y_{<t}, x, \\theta)

with uniform token weights (the paper's default) over the ``m`` tokens of ``y`` as the
model's tokenizer cuts it, its begin and end tokens included (what the authors' released
``BARTScorer.score`` averages over). Each side is the name's sub-tokens joined by
spaces, so ``getUserName`` is fed to the model as ``"get user name"``, as every metric
here reads it.

The paper's four variants, with the reference ``r`` and the prediction (hypothesis) ``h``:

- faithfulness ``s -> h``: the source text gives the hypothesis;
- precision ``r -> h``;
- recall ``h -> r``;
- F score ``r <-> h``: the paper defines it as the *arithmetic* mean of precision and
  recall ("Arithmetic average of Precision and Recall", Sect. 3.3), and the authors'
  code computes it so; a harmonic mean of two negative log-likelihoods would mean nothing.

Here the only "source" of a predicted name is its reference, so faithfulness *is*
precision (``r -> h``); it is not given twice. The values are the ``precision``,
``recall`` and ``f1`` every P/R metric here has, ``f1`` (the headline value) being the
paper's F, ``(P + R) / 2``. All three are log-likelihoods: at most 0 (0 only for a
certain model), higher is better, not on the 0-1 scale of the other metrics.

An empty prediction is refused (a one-line error naming the first): every other metric
scores it 0, its worst value, but for BARTScore 0 lies *above* every real score, and a
log-likelihood has no lowest value to give it instead.

Needs the ``encoders`` extra (torch, transformers); nothing here imports torch until a
metric is built, so the registry (which imports every metric module) stays light.

No real pretrained BART could be tested here (nothing can be downloaded where this was
written); the tests check every number against the model's own loss on a tiny random
BART. To run the real thing, save a model once where a hub is reachable, e.g.
``python -c "from transformers import AutoModelForSeq2SeqLM as M, AutoTokenizer as T;
n='facebook/bart-large-cnn'; [c.from_pretrained(n).save_pretrained('bart-large-cnn')
for c in (M, T)]"``, then ``wrdscore score --refs R --preds P -m bartscore --set
bartscore.model=bart-large-cnn``.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics._result import Scored
from wrdscore.metrics.base import Metric, Tokens, register

#: (source, target) scores a run keeps; past this the cache starts again (flat memory).
CACHE_PAIRS = 100_000
#: A maximum length above this is a tokenizer's "no limit" placeholder (1e30), not a limit.
_NO_LIMIT = 10**6


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:160]


def _model_folder(model: Any) -> Path:
    """The model folder the ``model`` option names, checked; a one-line error otherwise."""
    if model is None:
        raise WrdscoreError(
            "bartscore needs a seq2seq model folder: --set bartscore.model=PATH "
            "(Python: model=PATH)"
        )
    # `--set bartscore.model=2024` reads the folder name as JSON, i.e. the number 2024.
    if isinstance(model, int) and not isinstance(model, bool):
        model = str(model)
    if not isinstance(model, str | os.PathLike):
        raise WrdscoreError(f"bartscore: model must be a folder path, not {model!r}")
    folder = Path(model).expanduser()
    if not folder.exists():
        raise WrdscoreError(f"bartscore: model folder {os.fspath(model)} does not exist")
    if not folder.is_dir():
        raise WrdscoreError(f"bartscore: model {os.fspath(model)} is not a folder")
    if not (folder / "config.json").is_file():
        raise WrdscoreError(
            f"bartscore: {os.fspath(model)} is not a Hugging Face model folder (no config.json)"
        )
    return folder


@register
class BARTScore(Metric):
    """BARTScore precision, recall and F of each pair (average token log-likelihoods).

    Parameters
    ----------
    embeddings : ignored
        Accepted so that every metric is built the same way.
    model : str or path
        A local folder of a Hugging Face seq2seq model and its tokenizer (BART, as in the
        paper, e.g. ``facebook/bart-large-cnn`` saved with ``save_pretrained``). Required.
    device : {"cpu", "cuda"}, optional
        Default: cuda when available.
    batch_size : int, optional
        (source, target) pairs per forward pass; default: the encoders' default (64).

    Attributes
    ----------
    truncated : int
        Scored (source, target) pairs, since the metric was built, with a side longer
        than the model's maximum (:attr:`max_length` tokens): that side was cut to it,
        never silently; ``wrdscore score`` reports the count.

    Notes
    -----
    ``precision`` is ``BARTScore(r -> h)`` (which is also the paper's faithfulness
    ``s -> h`` here, the reference being the only source), ``recall`` is
    ``BARTScore(h -> r)``, and ``f1`` is the paper's F, ``(precision + recall) / 2``;
    see the module docstring. Texts are batched by length (little padding), each
    distinct (source, target) pair is run once (a bounded cache), and padding
    never reaches a score: a pair scores the same alone or in any batch, up to float
    rounding.

    Examples
    --------
    >>> m = BARTScore(model="bart-large-cnn")  # doctest: +SKIP
    >>> res = m.score(["getUserName"], ["get name"])  # doctest: +SKIP
    >>> res.precision, res.recall, res.f1  # doctest: +SKIP
    >>> m.signature  # doctest: +SKIP
    'bartscore|model:bart-large-cnn@sha:...|w:uniform|max:...|torch:...,tf:...|v:...'
    """

    name = "bartscore"
    no_code_reason = (
        "its values are log-likelihoods, not similarities in [0, 1], so mixing them with "
        "the reference's would mix scales, and its BART model reads English, not Java"
    )
    in_process = True
    empty_scores_zero = False
    needs_model = True

    def __init__(
        self,
        embeddings: object = None,
        *,
        model: Any = None,
        device: str | None = None,
        batch_size: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        # The encoders package is light, but the registry imports this module for any
        # listing of metrics, so it is imported only when a BARTScore is built.
        from wrdscore.embeddings.encoders import DEFAULT_BATCH_SIZE, resolve_device, torch_stack

        self.folder = _model_folder(model)
        if batch_size is None:
            batch_size = DEFAULT_BATCH_SIZE
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise WrdscoreError(
                f"bartscore: batch_size must be an integer >= 1, not {batch_size!r}"
            )
        self.batch_size = batch_size
        self.model_name = self.folder.resolve().name
        self.device = resolve_device(device)
        self._torch, _ = torch_stack()
        self._load()
        self._cache: dict[tuple[str, str], float] = {}
        # The (source, target) directions of the cache that had a side cut: each call
        # counts its own (cached or not), as ``pairs`` in its result's cuts.
        self._cut: set[tuple[str, str]] = set()

    def _load(self) -> None:
        """Load the tokenizer and the seq2seq model; one-line errors for what is not one."""
        from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

        where = f"bartscore: {self.folder}"
        for noisy in ("transformers", "huggingface_hub"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        # Loading draws progress bars on stderr; the user's terminal is not the place.
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                config = AutoConfig.from_pretrained(self.folder)
            except Exception as exc:
                raise WrdscoreError(
                    f"{where}: unreadable model config ({_first_line(exc)})"
                ) from None
            if not getattr(config, "is_encoder_decoder", False):
                raise WrdscoreError(
                    f"{where}: not a seq2seq (encoder-decoder) model but a "
                    f"{config.model_type!r} model; BARTScore needs one such as BART"
                )
            try:
                self.tokenizer = AutoTokenizer.from_pretrained(self.folder)
            except Exception as exc:
                raise WrdscoreError(f"{where}: no usable tokenizer ({_first_line(exc)})") from None
            try:
                self.model = AutoModelForSeq2SeqLM.from_pretrained(self.folder)
            except Exception as exc:
                raise WrdscoreError(
                    f"{where}: cannot be loaded as a seq2seq model ({_first_line(exc)})"
                ) from None
        # transformers 5 builds an empty tokenizer (special tokens only) for a folder
        # without tokenizer files: every text would become the same unknown tokens.
        if len(self.tokenizer) <= len(set(self.tokenizer.all_special_ids)):
            raise WrdscoreError(
                f"{where}: no usable tokenizer (its vocabulary is only special tokens; "
                "save the tokenizer into the folder too)"
            )
        if self.tokenizer.pad_token_id is None:
            raise WrdscoreError(
                f"{where}: its tokenizer has no padding token, which batching needs"
            )
        # Right padding: the decoder's causal mask then keeps every real position off the
        # pads after it, as in the authors' code.
        self.tokenizer.padding_side = "right"
        self.model.eval()
        self.model.to(self.device)
        limits = [
            getattr(self.tokenizer, "model_max_length", None),
            getattr(config, "max_position_embeddings", None),
        ]
        self.max_length = int(min(x for x in limits if x and x < _NO_LIMIT))

    @cached_property
    def sha(self) -> str:
        """8 hex digits of SHA-256 over the weight files (the encoders' ``weights_sha``)."""
        from wrdscore.embeddings.encoders import weights_sha

        return weights_sha(self.folder)

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        """Scored pairs with a side longer than the model's maximum, cut to it (``cuts``'s
        ``pairs``: directions scored, each (source, target) once a call)."""
        if not cuts.get("pairs"):
            return ""
        return (
            f"bartscore: {counted(cuts['pairs'], 'scored pair')} had a side longer than the "
            f"model's maximum of {self.max_length} tokens, cut to it"
        )

    def _signature_fields(self) -> dict[str, str]:
        from wrdscore.embeddings.encoders import stack_versions

        # stack_versions() is "torch:X,tf:Y,st:Z"; sentence-transformers plays no part here.
        versions = dict(part.split(":", 1) for part in stack_versions().split(","))
        return {
            "model": f"{self.model_name}@sha:{self.sha}",
            "w": "uniform",
            "max": str(self.max_length),
            "torch": f"{versions['torch']},tf:{versions['tf']}",
        }

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> Scored:
        ref_texts = [" ".join(t) for t in refs]
        pred_texts = [" ".join(t) for t in preds]
        forward = list(zip(ref_texts, pred_texts, strict=True))
        backward = [(p, r) for r, p in forward]
        directions = list(dict.fromkeys(forward + backward))
        todo = [k for k in directions if k not in self._cache]
        if len(self._cache) + len(todo) > CACHE_PAIRS:
            # Memory stays flat on streamed input; what this call reads from the cache is
            # kept (emptied under it, its cached pairs were looked up in vain: a KeyError).
            kept = {k: self._cache[k] for k in directions if k in self._cache}
            self._cache = kept
            self._cut &= kept.keys()
        self._cache.update(zip(todo, self.log_likelihoods(todo), strict=True))
        cut = sum(k in self._cut for k in directions)
        precision = np.fromiter(map(self._cache.__getitem__, forward), np.float64, len(forward))
        recall = np.fromiter(map(self._cache.__getitem__, backward), np.float64, len(backward))
        self._advance(len(refs))
        values = {"precision": precision, "recall": recall, "f1": (precision + recall) / 2.0}
        return Scored(values, cuts=Counter({"pairs": cut}))

    def log_likelihoods(self, pairs: list[tuple[str, str]]) -> list[float]:
        """The average log-likelihood of each target given its source (uncached).

        Parameters
        ----------
        pairs : list of (source, target) texts

        Returns
        -------
        list of float
            ``(1/m) sum_t log p(y_t | y_<t, x)`` over the target's ``m`` tokens (begin
            and end tokens included), in the order of ``pairs``. A side longer than
            :attr:`max_length` tokens is cut to it (and the pair remembered as cut, for
            the count of each scoring call).
        """
        if not pairs:
            return []
        tok = self.tokenizer
        sources = [s for s, _ in pairs]
        targets = [t for _, t in pairs]
        src_len = np.fromiter(map(len, tok(sources)["input_ids"]), np.int64, len(pairs))
        tgt_len = np.fromiter(map(len, tok(targets)["input_ids"]), np.int64, len(pairs))
        long = (np.maximum(src_len, tgt_len) > self.max_length).tolist()
        self._cut.update(pair for pair, cut in zip(pairs, long, strict=True) if cut)
        # Sorted by target, then source length: a batch's members need little padding.
        order = np.lexsort((src_len, tgt_len))
        out = np.zeros(len(pairs))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size].tolist()
            out[idx] = self._batch([sources[i] for i in idx], [targets[i] for i in idx])
        return out.tolist()

    def _batch(self, sources: list[str], targets: list[str]) -> NDArray[np.float64]:
        """Average target log-likelihoods of one padded batch."""
        torch = self._torch
        cut = {"truncation": True, "max_length": self.max_length, "padding": True}
        src = self.tokenizer(sources, return_tensors="pt", **cut).to(self.device)
        tgt = self.tokenizer(targets, return_tensors="pt", **cut).to(self.device)
        labels = tgt["input_ids"]
        with torch.inference_mode():
            logits = self.model(
                input_ids=src["input_ids"],
                attention_mask=src["attention_mask"],
                decoder_input_ids=self.model.prepare_decoder_input_ids_from_labels(labels=labels),
            ).logits
            logp = torch.log_softmax(logits.float(), dim=-1)
            token = logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
            mask = tgt["attention_mask"].to(token.dtype)
            mean = (token * mask).sum(dim=1) / mask.sum(dim=1)
        return mean.double().cpu().numpy()
