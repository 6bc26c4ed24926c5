"""Contrastive tuning on code: pull names that mean the same together, push the rest apart.

Two variants share the pairs (:mod:`._pairs`), the loss and the card:

- :func:`tune_encoder` fine-tunes a sentence-transformers / Hugging Face encoder with the
  library's own trainer (``SentenceTransformerTrainer``) and the symmetric in-batch
  negatives loss (InfoNCE both ways, as VarCLR trains: Chen et al., ICSE 2022). The
  pairs are unordered (a rename, two synonyms), so neither side is the "query":
  each text must pick its partner out of the other side's texts in both directions.
- :func:`tune_static` tunes a static MODEL_DIR's token vectors with the same loss over
  each name's mean sub-token vector (VarCLR-Avg). The trainer wants a transformer, so
  this is a short loop over a torch ``EmbeddingBag``; the result is an ordinary
  MODEL_DIR, scored with no torch at all.

Both write their output atomically (a temporary folder beside it, renamed when
complete; an error or Ctrl-C leaves nothing) with ``tune-card.json`` and
``TUNE_CARD.md``: sources, pairs per kind, what was dropped, settings, versions, the
loss curve and the time taken.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore.atomic import atomic_dir, check_output_dir
from wrdscore.embeddings.encoders._encoder import _silenced, check_encoder_options, weights_sha
from wrdscore.embeddings.encoders._pairs import (
    PairOptions,
    TrainingPairs,
    check_sources,
    gather_pairs,
)
from wrdscore.embeddings.encoders._runtime import (
    check_device,
    resolve_device,
    stack_versions,
    torch_stack,
)
from wrdscore.errors import WrdscoreError

CARD_JSON = "tune-card.json"
CARD_MD = "TUNE_CARD.md"
TUNE_HINT = "install the tune extra: pip install 'wrdscore[tune]'"
#: Learning rates when none is given: the usual one for fine-tuning a small transformer
#: (sentence-transformers' examples use 2e-5), and for static vectors one that moves a
#: coordinate (about 1.6 in the bundled model) by a few percent per step.
ENCODER_LR = 2e-5
STATIC_LR = 1e-2
#: Loss-curve points the card keeps (the trainer logs every ``steps / this`` steps).
CURVE_POINTS = 50


@dataclass(frozen=True)
class TuneSettings:
    """How to train.

    Attributes
    ----------
    epochs : int
        Passes over the pairs.
    batch_size : int
        Pairs per step; each pair's partner competes with the other ``batch_size - 1``
        pairs' texts (the in-batch negatives), so at least 2.
    lr : float, optional
        Peak learning rate; default :data:`ENCODER_LR` or :data:`STATIC_LR`.
    seed : int
        Seed of the order of the pairs and of the weights' random parts.
    device : {"cpu", "cuda"}, optional
        Default: cuda when available.
    max_steps : int, optional
        Stop after this many steps (a short run), whatever ``epochs`` says.
    scale : float
        Inverse temperature of the softmax over cosines (sentence-transformers' 20).
    warmup_ratio : float
        Share of the steps over which the learning rate rises linearly (encoders).
    """

    epochs: int = 1
    batch_size: int = 32
    lr: float | None = None
    seed: int = 0
    device: str | None = None
    max_steps: int | None = None
    scale: float = 20.0
    warmup_ratio: float = 0.1

    def check(self) -> None:
        """Refuse settings that cannot train, before any work.

        Raises
        ------
        WrdscoreError
            A batch of fewer than 2 pairs (no in-batch negative), no epoch, a
            learning rate or step count that is not positive.
        """
        if self.batch_size < 2:
            raise WrdscoreError(
                f"--batch-size {self.batch_size}: in-batch negatives need at least 2 pairs "
                "per batch (the other pairs of a batch are each pair's negatives)"
            )
        if self.epochs < 1:
            raise WrdscoreError(f"--epochs must be at least 1, not {self.epochs}")
        if self.lr is not None and not (self.lr > 0 and math.isfinite(self.lr)):
            raise WrdscoreError(f"--lr must be a positive number, not {self.lr}")
        if self.max_steps is not None and self.max_steps < 1:
            raise WrdscoreError(f"--max-steps must be at least 1, not {self.max_steps}")
        if not 0 <= self.warmup_ratio < 1:
            raise WrdscoreError(f"the warm-up ratio must be in [0, 1), not {self.warmup_ratio}")


def _train_stack() -> Any:
    """The trainer's extra dependencies (datasets, accelerate), or a one-line error."""
    torch_stack()
    try:
        import accelerate  # noqa: F401  (the trainer needs it, and says so late)
        import datasets
    except ImportError as exc:
        raise WrdscoreError(f"tuning an encoder needs {exc.name}; {TUNE_HINT}") from None
    return datasets


def _losses() -> Any:
    """sentence-transformers' losses module, where this version keeps it (moved in 6.0)."""
    import importlib

    try:
        return importlib.import_module("sentence_transformers.sentence_transformer.losses")
    except ImportError:
        return importlib.import_module("sentence_transformers.losses")


def symmetric_loss(model: Any, scale: float) -> tuple[Any, str]:
    """The symmetric in-batch-negatives loss and its name for the card.

    sentence-transformers 5.2+ has it as ``MultipleNegativesRankingLoss`` with both
    directions, each normalised on its own; earlier versions as
    ``MultipleNegativesSymmetricRankingLoss`` (the same loss, deprecated since).
    """
    import inspect

    losses = _losses()
    mnrl = losses.MultipleNegativesRankingLoss
    if "directions" in inspect.signature(mnrl).parameters:
        loss = mnrl(
            model,
            scale=scale,
            directions=("query_to_doc", "doc_to_query"),
            partition_mode="per_direction",
        )
        return loss, "MultipleNegativesRankingLoss(query_to_doc+doc_to_query, per_direction)"
    return losses.MultipleNegativesSymmetricRankingLoss(
        model, scale=scale
    ), "MultipleNegativesSymmetricRankingLoss"


def _max_length(model: Any) -> int:
    """The most word pieces a text keeps: the least of the model's stated limits."""
    config = model[0].auto_model.config
    limits = [
        model.max_seq_length,
        getattr(model.tokenizer, "model_max_length", None),
        getattr(config, "max_position_embeddings", None),
    ]
    return int(min(x for x in limits if x and x < 10**6))


def _too_long(model: Any, texts: Sequence[str], limit: int) -> int:
    """Texts with more word pieces (special tokens included) than ``limit``."""
    n = 0
    for start in range(0, len(texts), 10_000):
        enc = model.tokenizer(list(texts[start : start + 10_000]), add_special_tokens=True)
        n += sum(len(ids) > limit for ids in enc["input_ids"])
    return n


def _datasets(datasets: Any, pairs: TrainingPairs) -> Any:
    """One dataset of (anchor, positive) columns, or two when some pairs have a negative.

    Every row of a dataset has the same columns, so pairs with a hard negative go to a
    second dataset of triplets, and the trainer draws batches from both in proportion.
    """
    plain = [i for i, n in enumerate(pairs.negatives) if n is None]
    hard = [i for i, n in enumerate(pairs.negatives) if n is not None]

    def columns(rows: list[int], negatives: bool) -> dict[str, list[str]]:
        out = {
            "anchor": [pairs.anchors[i] for i in rows],
            "positive": [pairs.positives[i] for i in rows],
        }
        if negatives:
            out["negative"] = [str(pairs.negatives[i]) for i in rows]
        return out

    if not hard:
        return datasets.Dataset.from_dict(columns(plain, False))
    parts = {"triplets": datasets.Dataset.from_dict(columns(hard, True))}
    if plain:
        parts["pairs"] = datasets.Dataset.from_dict(columns(plain, False))
    return datasets.DatasetDict(parts)


def _progress_callback(transformers: Any, bar: Any, curve: list[dict[str, float]]) -> Any:
    """A trainer callback: advance the bar each step, record and show each logged loss."""

    class Progress(transformers.TrainerCallback):  # type: ignore[misc]
        task = 0

        def on_train_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            self.task = bar.add_task("tuning", total=state.max_steps, loss=float("nan"))

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            bar.advance(self.task)

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs and "loss" in logs:
                loss = float(logs["loss"])
                curve.append(
                    {"step": state.global_step, "epoch": round(state.epoch, 4), "loss": loss}
                )
                bar.update(self.task, loss=loss)

    return Progress()


def _bar(quiet: bool) -> Any:
    """A progress bar on stderr with the last logged loss, its ETA and elapsed time."""
    from wrdscore.progress import progress_bar

    if quiet:
        return progress_bar(True)
    from rich.progress import TextColumn

    return progress_bar(False, TextColumn("loss {task.fields[loss]:.4f}"))


def _refuse_model_dir(folder: Path, name: str) -> None:
    """A static MODEL_DIR given where an encoder is expected: say to use --static."""
    if (folder / "model.json").is_file() and not (folder / "config.json").is_file():
        raise WrdscoreError(
            f"encoder {name}: a static MODEL_DIR, not an encoder folder; tune it with --static"
        )


def tune_encoder(
    name_or_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    sources: Sequence[str | os.PathLike[str]],
    *,
    held_out: Iterable[tuple[str, str]],
    options: PairOptions | None = None,
    settings: TuneSettings | None = None,
    force: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Fine-tune an encoder on positive pairs; write it, with its card, to ``output``.

    Parameters
    ----------
    name_or_path : str or path
        The encoder to start from (see :func:`resolve_encoder_path`).
    output : path
        The encoder folder to write; ``--encoder`` and every metric take it.
    sources : sequence of paths
        Corpus folders and TSV files of pairs (:func:`gather_pairs`).
    held_out : iterable of (str, str)
        Rated ``(reference, prediction)`` pairs never to train on (required, so no
        caller forgets them; pass ``()`` knowingly).
    options : PairOptions, optional
        Which kinds of pairs, how many, hard negatives.
    settings : TuneSettings, optional
    force : bool
        Replace an existing ``output``.
    quiet : bool
        No progress bar.

    Returns
    -------
    dict
        The card, as written to ``tune-card.json``.

    Raises
    ------
    WrdscoreError
        Bad settings, an existing ``output`` without ``force``, a folder that is not
        an encoder, bad sources (see :func:`gather_pairs`).
    """
    start = time.perf_counter()
    options = options or PairOptions()
    settings = settings or TuneSettings()
    settings.check()
    check_output_dir(output, force)
    folder = Path(name_or_path).expanduser()
    if folder.is_dir():
        _refuse_model_dir(folder, os.fspath(name_or_path))
    # Every argument is checked, and the pairs read, before the trainer's imports and
    # the model (seconds each): a missing --pairs file or CUDA fails at once.
    check_sources(sources)
    folder = check_encoder_options(name_or_path, device=settings.device)
    confirm_kv = None
    if options.synonyms and any(Path(s).is_dir() for s in sources):
        from wrdscore.embeddings import load_embeddings

        # Mined synonyms are confirmed by the bundled static vectors, as
        # `wrdscore specialise` confirms them (an encoder has no token vectors to ask).
        confirm_kv = load_embeddings("default").kv
    pairs = gather_pairs(sources, options, held_out, confirm_kv)
    datasets = _train_stack()
    device = resolve_device(settings.device)

    from wrdscore.embeddings.encoders._encoder import Encoder

    model = Encoder(folder, device=device).model
    model.train()
    limit = _max_length(model)
    model.max_seq_length = limit
    texts = [*pairs.anchors, *pairs.positives, *(n for n in pairs.negatives if n)]
    truncated = _too_long(model, texts, limit)
    lr = settings.lr if settings.lr is not None else ENCODER_LR
    loss, loss_name = symmetric_loss(model, settings.scale)
    curve: list[dict[str, float]] = []
    with atomic_dir(output, force=force) as tmp:
        result = _run_trainer(
            model, loss, _datasets(datasets, pairs), settings, lr, tmp, curve, quiet
        )
        # A learning rate too high turns the weights into NaN; the trainer goes on and
        # the loss it logs reads 0, so the encoder written would score every pair 0.
        if not all(bool(p.isfinite().all()) for p in model.parameters()):
            raise _diverged(result["steps"], lr)
        with _silenced():  # transformers' "Writing model shards" bar
            model.save(str(tmp), create_model_card=False)
        _readable(tmp)
        card = {
            "format": 1,
            "variant": "encoder",
            "base": {"name": os.fspath(name_or_path), "sha": weights_sha(folder)},
            "sha": weights_sha(tmp),
            "loss": {"name": loss_name, "scale": settings.scale, "symmetric": True},
            "settings": {
                **asdict(settings),
                "lr": lr,
                "device": device,
                "max_length": limit,
                **_option_fields(options),
            },
            "sources": pairs.sources,
            "pairs": {**pairs.summary(), "texts_truncated": truncated},
            "steps": result["steps"],
            "train_seconds": result["seconds"],
            "examples_per_second": result["examples_per_second"],
            "loss_curve": curve,
            "versions": _versions(),
        }
        card["wall_seconds"] = round(time.perf_counter() - start, 2)
        write_card(tmp, card)
    return card


def _run_trainer(
    model: Any,
    loss: Any,
    train: Any,
    settings: TuneSettings,
    lr: float,
    tmp: Path,
    curve: list[dict[str, float]],
    quiet: bool,
) -> dict[str, Any]:
    """Train with ``SentenceTransformerTrainer``; its scratch folder is removed after."""
    import logging

    import transformers
    from sentence_transformers import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    for noisy in ("sentence_transformers", "transformers", "accelerate", "datasets"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    transformers.logging.set_verbosity_error()
    rows = sum(len(d) for d in train.values()) if isinstance(train, dict) else len(train)
    steps = settings.max_steps or settings.epochs * math.ceil(rows / settings.batch_size)
    scratch = tmp / ".trainer"
    args = SentenceTransformerTrainingArguments(
        output_dir=str(scratch),
        num_train_epochs=settings.epochs,
        max_steps=settings.max_steps or -1,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=lr,
        warmup_ratio=settings.warmup_ratio,
        seed=settings.seed,
        data_seed=settings.seed,
        # A text twice in one batch would be its own negative (many summaries name
        # `get name`; `get` is in many mined pairs): such batches are not drawn.
        batch_sampler="no_duplicates",
        save_strategy="no",
        logging_strategy="steps",
        logging_steps=max(1, steps // CURVE_POINTS),
        logging_first_step=True,
        report_to="none",
        disable_tqdm=True,
        use_cpu=str(model.device) == "cpu",
        dataloader_num_workers=0,
    )
    with _silenced():  # the library's bar over the examples it shows in model cards
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=train, loss=loss)
    # disable_tqdm swaps the trainer's bar for a printer of every log dict on stdout;
    # the bar below (stderr, loss and ETA) replaces both.
    trainer.remove_callback(transformers.trainer_callback.PrinterCallback)
    # The library's model-card callback computes widget examples (a bar of its own) for
    # a README that is not written: TUNE_CARD.md is the card.
    for callback in list(trainer.callback_handler.callbacks):
        if type(callback).__name__.endswith("ModelCardCallback"):
            trainer.remove_callback(callback)
    with _bar(quiet) as bar:
        trainer.add_callback(_progress_callback(transformers, bar, curve))
        out = trainer.train()
    shutil.rmtree(scratch, ignore_errors=True)
    metrics = out.metrics
    return {
        "steps": int(out.global_step),
        "seconds": round(float(metrics["train_runtime"]), 2),
        "examples_per_second": round(float(metrics["train_samples_per_second"]), 2),
    }


def _readable(folder: Path) -> None:
    """Give every file the mode a new file gets: safetensors writes its own 0600."""
    mask = os.umask(0o022)
    os.umask(mask)
    for f in folder.rglob("*"):
        if f.is_file():
            f.chmod(0o666 & ~mask)


def _option_fields(options: PairOptions) -> dict[str, Any]:
    return {
        "summaries": options.summaries,
        "synonyms": options.synonyms,
        "abbreviations": options.abbreviations,
        "hard_negatives": options.hard_negatives,
        "max_pairs": options.max_pairs,
    }


def _versions() -> dict[str, str]:
    from wrdscore import __version__

    return {"wrdscore": __version__, "stack": stack_versions()}


def tune_static(
    model: str | os.PathLike[str],
    output: str | os.PathLike[str],
    sources: Sequence[str | os.PathLike[str]],
    *,
    held_out: Iterable[tuple[str, str]],
    options: PairOptions | None = None,
    settings: TuneSettings | None = None,
    force: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Tune a static MODEL_DIR's token vectors on positive pairs (VarCLR-Avg).

    Each text is the mean of its in-vocabulary sub-tokens' vectors (an
    ``EmbeddingBag`` initialised from the model); the loss is the symmetric InfoNCE
    of :func:`tune_encoder` over cosines, with in-batch negatives, and a text that
    occurs twice in a batch is not its own negative (masked). Only vectors of tokens
    in the pairs move; for a FastText model, the in-vocabulary word vectors (the
    n-gram buckets, and so unseen tokens' vectors, stay as trained).

    Parameters
    ----------
    model : path or "default"
        A MODEL_DIR (with document frequencies), or the bundled default.
    output : path
        The MODEL_DIR to write (with ``tune-card.json`` and ``TUNE_CARD.md``).
    sources, held_out, options, settings, force, quiet
        As for :func:`tune_encoder`.

    Returns
    -------
    dict
        The card.

    Raises
    ------
    WrdscoreError
        As :func:`tune_encoder`; a plain vectors file (no document frequencies to
        keep); pairs none of whose texts has a token in the vocabulary.
    """
    start = time.perf_counter()
    options = options or PairOptions()
    settings = settings or TuneSettings()
    settings.check()
    check_output_dir(output, force)
    # The sources and the device are checked before the model loads, not after.
    check_sources(sources)
    check_device(settings.device)
    from wrdscore.embeddings import load_embeddings

    emb = load_embeddings(os.fspath(model))
    if emb.doc_freq is None or not emb.n_docs:
        raise WrdscoreError(
            f"{model} is a plain vectors file; --static tunes a MODEL_DIR (with document "
            "frequencies), such as one written by `wrdscore train` or 'default'"
        )
    has_corpus = any(Path(s).is_dir() for s in sources)
    pairs = gather_pairs(sources, options, held_out, emb.kv if has_corpus else None)
    torch, _ = torch_stack()
    device = resolve_device(settings.device)
    index = emb.kv.key_to_index
    ids_a, ids_p, ids_n, kept = [], [], [], []
    for i, (a, p, n) in enumerate(
        zip(pairs.anchors, pairs.positives, pairs.negatives, strict=True)
    ):
        ta, tp = _ids(a, index), _ids(p, index)
        if ta and tp:
            ids_a.append(ta)
            ids_p.append(tp)
            ids_n.append(_ids(n, index) if n else [])
            kept.append(i)
    unseen = len(pairs) - len(kept)
    if len(kept) < 2:
        raise WrdscoreError(
            f"only {len(kept)} of {len(pairs)} pairs have a token of {emb.name}'s vocabulary "
            "on both sides; in-batch negatives need at least 2"
        )
    lr = settings.lr if settings.lr is not None else STATIC_LR
    vectors = np.asarray(emb.kv.vectors, dtype=np.float32)
    curve: list[dict[str, float]] = []
    t0 = time.perf_counter()
    new, steps, examples = _static_loop(
        torch, vectors, (ids_a, ids_p, ids_n), settings, lr, device, curve, quiet
    )
    if not np.isfinite(new).all():
        raise _diverged(steps, lr)
    seconds = time.perf_counter() - t0
    from wrdscore.embeddings.specialise._specialise import replace_vectors

    kv = replace_vectors(emb.kv, new)
    card: dict[str, Any] = {
        "format": 1,
        "variant": "static",
        "base": {"name": emb.name, "path": os.fspath(model), "sha": emb.sha},
        "loss": {
            "name": "symmetric InfoNCE over mean sub-token vectors (VarCLR-Avg)",
            "scale": settings.scale,
            "symmetric": True,
        },
        "settings": {**asdict(settings), "lr": lr, "device": device, **_option_fields(options)},
        "sources": pairs.sources,
        "pairs": {**pairs.summary(), "out_of_vocabulary": unseen, "trained": len(kept)},
        "steps": steps,
        "train_seconds": round(seconds, 2),
        "examples_per_second": round(examples / max(seconds, 1e-9), 2),
        "loss_curve": curve,
        "versions": _versions(),
    }
    meta = {k: v for k, v in emb.meta.items() if k not in ("format", "dim", "baselines")}
    meta["name"] = f"{emb.name}-tuned"
    meta["n_docs"] = emb.n_docs
    from wrdscore.embeddings import save_embeddings

    with atomic_dir(output, force=force) as tmp:
        inner = tmp / "model"
        # Rescaling baselines belong to the input vectors; the CLI computes new ones.
        meta["tune"] = {k: card[k] for k in ("base", "settings", "pairs", "steps")}
        # Word pieces and a fused model's fallback go along untuned, as specialising
        # leaves them: every token keeps a vector.
        save_embeddings(
            kv, inner, meta=meta, doc_freq=emb.doc_freq, pieces=emb.pieces, fallback=emb.fallback
        )
        for part in inner.iterdir():
            os.replace(part, tmp / part.name)
        inner.rmdir()
        card["sha"] = load_embeddings(tmp).sha
        card["wall_seconds"] = round(time.perf_counter() - start, 2)
        write_card(tmp, card)
    return card


def _diverged(steps: int, lr: float) -> WrdscoreError:
    """The error for a run whose weights left the finite numbers: nothing is written."""
    return WrdscoreError(
        f"tuning diverged: after {steps_text(steps)} the weights are no longer finite "
        f"numbers (--lr {lr:g} is too high); lower --lr"
    )


def _ids(text: str, index: dict[str, int]) -> list[int]:
    """Vocabulary rows of a normalised text's tokens; tokens outside it are left out."""
    return [index[t] for t in text.split(" ") if t in index]


def _static_loop(
    torch: Any,
    vectors: np.ndarray,
    ids: tuple[list[list[int]], list[list[int]], list[list[int]]],
    settings: TuneSettings,
    lr: float,
    device: str,
    curve: list[dict[str, float]],
    quiet: bool,
) -> tuple[np.ndarray, int, int]:
    """Adam on the symmetric InfoNCE loss; ``(new vectors, steps, examples seen)``.

    Pairs are shuffled each epoch (seeded). Per batch, ``logits[i, j]`` is ``scale``
    times the cosine of anchor ``i`` and positive ``j``; the loss is the mean of the
    cross-entropy of each row (anchor picks its positive; hard negatives are extra
    columns) and of each column (positive picks its anchor). A pair whose positive
    (or anchor) is the same text as another pair's is not that pair's negative.
    """
    anchors, positives, negatives = ids
    n = len(anchors)
    torch.manual_seed(settings.seed)
    bag = torch.nn.EmbeddingBag.from_pretrained(
        torch.from_numpy(vectors.copy()), freeze=False, mode="mean"
    ).to(device)
    opt = torch.optim.Adam(bag.parameters(), lr=lr)
    text_id: dict[tuple[int, ...], int] = {}
    a_key = [text_id.setdefault(tuple(t), len(text_id)) for t in anchors]
    p_key = [text_id.setdefault(tuple(t), len(text_id)) for t in positives]
    per_epoch = math.ceil(n / settings.batch_size)
    total = min(settings.max_steps or per_epoch * settings.epochs, per_epoch * settings.epochs)
    every = max(1, total // CURVE_POINTS)
    gen = torch.Generator().manual_seed(settings.seed)
    f = torch.nn.functional
    step = examples = 0

    def embed(rows: list[list[int]]) -> Any:
        flat = torch.tensor([i for r in rows for i in r], dtype=torch.long, device=device)
        lengths = torch.tensor([0, *(len(r) for r in rows[:-1])], device=device)
        return f.normalize(bag(flat, torch.cumsum(lengths, 0)), dim=-1)

    with _bar(quiet) as bar:
        task = bar.add_task("tuning", total=total, loss=float("nan"))
        while step < total:
            for batch in torch.randperm(n, generator=gen).split(settings.batch_size):
                if step >= total:
                    break
                rows = batch.tolist()
                if len(rows) < 2:
                    continue  # a lone last pair has no negative to learn from
                a = embed([anchors[i] for i in rows])
                p = embed([positives[i] for i in rows])
                logits = settings.scale * a @ p.T
                ak = torch.tensor([a_key[i] for i in rows], device=device)
                pk = torch.tensor([p_key[i] for i in rows], device=device)
                same = ((pk[None, :] == pk[:, None]) | (ak[None, :] == ak[:, None])) & ~torch.eye(
                    len(rows), dtype=torch.bool, device=device
                )
                logits = logits.masked_fill(same, float("-inf"))
                target = torch.arange(len(rows), device=device)
                backward = f.cross_entropy(logits.T, target)
                hard = [i for i in rows if negatives[i]]
                if hard:
                    neg = embed([negatives[i] for i in hard])
                    logits = torch.cat([logits, settings.scale * a @ neg.T], dim=1)
                loss = (f.cross_entropy(logits, target) + backward) / 2
                opt.zero_grad()
                loss.backward()
                try:
                    opt.step()
                except RuntimeError as exc:
                    # Adam's first step moves a weight by up to 10 * lr: past float32's
                    # range (--lr 1e38) torch cannot even take it.
                    if "overflow" not in str(exc):
                        raise
                    raise _diverged(step + 1, lr) from None
                step += 1
                examples += len(rows)
                value = float(loss.detach())
                if step == 1 or step % every == 0 or step == total:
                    curve.append({"step": step, "epoch": round(step / per_epoch, 4), "loss": value})
                bar.update(task, loss=value)
                bar.advance(task)
    return bag.weight.detach().cpu().numpy(), step, examples


def write_card(folder: Path, card: dict[str, Any]) -> None:
    """``tune-card.json`` (everything) and ``TUNE_CARD.md`` (for people) in ``folder``."""
    (folder / CARD_JSON).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (folder / CARD_MD).write_text(card_markdown(card), encoding="utf-8")


def steps_text(steps: int) -> str:
    """``1 step``, ``3 steps``: the count of training steps as the card and the CLI say it."""
    return f"{steps} step{'' if steps == 1 else 's'}"


def card_markdown(card: dict[str, Any]) -> str:
    """The card as Markdown: what was tuned, on what, how, and how the loss went."""
    s = card["settings"]
    pairs = card["pairs"]
    lines = [
        f"# Tuned {card['variant']}: {card['base']['name']}",
        "",
        f"Started from `{card['base']['name']}` (weights sha {card['base']['sha']}); "
        f"result sha {card.get('sha', '?')}.",
        f"Loss: {card['loss']['name']}, scale {card['loss']['scale']}, in-batch negatives.",
        "",
        "## Pairs",
        "",
        "| source | type | pairs read |",
        "| --- | --- | --- |",
    ]
    for src in card["sources"]:
        counts = ", ".join(f"{k} {v}" for k, v in src["pairs"].items()) or "none"
        lines.append(f"| `{src['path']}` | {src['type']} | {counts} |")
    used = ", ".join(f"{k} {v}" for k, v in pairs["by_kind"].items())
    dropped = ", ".join(f"{k} {v}" for k, v in pairs["dropped"].items() if v) or "none"
    lines += [
        "",
        f"Used: {pairs['used']} pairs ({used}); hard negatives: {pairs['hard_negatives']}.",
        f"Dropped: {dropped}.",
    ]
    for key, what in (
        ("texts_truncated", "texts longer than the encoder's maximum (truncated)"),
        ("out_of_vocabulary", "pairs with no vocabulary token on a side (not trained)"),
    ):
        if pairs.get(key):
            lines.append(f"Note: {pairs[key]} {what}.")
    lines += ["", "## Settings", ""]
    lines += [f"- {k}: {v}" for k, v in s.items()]
    lines += [
        "",
        "## Training",
        "",
        f"{steps_text(card['steps'])} in {card['train_seconds']} s "
        f"({card['examples_per_second']} examples/s); wall time {card.get('wall_seconds')} s.",
        "",
        "| step | epoch | loss |",
        "| ---: | ---: | ---: |",
    ]
    lines += [f"| {p['step']} | {p['epoch']} | {p['loss']:.4f} |" for p in card["loss_curve"]]
    v = card["versions"]
    lines += ["", f"Versions: wrdscore {v['wrdscore']}, {v['stack']}.", ""]
    return "\n".join(lines)
