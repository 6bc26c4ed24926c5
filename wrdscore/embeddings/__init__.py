"""Token embeddings: train them on a corpus, store them, load them for scoring.

Loading and looking up vectors (what scoring needs) is imported eagerly and needs
neither gensim nor scikit-learn; training (gensim, scipy, scikit-learn) is imported
on first use of its names.
"""

from typing import TYPE_CHECKING

from wrdscore.embeddings._inspect import (
    IdentifierVector,
    identifier_vector,
    neighbors,
    similarity,
)
from wrdscore.embeddings._store import (
    default_model_path,
    load_embeddings,
    save_embeddings,
    upgrade_model_dir,
)
from wrdscore.embeddings._vectors import OOV_POLICIES, TokenEmbeddings, vectors_sha

if TYPE_CHECKING:
    from wrdscore.embeddings._cooccurrence import (
        WEIGHTINGS,
        cooccurrence_matrix,
        ppmi,
        svd_embeddings,
    )
    from wrdscore.embeddings._docfreq import document_frequencies
    from wrdscore.embeddings._documents import TokenDocuments
    from wrdscore.embeddings._gensim import train_gensim
    from wrdscore.embeddings._train import METHODS, TEXTS, corpus_documents, train_embeddings

_LAZY = {
    "WEIGHTINGS": "_cooccurrence",
    "cooccurrence_matrix": "_cooccurrence",
    "ppmi": "_cooccurrence",
    "svd_embeddings": "_cooccurrence",
    "document_frequencies": "_docfreq",
    "TokenDocuments": "_documents",
    "train_gensim": "_gensim",
    "METHODS": "_train",
    "TEXTS": "_train",
    "corpus_documents": "_train",
    "train_embeddings": "_train",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"wrdscore.embeddings.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'wrdscore.embeddings' has no attribute {name!r}")


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
    "upgrade_model_dir",
    "vectors_sha",
]
