"""A tiny randomly initialised BERT with a WordPiece tokenizer, for the encoder tests.

Built from a config (no download), so the tests of encoders and of tuning run in seconds
and can recompute its numbers with transformers alone.
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import BertConfig, BertModel, BertTokenizerFast

WORDS = ["get", "set", "user", "name", "size", "count", "to", "string", "is", "empty", "add"]
PIECES = ["##s", "##er", "##ing", "##e", "##t", "##a", "##n", "##m", "##o", "##z"]


def build_tiny_bert(folder: Path) -> Path:
    """Save a 2-layer, 16-dim BERT and its tokenizer (words, pieces, letters) in ``folder``."""
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *PIECES]
    vocab += list("abcdefghijklmnopqrstuvwxyz")
    # From a dict, not a vocab file: transformers 5 ignores ``vocab_file`` and would map
    # every word to [UNK], so that every name got the same states.
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    assert tokenizer.tokenize("get users nametz") == ["get", "user", "##s", "name", "##t", "##z"]
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    BertModel(config).save_pretrained(folder)
    return folder
