"""A tiny randomly initialised BART and its word-level tokenizer, saved as a model folder.

No real pretrained BART can be had offline, so the BARTScore tests and the BARTScore
guide's runnable example build this one: one encoder and one decoder layer, random
weights, a vocabulary of common identifier sub-tokens.
"""

from __future__ import annotations

from pathlib import Path

WORDS = [
    *("get", "set", "user", "name", "size", "count", "is", "empty", "add", "remove"),
    *("item", "value", "list", "to", "string", "find", "by", "id", "update", "all"),
    *("clear", "index", "of", "contains", "put", "key", "map"),
]
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
#: Positions the tiny model has: names of more tokens (with <s> and </s>) are cut.
MAX_POSITIONS = 10


def tiny_tokenizer(max_length: int | None = None):  # type: ignore[no-untyped-def]
    """A word-level tokenizer over :data:`WORDS` that wraps a text as BART's does."""
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {w: i for i, w in enumerate(SPECIALS + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    # <s> name </s>, as BART's own tokenizer wraps a text.
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    extra = {} if max_length is None else {"model_max_length": max_length}
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        **extra,
    )


def tiny_bart_config():  # type: ignore[no-untyped-def]
    """One layer each side, 16 dimensions, :data:`MAX_POSITIONS` positions."""
    import transformers

    return transformers.BartConfig(
        vocab_size=len(SPECIALS) + len(WORDS),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=MAX_POSITIONS,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_eos_token_id=2,
    )


def build_tiny_bart(folder: str | Path, seed: int = 0) -> Path:
    """Save a tiny random BART (weights from ``seed``) and its tokenizer in ``folder``.

    The tokenizer has no ``model_max_length``: the limit comes from the model's positions.
    """
    import torch
    import transformers

    torch.manual_seed(seed)
    folder = Path(folder)
    transformers.BartForConditionalGeneration(tiny_bart_config()).eval().save_pretrained(folder)
    tiny_tokenizer().save_pretrained(folder)
    return folder
