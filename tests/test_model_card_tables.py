"""scripts/model_card_tables.py: the issue 11 table takes a pair rated twice at its mean rating."""

from __future__ import annotations

import numpy as np
from corpus_fixtures import run_script

from wrdscore.human_eval import load_paper_ratings


def test_a_pair_rated_twice_gets_its_mean_rating():
    pairs = load_paper_ratings()
    ratings = [
        h
        for r, p, h in zip(pairs.references, pairs.predictions, pairs.human, strict=True)
        if (r, p) == ("darken color", "lighten color")
    ]
    assert len(ratings) == 2 and abs(ratings[0] - ratings[1]) > 0.3  # the first alone is wrong
    done = run_script("model_card_tables.py", "new=default")
    assert done.returncode == 0, done.stderr
    row = next(x for x in done.stdout.splitlines() if x.startswith("| darken color |"))
    assert row.split(" | ")[2] == f"{np.mean(ratings):.2f}" == "0.28"
