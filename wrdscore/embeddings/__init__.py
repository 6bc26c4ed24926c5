"""Token embeddings: train them on a corpus, store them, load them for scoring."""

from wrdscore.embeddings._vectors import OOV_POLICIES, TokenEmbeddings, vectors_sha

__all__ = ["OOV_POLICIES", "TokenEmbeddings", "vectors_sha"]
