"""Specialising trained vectors for similarity (``wrdscore specialise``, ``train --specialise``).

- :mod:`._constraints`: contrasts, synonyms and abbreviations mined from the training
  corpus (never from rated pairs), and the ``pairs.tsv`` file they are kept in;
- :mod:`._curated`, :mod:`._inflect`: a small curated list on top, and the constraints
  carried over to inflected forms; :mod:`._confirm`: synonyms the vectors must confirm;
- :mod:`._counterfit`, :mod:`._specialise`: counter-fitting and attract-repel, which
  move the vectors, and the model-level entry points; :mod:`._sphere`: their shared
  plumbing (unit vectors, pair arrays).

Needs gensim; like :mod:`~wrdscore.embeddings.training`, this ``__init__`` imports
nothing and :mod:`wrdscore.embeddings` re-exports the public names lazily.
"""
