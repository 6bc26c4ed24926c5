"""``wrdscore train``, ``specialise``, ``neighbors`` and ``similarity``: token embeddings.

The embeddings library is imported inside the commands so ``wrdscore --help`` stays
fast (gensim and scipy take a second to import).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from wrdscore.atomic import check_not_input
from wrdscore.cli._common import (
    FORCE_OPTION,
    QUIET_OPTION,
    print_table,
    seed_option,
    wrote,
)
from wrdscore.cli._encoder_options import EncoderOptions, encoder_options
from wrdscore.errors import WrdscoreError, counted

if TYPE_CHECKING:
    from wrdscore.embeddings import TokenEmbeddings

# Options of both `train --specialise` and `specialise`, declared once.
CURATED_OPTION = typer.Option(
    True, "--curated/--no-curated", help="Add the packaged curated pairs to the mined ones."
)
CONFIRM_OPTION = typer.Option(
    True,
    "--confirm/--no-confirm",
    help="Drop mined synonyms the vectors do not already relate (cosine below the "
    "90th percentile of random token pairs).",
)
INFLECT_OPTION = typer.Option(
    True,
    "--inflections/--no-inflections",
    help="Carry contrasts and synonyms over to inflected forms (adding/removing).",
)
BASELINE_PAIRS_OPTION = typer.Option(
    10_000, "--baseline-pairs", help="Random name pairs for the rescaling baselines; 0: none."
)


def train(
    corpus_dir: str = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    # No -m: everywhere else -m is --metric.
    method: str = typer.Option(..., "--method", help="svd, word2vec or fasttext."),
    output: str = typer.Option(..., "--output", "-o", help="MODEL_DIR to write."),
    dim: int = typer.Option(50, "--dim", help="Vector dimension."),
    window: int | None = typer.Option(
        None,
        "--window",
        help="Context window \\[default: the whole document for svd on names or summaries, "
        "2 otherwise].",
    ),
    min_count: int = typer.Option(1, "--min-count", help="Drop tokens rarer than this."),
    epochs: int = typer.Option(5, "--epochs", help="Training epochs (word2vec, fasttext)."),
    seed: int = seed_option(0, "Random seed."),
    workers: int = typer.Option(1, "--workers", help="gensim threads; 1 is deterministic."),
    text: str = typer.Option(
        "names",
        "--text",
        help="names, summaries, context, parts joined by '+' (names+context: one document "
        "per method), or both (names and summaries as separate documents).",
    ),
    weighting: str = typer.Option("raw", "--weighting", help="svd: raw counts or ppmi."),
    bucket: int = typer.Option(20_000, "--bucket", help="fasttext: n-gram hash buckets."),
    sg: int = typer.Option(1, "--sg", help="word2vec, fasttext: 1 skip-gram, 0 CBOW."),
    name: str | None = typer.Option(None, "--name", help="Label used in score signatures."),
    specialise: bool = typer.Option(
        False, "--specialise", help="Specialise for similarity with pairs mined from the corpus."
    ),
    specialise_method: str = typer.Option(
        "counter-fitting", "--specialise-method", help="counter-fitting or attract-repel."
    ),
    curated: bool = CURATED_OPTION,
    confirm: bool = CONFIRM_OPTION,
    inflect: bool = INFLECT_OPTION,
    baseline_pairs: int = BASELINE_PAIRS_OPTION,
    force: bool = FORCE_OPTION,
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="Count document frequencies and co-occurrences on a Dask cluster: an address "
        "(tcp://host:8786) or 'local'.",
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", help="Workers of --scheduler local \\[default: number of cores]."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Train sub-token embeddings on a corpus and save them as a MODEL_DIR."""
    from wrdscore.embeddings import train_embeddings
    from wrdscore.progress import status

    _check_baseline_pairs(baseline_pairs)
    check_not_input(output, [corpus_dir], "--output")
    then = ", then specialising" if specialise else ""
    status(f"training {method} vectors on {corpus_dir}{then}", quiet)
    emb = train_embeddings(
        corpus_dir,
        method,
        output,
        dim=dim,
        window=window,
        min_count=min_count,
        epochs=epochs,
        seed=seed,
        workers=workers,
        text=text,
        weighting=weighting,
        bucket=bucket,
        sg=sg,
        name=name,
        specialise=specialise,
        specialise_method=specialise_method,
        curated=curated,
        confirm=confirm,
        inflect=inflect,
        force=force,
        scheduler=scheduler,
        jobs=jobs,
    )
    wrote(
        output,
        f"{emb.name}, {len(emb)} tokens x {emb.dim} dims, "
        f"{emb.n_docs} documents, {emb.meta['train_seconds']:.1f} s",
    )
    if specialise:
        typer.echo(_specialised_line(emb.meta["specialise"]), err=True)
    _store_baselines(output, corpus_dir, baseline_pairs, quiet, emb)


