"""scripts/build_code_prior.py: the table the code-support priors read (issue 32)."""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import load_script

from wrdscore.corpora import ingest, open_corpus, to_tokens
from wrdscore.corpora._code import read_code_words
from wrdscore.metrics._prior_table import TableError, TargetCounts, read_target
from wrdscore.metrics.code import END, PRIOR_FILE, START, SequenceModel, code_prior, read_prior

build = load_script("build_code_prior")
#: The Java Language Specification 17, section 3.9, as printed there.
JLS_KEYWORDS = """
abstract   continue   for          new         switch
assert     default    if           package     synchronized
boolean    do         goto         private     this
break      double     implements   protected   throw
byte       else       import       public      throws
case       enum       instanceof   return      transient
catch      extends    int          short       try
char       final      interface    static      void
class      finally    long         strictfp    volatile
const      float      native       super       while
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("prior")
    ingest(
        [Path(__file__).resolve().parents[1] / "examples" / "project"], out / "corpus", quiet=True
    )
    build.main([str(out / "corpus"), str(out / "prior.zip")])
    data = build.read_table(out / "prior.zip")
    return out / "corpus", data


def test_the_table_counts_every_methods_name_summary_and_code(table):
    corpus, data = table
    records = list(open_corpus(corpus).iter_methods())
    names = data["targets"]["name"]
    assert names["texts"] == len(records) == sum(names["lengths"])
    want = Counter(t for r in records for t in to_tokens(r["name"]))
    assert names["tokens"] == dict(want)
    masked = Counter(
        t for r in records for t in read_code_words(r["code_words"], target="name", name=r["name"])
    )
    assert names["code"] == dict(masked)
    summaries = data["targets"]["summary"]
    assert summaries["texts"] == sum(1 for r in records if r["summary"])
    # Every name's bigrams, from its start to its end.
    bigrams = Counter(
        pair
        for r in records
        for pair in zip([START, *to_tokens(r["name"])], [*to_tokens(r["name"]), END], strict=True)
    )
    flat = {(a, b): c for a, nxt in names["bigrams"].items() for b, c in nxt.items()}
    assert flat == dict(bigrams)
    assert sum(names["bigrams"][START].values()) == len(records)


def test_the_table_counts_the_words_real_texts_copy_from_their_code(table):
    # Counted here from the records' source text, not through the reader the script uses:
    # a name's token is copied when it is a code token (the name masked) or a Java keyword.
    corpus, data = table
    keywords = set(JLS_KEYWORDS.split()) | {"true", "false", "null"}
    want: dict[str, Counter[int]] = {"name": Counter(), "summary": Counter()}
    for r in open_corpus(corpus).iter_methods():
        for target, text in (("name", r["name"]), ("summary", r["summary"])):
            if not text:
                continue
            code = set(read_code_words(r["code_words"], target=target, name=r["name"]))
            want[target][sum(t in code or t in keywords for t in to_tokens(text))] += 1
    for target, counts in want.items():
        got = data["targets"][target]["copied"]
        assert sum(got) == data["targets"][target]["texts"]
        assert dict(enumerate(got)) == {k: counts.get(k, 0) for k in range(len(got))}
    assert len(want["summary"]) > 1  # summaries copy some words of their code, some not


def _fold(key: str) -> int:
    return hashlib.sha256(key.encode("utf-8")).digest()[0] % 10


def test_the_thresholds_are_quantiles_of_the_real_texts(table):
    corpus, data = table
    names = data["targets"]["name"]
    assert "folds" not in names
    model = SequenceModel(names["tokens"], names["code"], names["bigrams"])
    records = list(open_corpus(corpus).iter_methods())
    logs = [model.log_q(to_tokens(r["name"])) for r in records]
    for q in ("0.02", "0.05", "0.1", "0.2", "0.3"):
        want = math.exp(np.quantile(logs, float(q)))
        assert names["thresholds"][q] == pytest.approx(want, rel=1e-12)


def test_held_out_thresholds_are_quantiles_of_held_out_plausibility(table, tmp_path):
    # Fewer than ten projects: ten folds by file. Each name is judged by a model counted
    # without its fold's names and code, built here from the records themselves.
    corpus, _ = table
    build.main(["--held-out-thresholds", str(corpus), str(tmp_path / "held.zip")])
    data = build.read_table(tmp_path / "held.zip")
    names = data["targets"]["name"]
    assert names["folds"] == {"count": 10, "by": "file"}
    records = list(open_corpus(corpus).iter_methods())
    folds = [_fold(f"0:{r['source']}/{r['path']}") for r in records]
    assert len(set(folds)) > 1
    logs = []
    for k in set(folds):
        rest = [r for r, f in zip(records, folds, strict=True) if f != k]
        tokens = Counter(t for r in rest for t in to_tokens(r["name"]))
        code = Counter(
            t for r in rest for t in read_code_words(r["code_words"], target="name", name=r["name"])
        )
        bigrams: dict[str, Counter[str]] = {}
        for r in rest:
            toks = to_tokens(r["name"])
            for a, b in zip([START, *toks], [*toks, END], strict=True):
                bigrams.setdefault(a, Counter())[b] += 1
        model = SequenceModel(dict(tokens), dict(code), {a: dict(n) for a, n in bigrams.items()})
        mine = [r for r, f in zip(records, folds, strict=True) if f == k]
        logs += [model.log_q(to_tokens(r["name"])) for r in mine]
    for q in ("0.02", "0.05", "0.1", "0.2", "0.3"):
        want = math.exp(np.quantile(logs, float(q)))
        assert names["thresholds"][q] == pytest.approx(want, rel=1e-9)


def test_a_held_out_text_looks_less_plausible_than_a_counted_one():
    # "fetch row" is the only name of its fold: out of fold, neither word was ever a name.
    items = [(0, ["get", "name"]), (0, ["get", "id"]), (1, ["fetch", "row"])]
    code = [Counter({"name": 1}), Counter({"row": 1})] + [Counter() for _ in range(8)]
    held = build.held_out_logs(items, code)
    tokens = Counter(t for _, i in items for t in i)
    bigrams: dict[str, dict[str, int]] = {}
    for _, i in items:
        for a, b in zip([START, *i], [*i, END], strict=True):
            bigrams.setdefault(a, {})
            bigrams[a][b] = bigrams[a].get(b, 0) + 1
    counted = SequenceModel(dict(tokens), {"name": 1, "row": 1}, bigrams)
    assert held[2] < counted.log_q(["fetch", "row"]) - 1


def test_several_corpora_are_counted_together(table, tmp_path):
    corpus, data = table
    build.main([str(corpus), str(corpus), str(tmp_path / "twice.zip")])
    twice = build.read_table(tmp_path / "twice.zip")
    names, both = data["targets"]["name"], twice["targets"]["name"]
    assert both["texts"] == 2 * names["texts"]
    assert both["tokens"] == {t: 2 * c for t, c in names["tokens"].items()}
    assert twice["source"] == f"{corpus.name}+{corpus.name}"


def test_the_sequence_model_is_the_formula():
    # Two names, "get name" and "get id"; code words "name", "i", "i".
    model = SequenceModel(
        {"get": 2, "name": 1, "id": 1},
        {"name": 1, "i": 2},
        {START: {"get": 2}, "get": {"name": 1, "id": 1}, "name": {END: 1}, "id": {END: 1}},
    )
    # The texts' unigrams count the two ends: 6 tokens; V is get, name, id, i and the end.
    text = {"get": 2.5 / 8.5, "name": 1.5 / 8.5, END: 2.5 / 8.5}
    code = {"name": 1.5 / 5.5, "get": 0.5 / 5.5}
    after_start = 2 / 3 * 2 / 2 + 1 / 3 * text["get"]  # n = 2, u = 1
    after_get = 2 / 4 * 1 / 2 + 2 / 4 * text["name"]  # n = 2, u = 2
    after_name = 1 / 2 * 1 / 1 + 1 / 2 * text[END]  # n = 1, u = 1
    want = (
        math.log(after_start)
        - math.log(code["get"])
        + math.log(after_get)
        - math.log(code["name"])
        + math.log(after_name)
    ) / 3
    assert model.log_q(["get", "name"]) == pytest.approx(want, rel=1e-12)
    # Reversed, the same words are far less likely a name.
    assert model.log_q(["name", "get"]) < want - 1
    # The same again (nothing kept from one call changes the next).
    assert model.log_q(["get", "name"]) == model.log_q(["get", "name"])
    # After a context never seen ("i" was no name's word), the text's unigram alone.
    assert model.log_ratios(["i", "get"])[1] == pytest.approx(
        math.log(text["get"]) - math.log(code["get"]), rel=1e-12
    )


def test_the_shipped_table_is_the_69_sources_with_copied_counts():
    names = code_prior("name")
    # The names of the 69 sources, each read once: counted, copied-counted and by length.
    assert names.lengths.sum() == names.copied.sum() == 1_019_723
    with resources.as_file(resources.files("wrdscore.data").joinpath(PRIOR_FILE)) as path:
        data = build.read_table(path)
    assert data["source"].startswith("ant+antlr3+") and data["source"].count("+") == 68
    assert data["targets"]["name"]["folds"] == {"count": 10, "by": "project"}
    # The shipped quantile (0.2) lies between the stored ones around it.
    assert code_prior("name", 0.1).threshold < names.threshold < code_prior("name", 0.3).threshold
    # Its bigrams as arrays: 328,501 of them, and every name starts once.
    counts = read_target(path.read_bytes(), "name")
    contexts, _, pairs = counts.bigrams
    assert counts.bigrams.shape == (3, 328_501)
    assert pairs[contexts == counts.vocabulary.index(START)].sum() == 1_019_723


def test_round_2s_shipped_table_is_read_in_todays_layout():
    data = resources.files("wrdscore.data").joinpath("code_prior_jdk17_seq.zip").read_bytes()
    names = read_prior(data, "name", 0.05)
    # OpenJDK 17's 174,573 methods, each name started and ended once.
    assert names.lengths.sum() == 174_573
    assert names.copied is None
    assert read_target(data, "summary").meta["texts"] == 73_583


def _old_layout(data, path):
    """``data`` written in the layout before arrays: each target's counts one JSON member."""

    def member(value):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("source.json", member({"source": data["source"]}))
        for target, part in data["targets"].items():
            archive.writestr(f"{target}.json", member(part))


