"""Token embeddings: train them on a corpus, store them, load them for scoring."""

from wrdscore.embeddings._cooccurrence import (
    WEIGHTINGS,
    cooccurrence_matrix,
    ppmi,
    svd_embeddings,
)
from wrdscore.embeddings._docfreq import document_frequencies
from wrdscore.embeddings._documents import TokenDocuments
from wrdscore.embeddings._gensim import train_gensim
from wrdscore.embeddings._inspect import (
    IdentifierVector,
    identifier_vector,
    neighbors,
    similarity,
)
from wrdscore.embeddings._store import default_model_path, load_embeddings, save_embeddings
from wrdscore.embeddings._train import METHODS, TEXTS, corpus_documents, train_embeddings
from wrdscore.embeddings._vectors import OOV_POLICIES, TokenEmbeddings, vectors_sha

__all__ = [
    "METHODS",
    "OOV_POLICIES",
    "TEXTS",
    "WEIGHTINGS",
    "IdentifierVector",
    "TokenDocuments",
    "TokenEmbeddings",
    "cooccurrence_matrix",
    "corpus_documents",
    "default_model_path",
    "document_frequencies",
    "identifier_vector",
    "load_embeddings",
    "neighbors",
    "ppmi",
    "save_embeddings",
    "similarity",
    "svd_embeddings",
    "train_embeddings",
    "train_gensim",
    "vectors_sha",
]
