"""Loading, storing and looking up vectors: everything scoring needs, without gensim.

- :mod:`._vectors`: :class:`~wrdscore.embeddings.TokenEmbeddings`, the vectors as the
  metrics see them (OOV policy, IDF, vocabulary mean); :mod:`._subword`: FastText's
  n-gram vectors for unseen tokens; :mod:`._wordpiece`: a distilled model's word-piece
  vectors for them, split as the encoder's WordPiece tokenizer splits;
- :mod:`._store`: the MODEL_DIR folder (save, load, upgrade) and plain vector files,
  read by :mod:`._word2vec` (word2vec text/binary);
- :mod:`._inspect`: nearest tokens and similarities of identifiers
  (``wrdscore neighbors``/``similarity``).

:mod:`wrdscore.embeddings` imports these eagerly, so they import numpy only; gensim is
imported on first use where it is needed (a KeyedVectors file, or a model's ``kv``).
"""
