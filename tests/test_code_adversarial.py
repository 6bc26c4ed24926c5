"""Adversarial cases of code support (issue 32), for every metric that reads code.

Each case's expected order comes from how it is built, not from the scores: a true name
whose words are all in its method's code against words of the same code that the name
does not use (stitched), the code's identifiers pasted together, and the signature line.
The true name is as grounded in the code as any copy, so only a support that prefers a
concise name of the words names are written in can rank it first; under the rule before
issue 32 each copy tied or beat it. A method with nothing to match leaves a pair's
``combined`` at its reference value.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require

from wrdscore.corpora import read_code
from wrdscore.corpora._code import code_words
from wrdscore.metrics import METRICS, get_metric
from wrdscore.metrics.code import code_prior

READERS = sorted(name for name, cls in METRICS.items() if cls.code_key is not None)
MINILM = "sentence-transformers/all-MiniLM-L6-v2"

LOAD = """public Config loadConfig(Path path) throws IOException {
    Config config = new Config();
    try (InputStream in = Files.newInputStream(path)) {
        config.load(in);
    }
    return config;
}"""


def _metric(name: str, **options: object):
    if name == "sentence":
        require("sentence_transformers")
        return get_metric(name, encoder=MINILM, **options)
    return get_metric(name, **options)


def _camel(words: list[str]) -> str:
    return words[0] + "".join(w.title() for w in words[1:])


def _adversaries(code: str, truth: str) -> dict[str, str]:
    """Copies of ``code`` built without any score: the body's words the name does not
    use (the first 2, 3 and 4, in code order), its first 12 identifiers, its signature."""
    used = set(get_metric("rouge1").tokens(truth))
    body = [t for t in dict.fromkeys(read_code(code)) if t not in used]
    ids = [w for w in dict.fromkeys(code_words(code).split()) if w != truth]
    return {
        **{f"stitched {k}": _camel(body[:k]) for k in (2, 3, 4)},
        "pasted": _camel(ids[:12]),
        "signature": code.split("{", 1)[0].strip(),
    }


def test_the_true_names_words_are_all_in_its_code():
    # What makes the order below follow from the construction: no copy is better grounded.
    assert {"load", "config"} <= set(read_code(LOAD))


@pytest.mark.parametrize("name", READERS)
def test_the_true_name_beats_every_copy_of_its_code(name):
    copies = _adversaries(LOAD, "loadConfig")
    res = _metric(name).score(None, ["loadConfig", *copies.values()], code=[LOAD] * 6)
    truth, *others = res.values["code"].tolist()
    for (kind, text), value in zip(copies.items(), others, strict=True):
        assert truth > value, (kind, text, truth, value)


EXPORT = """public void exportUsers(List<User> users, Writer out) throws IOException {
    out.write("name,email\\n");
    for (User user : users) {
        out.write(escape(user.getName()) + "," + escape(user.getEmail()) + "\\n");
    }
    out.flush();
}"""


@pytest.mark.parametrize("name", READERS)
def test_issue_32s_method_the_true_name_beats_body_words(name):
    # Issue 32's example, where the true name's first word is not in the code: padding it
    # with the body's words, or stitching body words into a name, must not win.
    preds = ["exportUsers", "exportUsersOutWriteEscapeFlush", "outWriteUserEscape"]
    res = _metric(name).score(None, preds, code=[EXPORT] * 3)
    truth, padded, stitched = res.values["code"].tolist()
    assert truth > padded and truth > stitched, (truth, padded, stitched)


@pytest.mark.parametrize("name", READERS)
def test_a_summary_beats_the_codes_words_listed(name):
    # The summary's content words (load, config, path) are all in the code; the listed
    # words are the body's in code order, and the signature.
    summary = "Load the config from the path."
    listed = " ".join(read_code(LOAD, target="summary")[:12])
    signature = LOAD.split("{", 1)[0].strip()
    res = _metric(name, target="summary").score(None, [summary, listed, signature], code=[LOAD] * 3)
    truth, *others = res.values["code"].tolist()
    assert truth > max(others), (truth, others)


@pytest.mark.parametrize("name", READERS)
def test_an_empty_method_leaves_combined_at_the_reference_value(name):
    metric = _metric(name)
    res = metric.score(["run", "loadConfig"], ["run", "load config"], code=["void run() { }", LOAD])
    primary = res.values[metric.primary]
    assert res.values["code"][0] == 0.0 and res.empty_code == 1
    assert res.values["combined"][0] == primary[0]
    w = metric.code_scorer.weight
    assert res.values["combined"][1] == pytest.approx(
        (1 - w) * primary[1] + w * res.values["code"][1]
    )
    assert f"|prior:{metric.default_code_support}|empty:ref|" in res.signature


def test_run_scored_against_an_empty_run_is_perfect():
    res = get_metric("wrd").score(["run"], ["run"], code=["void run() { }"])
    assert res.values["f1"].tolist() == [1.0] and res.values["combined"].tolist() == [1.0]
    assert res.corpus["combined"] == 1.0


def test_the_corpus_combined_is_the_mean_of_the_pairs():
    res = get_metric("wrd").score(
        ["run", "loadConfig"], ["run", "load config"], code=["void run() { }", LOAD]
    )
    assert res.corpus["combined"] == pytest.approx(res.values["combined"].mean(), abs=1e-12)


def test_trwmd_reads_the_prediction_as_x1():
    # Every predicted token is in the code, so each one's softened best match is about 1:
    # the support is then the priors. With the code as X_1 it would average over the
    # code's tokens (about 0.5 here), which no name could reach.
    res = get_metric("trwmd").score(None, ["load config"], code=[LOAD])
    prior = code_prior("name").factor([["load", "config"]], [read_code(LOAD)], ["java"])[0]
    assert res.values["code"][0] / prior > 0.95


def test_the_priors_penalise_long_and_code_like_texts():
    names = code_prior("name")
    # Nine sub-tokens or fewer: as long as 99 in 100 real names of the 69 sources, no penalty.
    np.testing.assert_array_equal(names.conciseness(np.arange(1, 10)), 1.0)
    assert 0.5 < names.conciseness(np.array([10]))[0] < 1.0
    assert names.conciseness(np.array([30]))[0] < 1e-3
    # Five copied tokens or fewer, as in 99 in 100 real names; a pasted run is gated out.
    sizes = np.array([5, 6, 12, 24])
    pasted = [["w"] * m for m in sizes]
    gate = names.factor(pasted, [["w"]] * len(pasted), ["java"] * len(pasted))
    assert gate[1] < 0.5 * names.conciseness(sizes)[1] and gate[3] < 1e-6
    # A local variable and a keyword-made type name are words of code, not of names.
    plain, local = names.plausibility([["load", "config"], ["in", "io", "exception"]])
    assert local < plain
    summaries = code_prior("summary")
    english, listed = summaries.plausibility([["load", "the", "config"], ["in", "io", "buf"]])
    assert listed < english


def test_no_case_is_a_rated_pair():
    from wrdscore.signals import rated_cases

    rated = rated_cases()
    assert frozenset(("is blank", "is empty")) in rated  # the check reads the pairs' form
    split = get_metric("rouge1").tokens
    truth = " ".join(split("loadConfig"))
    texts = [*_adversaries(LOAD, "loadConfig").values(), "Load the config from the path."]
    cases = {frozenset((truth, " ".join(split(t)))) for t in texts}
    cases.add(frozenset(("run", "run")))
    assert not cases & rated


@pytest.mark.parametrize("name", [n for n in READERS if n != "sentence"])
def test_an_empty_reference_leaves_combined_at_the_code_support(name):
    """A method without a docstring (an empty reference, allowed) scored F1 0, so its
    combined was half its code support; now it is the support, counted."""
    metric = _metric(name, target="summary")
    res = metric.score(["", "loads the config"], ["loads the config"] * 2, code=[LOAD] * 2,
                       allow_empty_reference=True)  # fmt: skip
    assert res.empty_references == 1 and res.to_dict()["empty_references"] == 1
    assert res.values["combined"][0] == res.values["code"][0] > 0
    w = metric.code_scorer.weight
    primary = res.values[metric.primary]
    assert res.values["combined"][1] == pytest.approx(
        (1 - w) * primary[1] + w * res.values["code"][1]
    )
    # Without empty references nothing is counted, and the result's dict has no such key.
    full = metric.score(["loads the config"], ["loads the config"], code=[LOAD])
    assert full.empty_references == 0 and "empty_references" not in full.to_dict()


#: Methods that repeat a token: TRWMD's normalised value passed 1 on them (1.007-1.011).
REPEATS = [
    "void reset() { items.clear(); items.clear(); size = 0; size = 0; }",
    "int total() { return price * count + price * count + price; }",
    "void loadConfig() { config = load(config); config.load(); load(); }",
]


@pytest.mark.parametrize("name", [n for n in READERS if n != "sentence"])
def test_code_support_stays_in_its_range_where_the_code_repeats_tokens(name):
    res = _metric(name, code_support="none").score(
        None, ["clear items", "price count", "load config"], code=REPEATS
    )
    assert np.all(res.values["code"] <= 1.0)
    if name == "trwmd":
        assert res.values["code"].tolist() == [1.0, 1.0, 1.0]
