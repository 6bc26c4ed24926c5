"""Token embeddings: train them on a corpus, store them, load them for scoring."""

from wrdscore.embeddings._constraints import (
    KINDS,
    PAIRS_FILE,
    Constraints,
    MinedPair,
    MiningSettings,
    format_pairs,
    mine_constraints,
    mine_records,
    read_pairs,
    write_pairs,
)
from wrdscore.embeddings._cooccurrence import (
    WEIGHTINGS,
    cooccurrence_matrix,
    ppmi,
    svd_embeddings,
)
from wrdscore.embeddings._counterfit import CounterFitSettings, counter_fit
from wrdscore.embeddings._docfreq import document_frequencies
from wrdscore.embeddings._documents import TokenDocuments
from wrdscore.embeddings._gensim import train_gensim
from wrdscore.embeddings._inspect import (
    IdentifierVector,
    identifier_vector,
    neighbors,
    similarity,
)
from wrdscore.embeddings._specialise import (
    DEFAULT_SPECIALISE_METHOD,
    SPECIALISE_METHODS,
    SpecialiseResult,
    SpecialiseSettings,
    attract_repel,
    specialise_from_corpus,
    specialise_model,
    specialise_vectors,
)
from wrdscore.embeddings._store import default_model_path, load_embeddings, save_embeddings
from wrdscore.embeddings._train import METHODS, TEXTS, corpus_documents, train_embeddings
from wrdscore.embeddings._vectors import OOV_POLICIES, TokenEmbeddings, vectors_sha

__all__ = [
    "DEFAULT_SPECIALISE_METHOD",
    "KINDS",
    "METHODS",
    "OOV_POLICIES",
    "PAIRS_FILE",
    "SPECIALISE_METHODS",
    "TEXTS",
    "WEIGHTINGS",
    "Constraints",
    "CounterFitSettings",
    "IdentifierVector",
    "MinedPair",
    "MiningSettings",
    "SpecialiseResult",
    "SpecialiseSettings",
    "TokenDocuments",
    "TokenEmbeddings",
    "attract_repel",
    "cooccurrence_matrix",
    "corpus_documents",
    "counter_fit",
    "default_model_path",
    "document_frequencies",
    "format_pairs",
    "identifier_vector",
    "load_embeddings",
    "mine_constraints",
    "mine_records",
    "neighbors",
    "ppmi",
    "read_pairs",
    "save_embeddings",
    "similarity",
    "specialise_from_corpus",
    "specialise_model",
    "specialise_vectors",
    "svd_embeddings",
    "train_embeddings",
    "train_gensim",
    "vectors_sha",
    "write_pairs",
]
