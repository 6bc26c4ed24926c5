"""Tables and heat maps of one pair's transport."""

from __future__ import annotations

import numpy as np
import pytest

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.explain import matrix_table, plot_transport, transport_tables
from wrdscore.metrics.wrd import WRDScore


@pytest.fixture
def transport():
    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.6, 0.8], "size": [0.0, 1.0]})
    return WRDScore(emb).transport("getCount", "size")


def test_tables_show_tokens_masses_and_values(transport):
    cos, flow = transport_tables(transport)
    assert [c.header for c in cos.columns] == ["reference \\ prediction", "size (1.00)"]
    assert list(cos.columns[0].cells) == ["get (0.50)", "count (0.50)"]
    assert list(cos.columns[1].cells) == ["0.000", "0.800"]
    assert list(flow.columns[1].cells) == ["0.500", "0.500"]


def test_matrix_table_rejects_mislabelled_matrices():
    with pytest.raises(ValueError):
        matrix_table("x", np.eye(2), ["a"], ["b", "c"], np.ones(1), np.ones(2))


def test_plot_writes_a_png_atomically(transport, tmp_path):
    out = plot_transport(transport, tmp_path / "sub" / "pair.png")
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert [p.name for p in out.parent.iterdir()] == ["pair.png"]  # no temp file left


@pytest.mark.parametrize(
    ("ref", "pred", "side"),
    [
        ("qzxvbn", "getCount", "reference"),
        ("size", "qzxvbn", "prediction"),
        ("qzxvbn", "qzxvbn", "reference"),
    ],
)
def test_plot_refuses_a_side_that_drop_emptied(tmp_path, ref, pred, side):
    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.6, 0.8], "size": [0.0, 1.0]})
    t = WRDScore(emb, oov="drop").transport(ref, pred)
    with pytest.raises(WrdscoreError, match=f"nothing to draw: the {side} has no tokens left"):
        plot_transport(t, tmp_path / "e.png")
    assert not any(tmp_path.iterdir())
    # The tables still print the empty side.
    assert len(transport_tables(t)) == 2