def test_a_table_of_the_old_layout_is_rewritten_with_the_same_counts(table, tmp_path):
    corpus, data = table
    _old_layout(data, tmp_path / "old.zip")
    # The metrics read today's layout alone; the script still reads an old table.
    with pytest.raises(TableError, match=r"older layout .* build the table with this version"):
        read_prior((tmp_path / "old.zip").read_bytes(), "name")
    build.main(["--from-table", str(tmp_path / "old.zip"), str(tmp_path / "new.zip")])
    assert build.read_table(tmp_path / "old.zip") == data == build.read_table(tmp_path / "new.zip")
    # The model read from the arrays scores every name as the one built from the counts.
    names = data["targets"]["name"]
    counted = SequenceModel(names["tokens"], names["code"], names["bigrams"])
    read = read_prior((tmp_path / "new.zip").read_bytes(), "name").model
    texts = [to_tokens(r["name"]) for r in open_corpus(corpus).iter_methods()]
    texts += [["no", "such", "words"], [END], [START, "get"], []]
    assert [read.log_q(t) for t in texts] == [counted.log_q(t) for t in texts]
    assert read.log_ratios(texts[0], context=False) == counted.log_ratios(texts[0], context=False)


def test_a_table_is_rewritten_or_counted_never_both(table, tmp_path):
    corpus, _ = table
    out = tmp_path / "new.zip"
    for args in ([str(out)], [str(corpus), str(out), "--from-table", str(out)]):
        with pytest.raises(SystemExit, match=r"^error: give the corpora to count or --from-table"):
            build.main(args)
    with pytest.raises(SystemExit, match=r"^error: no table .*none\.zip$"):
        build.main(["--from-table", str(tmp_path / "none.zip"), str(out)])
    assert not out.exists()


