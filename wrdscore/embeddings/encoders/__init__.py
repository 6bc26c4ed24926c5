"""Pretrained encoders (sentence-transformers / Hugging Face) as a source of token vectors.

Needs the ``encoders`` extra (torch, transformers, sentence-transformers); nothing here
imports torch until an encoder is loaded, so the core install and ``wrdscore score``
without ``--encoder`` never pay for it.

- :class:`Encoder`: contextual vectors of a name's own tokens (word pieces pooled back),
  or of every word piece of a text as bert_score reads it;
- :class:`ContextualVectors`: those vectors as a metric reads them, alone or fused with
  a static model's;
- :func:`distill` and :func:`reduce_distilled`: static vectors from an encoder (a
  MODEL_DIR the torch-free engine scores); :func:`fuse_models`: two models' vectors of
  each token, concatenated;
- :func:`resolve_encoder_path`: a local folder or a hub name's cached snapshot;
  :func:`check_encoder_options`: an encoder's layer and device, checked before it loads;
- :func:`tune_encoder`, :func:`tune_static`: contrastive tuning on pairs of names that
  mean the same (:func:`gather_pairs` reads them from corpora and TSV files).
"""

from wrdscore.embeddings.encoders._baselines import (
    cache_dir,
    read_encoder_baselines,
    read_encoder_probe,
    store_encoder_baselines,
    store_encoder_probe,
)
from wrdscore.embeddings.encoders._contextual import (
    ENCODING,
    PROBE_TOKENS,
    ContextualVectors,
    check_fuse_weights,
)
from wrdscore.embeddings.encoders._distill import distill, reduce_distilled
from wrdscore.embeddings.encoders._encoder import (
    CACHE_NAMES,
    DEFAULT_BATCH_SIZE,
    Encoder,
    check_encoder_options,
    resolve_encoder_path,
    weights_sha,
)
from wrdscore.embeddings.encoders._fuse import fuse_models
from wrdscore.embeddings.encoders._pairs import (
    CORPUS_KINDS,
    FILE_KIND,
    HeldOut,
    PairOptions,
    TrainingPairs,
    gather_pairs,
    normalise,
    read_pair_file,
)
from wrdscore.embeddings.encoders._runtime import (
    DEVICES,
    EXTRA_HINT,
    check_device,
    resolve_device,
    stack_versions,
    torch_stack,
)
from wrdscore.embeddings.encoders._tune import (
    CARD_JSON,
    CARD_MD,
    TuneSettings,
    steps_text,
    tune_encoder,
    tune_static,
)

__all__ = [
    "CACHE_NAMES",
    "CARD_JSON",
    "CARD_MD",
    "CORPUS_KINDS",
    "DEFAULT_BATCH_SIZE",
    "DEVICES",
    "ENCODING",
    "EXTRA_HINT",
    "FILE_KIND",
    "PROBE_TOKENS",
    "ContextualVectors",
    "Encoder",
    "HeldOut",
    "PairOptions",
    "TrainingPairs",
    "TuneSettings",
    "cache_dir",
    "check_device",
    "check_encoder_options",
    "check_fuse_weights",
    "distill",
    "fuse_models",
    "gather_pairs",
    "normalise",
    "read_encoder_baselines",
    "read_encoder_probe",
    "read_pair_file",
    "reduce_distilled",
    "resolve_device",
    "resolve_encoder_path",
    "stack_versions",
    "steps_text",
    "store_encoder_baselines",
    "store_encoder_probe",
    "torch_stack",
    "tune_encoder",
    "tune_static",
    "weights_sha",
]
