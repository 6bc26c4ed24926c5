"""scripts/build_code_prior.py: the table the code-support priors read (issue 32)."""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import load_script

from wrdscore.corpora import ingest, open_corpus, to_tokens
from wrdscore.corpora._code import read_code_words
from wrdscore.metrics._code_support import TextPrior, code_prior, log_odds

build = load_script("build_code_prior")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("prior")
    ingest(
        [Path(__file__).resolve().parents[1] / "examples" / "project"], out / "corpus", quiet=True
    )
    build.main([str(out / "corpus"), str(out / "prior.json.gz")])
    data = json.loads(gzip.decompress((out / "prior.json.gz").read_bytes()))
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


def test_the_thresholds_are_quantiles_of_the_real_texts(table):
    corpus, data = table
    names = data["targets"]["name"]
    odds = log_odds(Counter(names["tokens"]), Counter(names["code"]))
    prior = TextPrior(np.asarray(names["lengths"], float), odds, 1.0)
    records = list(open_corpus(corpus).iter_methods())
    logs = sorted(prior.log_plausibility(to_tokens(r["name"])) for r in records)
    assert names["thresholds"]["0.5"] == pytest.approx(math.exp(np.median(logs)), rel=1e-12)


def test_log_odds_are_the_smoothed_share_against_the_base_rate():
    odds = log_odds(Counter({"get": 30}), Counter({"get": 10, "i": 60}))
    base = 30 / 100
    assert odds["get"] == pytest.approx(math.log((30 + 10 * base) / (40 + 10) / base))
    assert odds["i"] == pytest.approx(math.log((10 * base) / (60 + 10) / base))
    assert "unseen" not in odds  # neutral: the prior reads 0 for it


def test_the_shipped_table_is_openjdks():
    names = code_prior("name")
    assert names.lengths.sum() == 174_573 and names.threshold > 1.0