def _check_baseline_pairs(baseline_pairs: int) -> None:
    if baseline_pairs < 0:
        raise WrdscoreError(f"--baseline-pairs must be 0 or more, not {baseline_pairs}")


def _store_baselines(
    output: str, corpus_dir: str, baseline_pairs: int, quiet: bool, emb: TokenEmbeddings
) -> None:
    from wrdscore.metrics import add_baselines
    from wrdscore.progress import status

    if baseline_pairs:
        status(f"computing rescaling baselines on {baseline_pairs:,} random name pairs", quiet)
        # The model is written and usable either way; only rescaling needs the baselines.
        try:
            block = add_baselines(output, corpus_dir, pairs=baseline_pairs)
        except WrdscoreError as exc:
            typer.echo(f"note: no rescaling baselines stored: {exc}", err=True)
        else:
            _echo_baselines(Path(output) / "model.json", block, emb)


def _echo_baselines(
    where: str | Path, block: dict[str, Any], model: TokenEmbeddings | str | None = None
) -> None:
    """Say what was stored, and, for a ``model`` of static vectors, how its default
    ``wrd`` scores random pairs (a warning when near the top: see :data:`USELESS_F1`)."""
    settings = block["settings"]
    wrote(
        where,
        f"rescaling baselines of {len(settings)} metric settings on {block['pairs']} random "
        f"pairs of {block['names']} names",
    )
    if model is not None:
        _echo_random_f1(settings, model)
    undefined = [k for k, v in settings.items() if v is None]
    if undefined:
        typer.echo(f"note: rescaling is undefined for {', '.join(undefined)}", err=True)


#: A model whose random pairs of names score this mean WRDScore F1 or more is warned about:
#: identical names score 1, and a model that tells names apart keeps unrelated ones far
#: lower (the bundled model 0.19, svd and word2vec on the example project 0.02 and 0.08).
#: Above half the scale, most of it is spent before two names share any meaning.
USELESS_F1 = 0.5


def _echo_random_f1(settings: dict[str, Any], model: TokenEmbeddings | str) -> None:
    """The mean F1 of the default ``wrd`` on random pairs (its baseline), and a warning
    when it is near the top: the model hardly tells names apart."""
    from wrdscore.metrics import get_metric
    from wrdscore.metrics.base import baseline_key

    key = baseline_key(get_metric("wrd", embeddings=model))
    if key not in settings:
        return
    means = settings[key]
    # None: some mean was 1 or more, random names scoring as identical ones.
    f1 = "about 1" if means is None else f"{means['f1']:.3f}"
    typer.echo(f"random pairs of names: mean wrd F1 {f1} (identical names: 1)", err=True)
    if means is None or means["f1"] >= USELESS_F1:
        typer.echo(
            f"warning: unrelated names score {f1} on average, near the top: this model hardly "
            "tells names apart, so its scores say little (train on more code, with another "
            "--method or --text, or score with the bundled model)",
            err=True,
        )


