"""Training token vectors on a corpus (``wrdscore train``).

- :mod:`._train`: the entry point, :func:`~wrdscore.embeddings.train_embeddings`;
- :mod:`._stream`, :mod:`._documents`: a corpus's methods as training documents,
  streamed from disk; :mod:`._docfreq`: their document frequencies (for IDF);
- :mod:`._cooccurrence`: co-occurrence counts, PPMI and their truncated SVD (the
  WRDScore paper's vectors); :mod:`._gensim`: Word2Vec and FastText;
- :mod:`._dask`: the counting passes on a Dask cluster (``--scheduler``).

Training needs gensim, scipy and scikit-learn, which scoring must not load: this
package's ``__init__`` imports nothing, and :mod:`wrdscore.embeddings` re-exports the
public names lazily.
"""
