"""Token embeddings: train them on a corpus, store them, load them for scoring.

Loading and looking up vectors (what scoring needs) is imported eagerly and needs
neither gensim nor scikit-learn; training (gensim, scipy, scikit-learn) is imported
on first use of its names.
"""

from typing import TYPE_CHECKING

from wrdscore._lazy import lazy_getattr
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
    from wrdscore.embeddings._confirm import (
        CONFIRM_QUANTILE,
        Confirmation,
        confirm_synonyms,
        related_threshold,
    )
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
    from wrdscore.embeddings._curated import add_curated, curated_pairs_path, read_curated
    from wrdscore.embeddings._docfreq import document_frequencies
    from wrdscore.embeddings._documents import TokenDocuments
    from wrdscore.embeddings._gensim import train_gensim
    from wrdscore.embeddings._inflect import add_inflections, inflect_pairs, inflected_forms
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
    from wrdscore.embeddings._stream import (
        CorpusDocuments,
        DocumentStats,
        document_stats,
        parse_text,
        streamed_cooccurrence,
    )
    from wrdscore.embeddings._train import METHODS, TEXTS, corpus_documents, train_embeddings

_LAZY = {
    "WEIGHTINGS": "_cooccurrence",
    "cooccurrence_matrix": "_cooccurrence",
    "ppmi": "_cooccurrence",
    "svd_embeddings": "_cooccurrence",
    "document_frequencies": "_docfreq",
    "TokenDocuments": "_documents",
    "train_gensim": "_gensim",
    "CorpusDocuments": "_stream",
    "DocumentStats": "_stream",
    "document_stats": "_stream",
    "parse_text": "_stream",
    "streamed_cooccurrence": "_stream",
    "METHODS": "_train",
    "TEXTS": "_train",
    "corpus_documents": "_train",
    "train_embeddings": "_train",
    "KINDS": "_constraints",
    "PAIRS_FILE": "_constraints",
    "Constraints": "_constraints",
    "MinedPair": "_constraints",
    "MiningSettings": "_constraints",
    "format_pairs": "_constraints",
    "mine_constraints": "_constraints",
    "mine_records": "_constraints",
    "read_pairs": "_constraints",
    "write_pairs": "_constraints",
    "CONFIRM_QUANTILE": "_confirm",
    "Confirmation": "_confirm",
    "confirm_synonyms": "_confirm",
    "related_threshold": "_confirm",
    "CounterFitSettings": "_counterfit",
    "counter_fit": "_counterfit",
    "add_curated": "_curated",
    "curated_pairs_path": "_curated",
    "read_curated": "_curated",
    "add_inflections": "_inflect",
    "inflect_pairs": "_inflect",
    "inflected_forms": "_inflect",
    "DEFAULT_SPECIALISE_METHOD": "_specialise",
    "SPECIALISE_METHODS": "_specialise",
    "SpecialiseResult": "_specialise",
    "SpecialiseSettings": "_specialise",
    "attract_repel": "_specialise",
    "specialise_from_corpus": "_specialise",
    "specialise_model": "_specialise",
    "specialise_vectors": "_specialise",
}


__getattr__ = lazy_getattr("wrdscore.embeddings", _LAZY)


__all__ = [
    "CONFIRM_QUANTILE",
    "DEFAULT_SPECIALISE_METHOD",
    "KINDS",
    "METHODS",
    "OOV_POLICIES",
    "PAIRS_FILE",
    "SPECIALISE_METHODS",
    "TEXTS",
    "WEIGHTINGS",
    "Confirmation",
    "Constraints",
    "CorpusDocuments",
    "CounterFitSettings",
    "DocumentStats",
    "IdentifierVector",
    "MinedPair",
    "MiningSettings",
    "SpecialiseResult",
    "SpecialiseSettings",
    "TokenDocuments",
    "TokenEmbeddings",
    "add_curated",
    "add_inflections",
    "attract_repel",
    "confirm_synonyms",
    "cooccurrence_matrix",
    "corpus_documents",
    "counter_fit",
    "curated_pairs_path",
    "default_model_path",
    "document_frequencies",
    "document_stats",
    "format_pairs",
    "identifier_vector",
    "inflect_pairs",
    "inflected_forms",
    "load_embeddings",
    "mine_constraints",
    "mine_records",
    "neighbors",
    "parse_text",
    "ppmi",
    "read_curated",
    "read_pairs",
    "related_threshold",
    "save_embeddings",
    "similarity",
    "specialise_from_corpus",
    "specialise_model",
    "specialise_vectors",
    "streamed_cooccurrence",
    "svd_embeddings",
    "train_embeddings",
    "train_gensim",
    "upgrade_model_dir",
    "vectors_sha",
    "write_pairs",
]
