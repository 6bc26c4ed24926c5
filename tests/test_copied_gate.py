"""The plausibility gate softened by copying (issue 32, round 4): each prediction is read
with its method's code, and the words it copies decide how much the gate applies.

Expected values are computed here by hand from the formula in
:mod:`wrdscore.metrics.code`, not by the prior's own methods.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wrdscore.corpora import RESERVED_WORDS, read_code_and_language
from wrdscore.metrics.code import SequenceModel, TextPrior, copied_counts

#: JLS 17 section 3.9's keywords, and the literal words true, false and null (3.10.3, 3.10.8).
JLS = """abstract continue for new switch assert default if package synchronized boolean do
goto private this break double implements protected throw byte else import public throws
case enum instanceof return transient catch extends int short try char final interface
static void class finally long strictfp volatile const float native super while
true false null"""


def _prior(copied: list[float] | None) -> TextPrior:
    # Names are "get name" (or "get"); code is mostly "i" and "tmp".
    model = SequenceModel(
        {"get": 4, "name": 3},
        {"name": 2, "i": 8, "tmp": 6},
        {"<s>": {"get": 4}, "get": {"name": 3, "</s>": 1}, "name": {"</s>": 3}},
    )
    lengths = np.array([0.0, 50, 40, 9, 1])  # m99 = 4: the share with 4 tokens is 0.01
    return TextPrior(lengths, model, 1.0, 0.01, None if copied is None else np.array(copied))


def test_java_reserved_words_are_the_specifications():
    assert set(JLS.split()) == RESERVED_WORDS["java"]
    # No list is kept yet for other languages: none of their keywords counts as copied.
    assert set(RESERVED_WORDS) == {"java"}


def test_a_copied_token_is_a_code_token_or_a_reserved_word_of_the_codes_language():
    preds = [["public", "void", "tmp"], ["def", "tmp"], ["def", "tmp"], ["get", "name"]]
    codes = [["tmp"], ["tmp"], ["tmp"], ["i"]]
    assert copied_counts(preds, codes, ["java", "python", "java", None]).tolist() == [3, 1, 1, 0]
    assert copied_counts([["public"]], [["x"]], [None]).tolist() == [0]  # language unknown


def test_the_gate_is_conciseness_times_copied_conciseness_times_p_to_the_copied_share():
    # Copied counts: 1 copied token or fewer is as common as 99 in 100 real texts.
    prior = _prior([60.0, 39, 0.5, 0.5])
    preds = [["i", "tmp"], ["get", "tmp"], ["i", "get"], ["get", "name"], ["i", "tmp", "i"]]
    codes = [["i", "tmp"]] * len(preds)
    got = prior.factor(preds, codes, ["java"] * len(preds))

    def log_q(tokens: list[str]) -> float:
        return prior.model.log_q(tokens)  # the sequence model is tested on its own elsewhere

    survival_len = np.cumsum(prior.lengths[::-1])[::-1] / prior.lengths.sum()
    survival_cop = np.array([100.0, 40, 1, 0.5]) / 100
    want = []
    for tokens in preds:
        m = len(tokens)
        k = sum(t in {"i", "tmp"} for t in tokens)
        length = min(1.0, (survival_len[m] if m < len(survival_len) else 0.0) / survival_len[4])
        copies = min(1.0, survival_cop[max(k, 1)] / survival_cop[2])
        p = min(1.0, math.exp(log_q(tokens)) / prior.threshold)
        want.append(length * copies * p ** (k / m))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # What the construction says: a name of names' words is not gated; a pure copy is
    # gated by its plausibility in full; half a copy by its square root.
    assert got[3] == 1.0
    assert got[0] < got[1] < 1.0
    assert got[1] == pytest.approx(math.sqrt(min(1.0, math.exp(log_q(["get", "tmp"])))))


def test_a_prediction_that_copies_nothing_escapes_the_gate_and_one_that_copies_all_does_not():
    prior = _prior([60.0, 39, 0.5, 0.5])
    unlike_names = [["tmp", "get"]]  # implausible as a name, as the gate reads it
    alone = TextPrior(prior.lengths, prior.model, 1.0, 0.01).factor(unlike_names)[0]
    assert alone < 0.5
    assert prior.factor(unlike_names, [["x"]], ["java"])[0] == 1.0  # nothing copied
    assert prior.factor(unlike_names, [["tmp", "get"]], ["java"])[0] == pytest.approx(alone)


def test_a_prior_without_copied_counts_reads_the_prediction_alone():
    prior = _prior(None)
    preds = [["tmp", "get"], ["get", "name"]]
    np.testing.assert_array_equal(
        prior.factor(preds), prior.factor(preds, [["tmp", "get"]] * 2, ["java"] * 2)
    )
    with pytest.raises(ValueError, match="give codes"):
        _prior([60.0, 40]).factor(preds)


def test_the_reader_says_which_language_it_read():
    assert read_code_and_language("int size() { return count; }") == (["count"], "java")
    tokens, language = read_code_and_language("func (s *Stack) Size() int { return s.n }")
    assert language == "go" and "n" in tokens


def test_scoring_counts_a_reserved_word_as_copied_only_in_code_of_its_language():
    # The same prediction, made of Java keywords, against a Java and a Python method with
    # the same identifiers: in Java its words are the code's (gated by how unlike a name
    # they read), in Python they are not (no gate). The engine tells each item's language.
    from wrdscore.metrics import get_metric

    java = "int size() { return count; }"
    python = "def size(self):\n    return self.count\n"
    metric = get_metric("wrd")
    res = metric.score(None, ["void public", "void public"], code=[java, python])
    in_java, in_python = (metric.code_transport("void public", c) for c in (java, python))
    assert in_python.prior == 1.0 and in_java.prior < 0.5
    assert res.values["code"].tolist() == pytest.approx([in_java.support, in_python.support])


def test_a_corpus_is_scored_as_its_code_is_with_each_records_language(tmp_path):
    # The stored words of a corpus carry no keywords: the record's language (Java where a
    # record has none) says which reserved words count as copied, as a parse would.
    from wrdscore.corpora import ingest
    from wrdscore.corpus_inputs import StoredCode, corpus_inputs
    from wrdscore.metrics import get_metric

    src = tmp_path / "src"
    src.mkdir()
    (src / "A.java").write_text("class A {\n  int size() { return count; }\n}\n")
    (src / "b.py").write_text("def size(self):\n    return self.count\n")
    ingest([src], tmp_path / "c", jobs=1, quiet=True, language="all")
    preds = tmp_path / "p.txt"
    preds.write_text("void public\nvoid public\n")
    _, items, _ = corpus_inputs(tmp_path / "c", preds, "name", tmp_path, code=True)
    assert all(type(i) is StoredCode for i in items)
    assert sorted(i.language for i in items) == ["java", "python"]
    metric = get_metric("wrd")
    stored = metric.score(None, ["void public"] * 2, code=items).values["code"]
    # The same methods' source, parsed and its language told from the code.
    sources = [{"code": str(i.code), "name": i.name} for i in items]
    parsed = metric.score(None, ["void public"] * 2, code=sources).values["code"]
    assert stored.tolist() == pytest.approx(parsed.tolist(), abs=1e-12)
    assert min(stored) < 0.5 * max(stored)  # Java's keywords gated, Python's not
