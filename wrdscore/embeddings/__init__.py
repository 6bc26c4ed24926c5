"""Token embeddings: train them on a corpus, store them, load them for scoring.

Three rooms, each a subpackage with its own overview:

- :mod:`~wrdscore.embeddings.store`: vectors as scoring sees them, the MODEL_DIR format,
  loading and inspecting (imported eagerly; needs neither gensim nor scikit-learn);
- :mod:`~wrdscore.embeddings.training`: vectors from a corpus (``wrdscore train``);
- :mod:`~wrdscore.embeddings.specialise`: vectors moved by constraints mined from the
  corpus (``wrdscore specialise``).

Training and specialisation (gensim, scipy, scikit-learn) are imported on first use
of their names: every public name is importable from here, whichever room it lives in.
"""

from typing import TYPE_CHECKING

from wrdscore._lazy import lazy_getattr
from wrdscore.embeddings.store._inspect import (
    IdentifierVector,
    has_no_vector,
    identifier_vector,
    neighbors,
    similarity,
)
from wrdscore.embeddings.store._store import (
    default_model_path,
    drop_gensim_copy,
    load_embeddings,
    save_embeddings,
    upgrade_model_dir,
)
from wrdscore.embeddings.store._vectors import (
    OOV_POLICIES,
    TokenEmbeddings,
    check_oov,
    vectors_sha,
)
from wrdscore.embeddings.store._wordpiece import WordPieceRules, WordPieces

if TYPE_CHECKING:
    from wrdscore.embeddings.encoders._fuse import fuse_models
    from wrdscore.embeddings.specialise._confirm import (
        CONFIRM_QUANTILE,
        Confirmation,
        confirm_synonyms,
        related_threshold,
    )
    from wrdscore.embeddings.specialise._constraints import (
        KINDS,
        PAIRS_FILE,
        Constraints,
        MinedPair,
        MiningSettings,
        check_kind,
        mine_constraints,
        mine_records,
    )
    from wrdscore.embeddings.specialise._counterfit import CounterFitSettings, counter_fit
    from wrdscore.embeddings.specialise._curated import (
        add_curated,
        curated_pairs_path,
        read_curated,
    )
    from wrdscore.embeddings.specialise._inflect import (
        add_inflections,
        inflect_pairs,
        inflected_forms,
    )
    from wrdscore.embeddings.specialise._pairs_file import (
        PAIRS_HEADER,
        check_pairs_output,
        format_pairs,
        read_pairs,
        write_pairs,
    )
    from wrdscore.embeddings.specialise._specialise import (
        DEFAULT_SPECIALISE_METHOD,
        SPECIALISE_METHODS,
        SpecialiseResult,
        SpecialiseSettings,
        attract_repel,
        specialise_from_corpus,
        specialise_model,
        specialise_vectors,
    )
    from wrdscore.embeddings.training._cooccurrence import (
        WEIGHTINGS,
        cooccurrence_matrix,
        ppmi,
        svd_embeddings,
    )
    from wrdscore.embeddings.training._docfreq import document_frequencies
    from wrdscore.embeddings.training._documents import TokenDocuments
    from wrdscore.embeddings.training._gensim import train_gensim
    from wrdscore.embeddings.training._stream import (
        CorpusDocuments,
        DocumentStats,
        document_stats,
        parse_text,
        streamed_cooccurrence,
    )
    from wrdscore.embeddings.training._train import (
        METHODS,
        TEXTS,
        corpus_documents,
        train_embeddings,
    )

_LAZY = {
    "fuse_models": "encoders._fuse",
    "WEIGHTINGS": "training._cooccurrence",
    "cooccurrence_matrix": "training._cooccurrence",
    "ppmi": "training._cooccurrence",
    "svd_embeddings": "training._cooccurrence",
    "document_frequencies": "training._docfreq",
    "TokenDocuments": "training._documents",
    "train_gensim": "training._gensim",
    "CorpusDocuments": "training._stream",
    "DocumentStats": "training._stream",
    "document_stats": "training._stream",
    "parse_text": "training._stream",
    "streamed_cooccurrence": "training._stream",
    "METHODS": "training._train",
    "TEXTS": "training._train",
    "corpus_documents": "training._train",
    "train_embeddings": "training._train",
    "KINDS": "specialise._constraints",
    "PAIRS_FILE": "specialise._constraints",
    "Constraints": "specialise._constraints",
    "MinedPair": "specialise._constraints",
    "MiningSettings": "specialise._constraints",
    "format_pairs": "specialise._pairs_file",
    "PAIRS_HEADER": "specialise._pairs_file",
    "check_pairs_output": "specialise._pairs_file",
    "check_kind": "specialise._constraints",
    "mine_constraints": "specialise._constraints",
    "mine_records": "specialise._constraints",
    "read_pairs": "specialise._pairs_file",
    "write_pairs": "specialise._pairs_file",
    "CONFIRM_QUANTILE": "specialise._confirm",
    "Confirmation": "specialise._confirm",
    "confirm_synonyms": "specialise._confirm",
    "related_threshold": "specialise._confirm",
    "CounterFitSettings": "specialise._counterfit",
    "counter_fit": "specialise._counterfit",
    "add_curated": "specialise._curated",
    "curated_pairs_path": "specialise._curated",
    "read_curated": "specialise._curated",
    "add_inflections": "specialise._inflect",
    "inflect_pairs": "specialise._inflect",
    "inflected_forms": "specialise._inflect",
    "DEFAULT_SPECIALISE_METHOD": "specialise._specialise",
    "SPECIALISE_METHODS": "specialise._specialise",
    "SpecialiseResult": "specialise._specialise",
    "SpecialiseSettings": "specialise._specialise",
    "attract_repel": "specialise._specialise",
    "specialise_from_corpus": "specialise._specialise",
    "specialise_model": "specialise._specialise",
    "specialise_vectors": "specialise._specialise",
}


__getattr__ = lazy_getattr("wrdscore.embeddings", _LAZY)


__all__ = [
    "CONFIRM_QUANTILE",
    "DEFAULT_SPECIALISE_METHOD",
    "KINDS",
    "METHODS",
    "OOV_POLICIES",
    "PAIRS_FILE",
    "PAIRS_HEADER",
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
    "WordPieceRules",
    "WordPieces",
    "add_curated",
    "add_inflections",
    "attract_repel",
    "check_kind",
    "check_oov",
    "check_pairs_output",
    "confirm_synonyms",
    "cooccurrence_matrix",
    "corpus_documents",
    "counter_fit",
    "curated_pairs_path",
    "default_model_path",
    "document_frequencies",
    "document_stats",
    "drop_gensim_copy",
    "format_pairs",
    "fuse_models",
    "has_no_vector",
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
