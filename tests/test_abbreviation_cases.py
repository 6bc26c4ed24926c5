"""The model card's abbreviation, synonym and opposite cases are not rated cases (issue 33).

The held-out abbreviation pairs are those ``wrdscore corpus abbreviations`` mined from
OpenJDK 17's ``src.zip`` (tests/data/jdk17_abbreviations_heldout.tsv, the held-out rows of
its output); the synonyms and opposites are benchmarks/abbreviation_cosines.py's lists.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from wrdscore.corpora import read_abbreviations
from wrdscore.corpora._abbreviations import held_out
from wrdscore.signals import rated_cases

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT = Path(__file__).parent / "data" / "jdk17_abbreviations_heldout.tsv"


def benchmark() -> ModuleType:
    name = "abbreviation_cosines"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        assert spec and spec.loader
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def test_no_case_is_a_rated_pair_or_the_differing_words_of_one():
    rated = rated_cases()
    assert frozenset(("blank", "empty")) in rated  # the check sees what the issue names
    assert frozenset(("get", "set")) in rated
    bench = benchmark()
    pairs = bench.held_out_pairs(HELD_OUT)
    cases = pairs + bench.SYNONYMS + bench.OPPOSITES
    # One mined pair is the differing words of a rated pair: the benchmark drops it.
    mined = [(p.abbreviation, p.words) for p in read_abbreviations(HELD_OUT)]
    assert [c for c in mined if frozenset(c) in rated] == [("num", "number")]
    assert len(pairs) == 240
    assert [c for c in cases if frozenset(c) in rated] == []


def test_the_held_out_file_is_the_miners_held_out_part():
    pairs = read_abbreviations(HELD_OUT)
    assert pairs and all(p.part == "held-out" and held_out(p.abbreviation) for p in pairs)
    assert len({p.abbreviation for p in pairs}) == 153


def test_random_partners_come_from_another_abbreviation():
    bench = benchmark()
    pairs = bench.held_out_pairs(HELD_OUT)
    partners = bench.random_pairs(pairs)
    words = {a: {w for s, w in pairs if s == a} for a, _ in pairs}
    assert len(partners) == len(pairs)
    assert all(w not in words[a] for a, w in partners)
    assert partners == bench.random_pairs(pairs)  # seeded