def test_a_token_with_a_line_break_or_a_count_not_positive_is_refused():
    # The vocabulary is one token a line, and a token never seen counts 0.
    bigrams = {START: {"a": 1}, "a": {END: 1}}
    with pytest.raises(ValueError, match="line break"):
        TargetCounts.from_dict({"tokens": {"a\nb": 1}, "code": {}, "bigrams": bigrams})
    with pytest.raises(ValueError, match="positive"):
        TargetCounts.from_dict({"tokens": {"a": 1}, "code": {"b": 0}, "bigrams": bigrams})


def test_a_folder_that_is_no_corpus_is_one_error_line(tmp_path):
    with pytest.raises(SystemExit, match=r"^error: corpus folder .* does not exist$"):
        build.main([str(tmp_path / "none"), str(tmp_path / "prior.zip")])
    assert not (tmp_path / "prior.zip").exists()


def test_an_existing_table_is_replaced_only_with_force(table, tmp_path):
    corpus, _ = table
    out = tmp_path / "prior.zip"
    out.write_bytes(b"keep")
    with pytest.raises(SystemExit, match=r"^error: .*prior\.zip exists; give --force"):
        build.main([str(corpus), str(out)])
    assert out.read_bytes() == b"keep"
    build.main([str(corpus), str(out), "--force"])
    assert build.read_table(out)["targets"]["name"]["texts"] > 0


def test_a_corpus_without_summaries_is_one_error_line(tmp_path):
    (tmp_path / "B.java").write_text("class B { void run() { go(); } int size() { return n; } }\n")
    ingest([tmp_path / "B.java"], tmp_path / "corpus", quiet=True)
    with pytest.raises(SystemExit, match=r"^error: the corpora hold no method with a Javadoc"):
        build.main([str(tmp_path / "corpus"), str(tmp_path / "prior.zip")])
    assert not (tmp_path / "prior.zip").exists()


def test_a_table_is_written_the_same_for_the_same_counts_and_read_back_whole(table, tmp_path):
    _, data = table
    build.write_table(data, tmp_path / "again.zip")
    build.write_table(data, tmp_path / "twice.zip")
    assert (tmp_path / "again.zip").read_bytes() == (tmp_path / "twice.zip").read_bytes()
    assert build.read_table(tmp_path / "again.zip") == data
    # The metrics read one target's member alone.
    from wrdscore.metrics.code import table_part

    assert (
        table_part((tmp_path / "again.zip").read_bytes(), "summary") == data["targets"]["summary"]
    )