@encoder_options
def baseline(
    paths: list[str] = typer.Argument(
        ...,
        help="MODEL_DIR CORPUS: a model written by `wrdscore train` and the corpus it was "
        "trained on; with --encoder, CORPUS alone (names to draw pairs from).",
        metavar="[MODEL_DIR] CORPUS",
    ),
    pairs: int = typer.Option(10_000, "--pairs", help="Random name pairs per baseline."),
    seed: int = seed_option(0, "Seed of the pairs."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="With --encoder: the MODEL_DIR it is fused with."
    ),
    encoder: EncoderOptions = EncoderOptions(),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Compute rescaling baselines of a model or an encoder.

    A model's go into its model.json; an encoder's are cached by the hash of its weights.
    """
    from wrdscore.metrics import add_baselines, add_encoder_baselines
    from wrdscore.progress import status

    if pairs < 1:
        # Before an encoder loads, in the option's name ("the number of baseline pairs").
        raise WrdscoreError(f"--pairs must be at least 1, not {pairs}")
    wanted = 1 if encoder.name is not None else 2
    if len(paths) != wanted:
        usage = "CORPUS (with --encoder)" if encoder.name is not None else "MODEL_DIR CORPUS"
        raise WrdscoreError(f"baseline takes {usage}, got {counted(len(paths), 'path')}")
    if encoder.name is None:
        if embeddings is not None:
            raise WrdscoreError("--embeddings only applies with --encoder (fusion)")
        encoder.keywords(embeddings)  # refuses --layer ... --fuse-weights given without --encoder
        model, corpus_dir = paths
        status(f"computing rescaling baselines on {pairs:,} random name pairs", quiet)
        block = add_baselines(model, corpus_dir, pairs=pairs, seed=seed)
        _echo_baselines(Path(model) / "model.json", block, model)
        if block["corpus"]["training_corpus"] is False:
            typer.echo(
                f"note: {corpus_dir}'s manifest differs from the one {model} was trained on "
                "(re-ingested, or another corpus); its SHA-256 is recorded with the baselines",
                err=True,
            )
        return
    from wrdscore.corpora import open_corpus
    from wrdscore.embeddings.encoders import Encoder
    from wrdscore.metrics.base import resolve_embeddings

    options = encoder.keywords(embeddings)
    # The corpus and the model fused with are opened before the encoder loads (seconds).
    open_corpus(paths[0])
    static = None if embeddings is None else resolve_embeddings(embeddings)
    status(f"loading encoder {encoder.name}", quiet)
    loaded = Encoder(
        encoder.name, layer=encoder.layer, device=encoder.device, batch_size=encoder.batch_size
    )
    status(f"computing rescaling baselines on {pairs:,} random name pairs", quiet)
    block, path = add_encoder_baselines(
        paths[0],
        loaded,
        embeddings=static,
        fuse_weights=options.get("fuse_weights"),
        pairs=pairs,
        seed=seed,
    )
    _echo_baselines(path, block)


def _specialised_line(special: dict[str, Any]) -> str:
    mined = special["constraints"]["sizes"]
    used = special["pairs_in_vocab"]
    counts = ", ".join(f"{used[k]:,} of {counted(mined[k], f'{k} pair')}" for k in mined)
    # Models specialised before the curated list existed have no count for it.
    curated = sum(special["constraints"].get("curated", {}).values())
    inflected = sum(special["constraints"].get("inflected", {}).values())
    shares = [f"{curated} of them curated"] if curated else []
    shares += [f"{inflected} carried over to inflected forms"] if inflected else []
    line = f"specialised ({special['method']}) with {counts}" + (
        f" ({', '.join(shares)})" if shares else ""
    )
    # Models specialised before confirmation existed have no entry for it.
    confirm = special.get("confirm")
    if confirm and confirm["threshold"] is not None:
        line += (
            f"; {confirm['synonyms_dropped']} mined synonyms dropped as unrelated "
            f"(cosine < {confirm['threshold']:.3f})"
        )
    return line


def specialise(
    model: str = typer.Argument(..., help="MODEL_DIR written by `wrdscore train`, or 'default'."),
    corpus_dir: str = typer.Argument(
        ..., help="Corpus to mine the pairs from (with --pairs: only the baselines' names)."
    ),
    output: str = typer.Option(..., "--output", "-o", help="MODEL_DIR to write."),
    pairs: str | None = typer.Option(
        None,
        "--pairs",
        help="Use this pairs.tsv as it is (no mining, curated list, confirmation or "
        "inflection), e.g. another model's.",
    ),
    method: str = typer.Option(
        "counter-fitting", "--method", help="counter-fitting or attract-repel."
    ),
    seed: int = seed_option(0, "Shuffling seed (attract-repel)."),
    name: str | None = typer.Option(
        None, "--name", help="Label \\[default: model name + -cf/-ar]."
    ),
    curated: bool = CURATED_OPTION,
    confirm: bool = CONFIRM_OPTION,
    inflect: bool = INFLECT_OPTION,
    baseline_pairs: int = BASELINE_PAIRS_OPTION,
    force: bool = FORCE_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Specialise an existing model for similarity with pairs mined from a corpus."""
    from wrdscore.embeddings import specialise_model
    from wrdscore.progress import status

    _check_baseline_pairs(baseline_pairs)
    check_not_input(output, [model, corpus_dir, pairs], "--output")
    source = f"the pairs in {pairs}" if pairs else f"pairs mined from {corpus_dir}"
    status(f"specialising {model} with {source}", quiet)
    emb = specialise_model(
        model,
        corpus_dir,
        output,
        method=method,
        seed=seed,
        name=name,
        force=force,
        curated=curated,
        confirm=confirm,
        inflect=inflect,
        pairs=pairs,
    )
    wrote(output, f"{emb.name}; " + _specialised_line(emb.meta["specialise"]))
    # The input model's baselines were computed on other vectors; compute new ones.
    _store_baselines(output, corpus_dir, baseline_pairs, quiet, emb)


def _model_arg(model: str | None, quiet: bool) -> Any:
    from wrdscore.embeddings import load_embeddings
    from wrdscore.progress import status

    status(f"loading {model or 'the bundled model'}", quiet)
    return load_embeddings(model)


EMBEDDINGS_OPTION = typer.Option(
    None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
)


def _model_and_words(
    embeddings: str | None, args: list[str], words: int, command: str
) -> tuple[str | None, list[str]]:
    """The model and the words of ``neighbors``/``similarity``.

    The model is ``-e`` as in ``score``; the older form, the model as the first
    argument (``neighbors default getCount``), still works.
    """
    if len(args) == words + 1 and embeddings is None:
        return args[0], args[1:]
    if len(args) != words:
        usage = "TOKEN" if words == 1 else "A B"
        raise WrdscoreError(
            f"{command} takes {usage} (and the model as -e MODEL), got "
            f"{counted(len(args), 'argument')}"
        )
    return embeddings, args


def neighbors(
    args: list[str] = typer.Argument(
        ...,
        metavar="TOKEN",
        help="A token or raw identifier such as getCount (the older form MODEL TOKEN works too).",
    ),
    embeddings: str | None = EMBEDDINGS_OPTION,
    k: int = typer.Option(10, "-k", help="How many neighbours."),
    top: int | None = typer.Option(
        None, "--top", help="Search only the N most frequent tokens (the vocabulary's first N)."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    """List the tokens nearest to a token or identifier (mean of its sub-token vectors)."""
    from rich.table import Table

    from wrdscore.embeddings import identifier_vector
    from wrdscore.embeddings import neighbors as nearest
    from wrdscore.hints import model_folder_hint

    model, (token,) = _model_and_words(embeddings, args, 1, "neighbors")
    emb = _model_arg(model, quiet)
    found = nearest(emb, token, k=k, top=top)
    query = identifier_vector(emb, token)
    heading = f"nearest to {' '.join(query.tokens)} in {emb.name}"
    table = Table()
    table.add_column("#", justify="right")
    table.add_column("token")
    table.add_column("cosine", justify="right")
    for rank, (tok, sim) in enumerate(found, 1):
        table.add_row(str(rank), tok, f"{sim:.4f}")
    print_table(heading, table)
    if query.unseen:
        typer.echo(f"note: not in the vocabulary: {' '.join(query.unseen)}", err=True)
    _echo_hint(model_folder_hint([token], "neighbors"))


def similarity(
    args: list[str] = typer.Argument(
        ...,
        metavar="A B",
        help="Two tokens or identifiers (the older form MODEL A B works too).",
    ),
    embeddings: str | None = EMBEDDINGS_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Cosine similarity of two tokens or identifiers (mean of sub-token vectors)."""
    from rich.table import Table

    from wrdscore.embeddings import has_no_vector, identifier_vector
    from wrdscore.embeddings import similarity as cosine
    from wrdscore.hints import model_folder_hint

    model, (a, b) = _model_and_words(embeddings, args, 2, "similarity")
    emb = _model_arg(model, quiet)
    value = cosine(emb, a, b)
    table = Table()
    table.add_column("a")
    table.add_column("b")
    table.add_column("cosine", justify="right")
    table.add_row(a, b, f"{value:.4f}")
    print_table(f"similarity in {emb.name}", table)
    for ident in (a, b):
        query = identifier_vector(emb, ident)
        if query.unseen:
            if has_no_vector(emb, query):
                made = "no subword vectors: a zero vector, cosine 0"
            elif emb.has_subword:
                made = "their subword vectors"
            else:
                made = "left out of the mean"
            typer.echo(
                f"note: {ident}: not in the vocabulary: {' '.join(query.unseen)} ({made})",
                err=True,
            )
    _echo_hint(model_folder_hint([a, b], "similarity"))


def _echo_hint(hint: str | None) -> None:
    if hint is not None:
        typer.echo(f"hint: {hint}", err=True)


def register(app: typer.Typer) -> None:
    """Add the embedding commands to the root app."""
    for command in (train, specialise, baseline, neighbors, similarity):
        app.command()(command)
