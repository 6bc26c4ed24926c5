"""BARTScore on a tiny random BART built here: every number against the model's own loss.

No real pretrained BART can be had offline, so the model is a one-layer BART with random
weights and a word-level tokenizer over the names' sub-tokens. The reference computation
is independent of the metric's batching, padding and masking: the model's own
``loss`` for one unpadded (source, target) pair is the mean negative log-likelihood of
the target's tokens, so ``-loss`` is BARTScore(source -> target).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import require

torch = require("torch")
transformers = require("transformers")
tokenizers = require("tokenizers")

from tiny_bart import MAX_POSITIONS, SPECIALS, WORDS, build_tiny_bart, tiny_tokenizer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from wrdscore.cli import app  # noqa: E402
from wrdscore.embeddings.encoders import weights_sha  # noqa: E402
from wrdscore.errors import WrdscoreError  # noqa: E402
from wrdscore.metrics import get_metric  # noqa: E402
from wrdscore.metrics.bartscore import BARTScore  # noqa: E402

REFS = ["getUserName", "size", "isEmpty", "findById", "addAll", "toString"]
PREDS = ["get name", "count", "is empty list", "find user by id key", "add item", "to string"]


@pytest.fixture(scope="module")
def bart(tmp_path_factory):
    """A tiny random BART and its tokenizer, saved as a model folder."""
    # No model_max_length: the limit must come from the model's positions.
    return build_tiny_bart(tmp_path_factory.mktemp("tiny") / "tiny-bart")


@pytest.fixture(scope="module")
def metric(bart):
    return get_metric("bartscore", model=str(bart), device="cpu")


@pytest.fixture(scope="module")
def reference(bart):
    """``-loss`` of the model itself, one unpadded pair at a time."""
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(bart).eval()
    tok = transformers.AutoTokenizer.from_pretrained(bart)

    def score(source: str, target: str) -> float:
        src = tok(source, return_tensors="pt")
        labels = tok(target, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            return -float(model(**src, labels=labels).loss)

    return score


def test_every_value_is_the_models_own_mean_log_likelihood(metric, reference):
    res = metric.score(REFS, PREDS)
    for i, (r, p) in enumerate(zip(REFS, PREDS, strict=True)):
        # The text fed to the model is the sub-tokens joined by spaces.
        ref_text, pred_text = (" ".join(re.findall("[A-Z]?[a-z]+", s)).lower() for s in (r, p))
        precision, recall = reference(ref_text, pred_text), reference(pred_text, ref_text)
        assert res.precision[i] == pytest.approx(precision, abs=1e-5)
        assert res.recall[i] == pytest.approx(recall, abs=1e-5)
        # The paper's F: the arithmetic mean of P and R.
        assert res.f1[i] == pytest.approx((precision + recall) / 2, abs=1e-5)
    assert res.primary == "f1" and res.scores is res.values["f1"]
    assert np.all(res.f1 < 0)  # log-likelihoods of a random model
    assert res.corpus["f1"] == pytest.approx(float(np.mean(res.f1)))


def test_precision_and_recall_differ(metric):
    res = metric.score(["getUserName"], ["get"])
    # r -> h reads three words and writes one; h -> r the other way round.
    assert abs(res.precision[0] - res.recall[0]) > 1e-3
    swapped = metric.score(["get"], ["getUserName"])
    assert swapped.precision[0] == pytest.approx(res.recall[0], abs=1e-6)
    assert swapped.recall[0] == pytest.approx(res.precision[0], abs=1e-6)


def test_a_pair_scores_the_same_alone_as_in_any_batch(bart, metric):
    together = metric.score(REFS, PREDS)
    for i in range(len(REFS)):
        alone = get_metric("bartscore", model=bart, device="cpu").score([REFS[i]], [PREDS[i]])
        for k in ("precision", "recall", "f1"):
            assert alone.values[k][0] == pytest.approx(together.values[k][i], abs=1e-5)
    one_by_one = get_metric("bartscore", model=bart, device="cpu", batch_size=1)
    small = one_by_one.score(REFS, PREDS)
    for k in ("precision", "recall", "f1"):
        np.testing.assert_allclose(small.values[k], together.values[k], atol=1e-5)


def test_each_distinct_pair_is_run_once(bart, monkeypatch):
    m = get_metric("bartscore", model=bart, device="cpu")
    assert isinstance(m, BARTScore)
    seen: list[tuple[str, str]] = []
    run = m.log_likelihoods

    def counting(pairs):
        seen.extend(pairs)
        return run(pairs)

    monkeypatch.setattr(m, "log_likelihoods", counting)
    res = m.score(["getName", "getName", "size"], ["size", "size", "getName"])
    # (get name -> size), (size -> get name): the third pair's directions are the same two.
    assert sorted(seen) == [("get name", "size"), ("size", "get name")]
    assert res.precision[2] == pytest.approx(res.recall[0], abs=0)
    m.score(["getName"], ["size"])  # a later call: already known
    assert len(seen) == 2


def test_a_full_cache_keeps_what_the_call_reads(bart, monkeypatch):
    # Emptied when a call's new pairs overflowed it, the cache lost that call's cached
    # pairs before they were read (a KeyError past 100,000 pairs in a run).
    from wrdscore.metrics import bartscore

    m = get_metric("bartscore", model=bart, device="cpu")
    monkeypatch.setattr(bartscore, "CACHE_PAIRS", 3)
    first = m.score(["getName"], ["size"])
    again = m.score(["getName", "count"], ["size", "isEmpty"])
    assert again.f1[0] == pytest.approx(first.f1[0], abs=1e-6)


def test_long_names_are_cut_and_counted(bart, reference):
    m = get_metric("bartscore", model=bart, device="cpu")
    assert m.max_length == MAX_POSITIONS
    long = "get user name size count is empty add remove item value"  # 11 words + 2
    res = m.score([long, "size"], ["size", "count"])
    # (long -> size) and (size -> long) each had a side cut; the other pair none.
    assert res.cuts == {"pairs": 2}
    # Each call counts its own, cached or not (it was a total on the metric).
    assert m.score(["size"], ["count"]).cuts == {}
    assert m.score([long], ["size"]).cuts == {"pairs": 2}
    cut = " ".join(long.split()[: MAX_POSITIONS - 2])
    assert res.precision[0] == pytest.approx(reference(cut, "size"), abs=1e-5)
    assert res.recall[0] == pytest.approx(reference("size", cut), abs=1e-5)


def test_the_tokenizers_maximum_wins_when_smaller(bart, tmp_path):
    import shutil

    folder = tmp_path / "short"
    shutil.copytree(bart, folder)
    tiny_tokenizer(max_length=6).save_pretrained(folder)
    m = get_metric("bartscore", model=folder, device="cpu")
    assert m.max_length == 6
    res = m.score(["getUserName"], ["get user name size count"])  # 7 tokens with <s> </s>
    assert res.cuts == {"pairs": 2}


def test_alternatives_score_as_the_best_one(metric):
    # A list of token lists is a set of alternative references.
    res = metric.score([[["size"], ["get", "user", "name"]]], ["get user name"])
    alone = [metric.score([r], ["get user name"]) for r in ("size", "getUserName")]
    best = max(alone, key=lambda a: a.f1[0])
    assert res.f1[0] == best.f1[0] and res.precision[0] == best.precision[0]


def test_signature_names_model_weights_and_versions(bart, metric):
    sig = metric.signature
    assert re.fullmatch(
        r"bartscore\|model:tiny-bart@sha:[0-9a-f]{8}\|w:uniform\|max:10"
        r"\|torch:[^,|]+,tf:[^,|]+\|seg:[^|]+\|v:[^|]+",
        sig,
    ), sig
    assert f"@sha:{weights_sha(bart)}|" in sig
    assert f"torch:{torch.__version__},tf:{transformers.__version__}|" in sig


def test_no_model_is_an_error():
    with pytest.raises(WrdscoreError, match=r"needs a seq2seq model folder: --set bartscore"):
        get_metric("bartscore")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model": "/no/such/folder"}, "does not exist"),
        ({"device": "tpu"}, "unknown device 'tpu'"),
        ({"batch_size": 0}, "batch_size must be an integer >= 1"),
        ({"batch_size": "8"}, "batch_size must be an integer >= 1"),
        ({"weights": "idf"}, "unknown option"),
        ({"model": ["x"]}, "must be a folder path"),
    ],
)
def test_bad_options_are_one_line_errors(bart, options, message):
    options = {"model": str(bart), **options}
    with pytest.raises(WrdscoreError, match=re.escape(message)) as info:
        get_metric("bartscore", **options)
    assert "\n" not in str(info.value)


def test_cuda_without_cuda_is_an_error(bart):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(WrdscoreError, match="CUDA is not available"):
        get_metric("bartscore", model=bart, device="cuda")


def test_a_folder_that_is_not_a_model_is_an_error(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WrdscoreError, match=r"no config\.json"):
        get_metric("bartscore", model=tmp_path)
    with pytest.raises(WrdscoreError, match="is not a folder"):
        get_metric("bartscore", model=tmp_path / "file.txt")


def test_an_encoder_only_model_is_refused(tmp_path):
    config = transformers.BertConfig(
        vocab_size=len(SPECIALS) + len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
    )
    transformers.BertModel(config).save_pretrained(tmp_path)
    with pytest.raises(WrdscoreError, match=r"not a seq2seq .* 'bert' model") as info:
        get_metric("bartscore", model=tmp_path, device="cpu")
    assert "\n" not in str(info.value)


def test_a_model_without_tokenizer_is_an_error(bart, tmp_path):
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((bart / name).read_bytes())
    with pytest.raises(WrdscoreError, match="no usable tokenizer") as info:
        get_metric("bartscore", model=tmp_path, device="cpu")
    assert "\n" not in str(info.value)


def test_listing_the_metrics_imports_no_torch():
    # The registry imports every metric module; scoring without a model must stay light.
    code = (
        "import sys; from wrdscore.metrics import METRICS; assert 'bartscore' in METRICS; "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


runner = CliRunner()


def test_cli_scores_with_a_model_folder(bart, metric, tmp_path):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    long = "get user name size count is empty add remove item value"
    refs.write_text("\n".join([*REFS, long]) + "\n")
    preds.write_text("\n".join([*PREDS, "size"]) + "\n")
    args = ["score", "--refs", refs, "--preds", preds, "-m", "bartscore",
            "--set", f"bartscore.model={bart}", "--set", "bartscore.device=cpu", "-q"]  # fmt: skip
    expected = metric.score([*REFS, long], [*PREDS, "size"])
    res = runner.invoke(app, [*map(str, args), "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["metrics"]["bartscore"]
    assert out["corpus"]["f1"] == pytest.approx(expected.corpus["f1"], abs=1e-6)
    assert out["signature"] == metric.signature
    res = runner.invoke(app, [*map(str, args)])
    assert res.exit_code == 0, res.output
    assert f"{expected.corpus['f1']:.4f}" in res.stdout
    assert res.stderr == (
        "note: bartscore: 2 scored pairs had a side longer than the model's maximum of 10 "
        "tokens, cut to it\n"
    )


def test_cli_without_a_model_is_one_line(tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("size\n")
    res = runner.invoke(
        app, ["score", "--refs", str(refs), "--preds", str(refs), "-m", "bartscore"]
    )
    assert res.exit_code == 2
    assert res.stderr.startswith("error: bartscore needs a seq2seq model folder")
    assert res.stderr.count("\n") == 1


def test_an_empty_prediction_is_refused_not_ranked_first(metric):
    with pytest.raises(WrdscoreError, match=r"prediction 2 has no tokens, and bartscore"):
        metric.score(["get name", "size"], ["get name", ""])
