"""Java corpora: find sources, parse them, extract method names, split them into sub-tokens."""

from wrdscore.corpora._corpus import (
    MANIFEST_FILE,
    METHODS_FILE,
    RECORD_FIELDS,
    Corpus,
    CorpusWriter,
    open_corpus,
)
from wrdscore.corpora._tokenize import split_identifier, split_many, to_tokens

__all__ = [
    "MANIFEST_FILE",
    "METHODS_FILE",
    "RECORD_FIELDS",
    "Corpus",
    "CorpusWriter",
    "open_corpus",
    "split_identifier",
    "split_many",
    "to_tokens",
]
