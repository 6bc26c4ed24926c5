"""Co-occurrence counts and their truncated SVD (the WRDScore paper's embeddings)."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.sparse.linalg import svds
from sklearn.utils.extmath import svd_flip

from wrdscore.embeddings.training._documents import TokenDocuments
from wrdscore.errors import WrdscoreError

WEIGHTINGS = ("raw", "ppmi")
#: Largest vocabulary decomposed with a dense SVD when the sparse solver fails
#: (its ``V x V`` float64 copy is 128 MB at 4,000 tokens).
DENSE_SVD_MAX = 4_000


def cooccurrence_matrix(docs: TokenDocuments, window: int | None = None) -> sp.csr_matrix:
    """Symmetric sparse matrix of how often two tokens occur together in one document.

    ``C[i, j]`` counts the ordered position pairs ``(p, q)``, ``p != q``, of one
    document (method name) with token ``i`` at ``p``, token ``j`` at ``q`` and
    ``|p - q| <= window``; ``window=None`` is the paper's "largest context window",
    the whole name.

    The diagonal counts a token with *another occurrence* of itself
    (``getOrGet`` adds 2 to ``C[get, get]``) but never a position with itself:
    that pair is present for every token occurrence, so it would only add the
    token's frequency to the diagonal, and raw frequency would then dominate the
    leading singular vectors instead of which tokens keep company.

    Parameters
    ----------
    docs : TokenDocuments
        The training documents.
    window : int, optional
        Largest distance between the two positions (>= 1); default the whole name.

    Returns
    -------
    scipy.sparse.csr_matrix of float64, shape (V, V)
        ``V = len(docs.vocab)``.

    Examples
    --------
    >>> docs = TokenDocuments.from_token_lists([["get", "user", "name"]])
    >>> cooccurrence_matrix(docs).toarray().tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    >>> cooccurrence_matrix(docs, window=1).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    check_window(window)
    n = len(docs.vocab)
    doc = docs.doc_index()
    longest = int(np.diff(docs.offsets).max(initial=0))
    reach = longest - 1 if window is None else min(window, longest - 1)
    rows: list[NDArray[np.int64]] = []
    cols: list[NDArray[np.int64]] = []
    # One vectorised pass per distance k: every position p paired with p + k when
    # both lie in the same document. A name has at most a few dozen tokens, so this
    # loop is short; the work is in the array operations over the whole corpus.
    for k in range(1, reach + 1):
        same = doc[:-k] == doc[k:]
        left, right = docs.ids[:-k][same], docs.ids[k:][same]
        rows += [left, right]
        cols += [right, left]
    row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    # COO -> CSR sums the duplicate (i, j) entries: that sum is the count.
    return sp.coo_matrix((np.ones(len(row)), (row, col)), shape=(n, n)).tocsr()


def check_window(window: int | None) -> None:
    """Refuse a co-occurrence window below 1 with a :class:`WrdscoreError`."""
    if window is not None and window < 1:
        raise WrdscoreError(f"--window must be at least 1, not {window}")


def ppmi(counts: sp.csr_matrix) -> sp.csr_matrix:
    """Positive pointwise mutual information of a co-occurrence matrix.

    ``PPMI[i, j] = max(0, ln(C[i, j] * T / (r_i * r_j)))`` with ``r`` the row sums
    and ``T`` the total count; it keeps the sparsity pattern (zero counts stay 0).

    Examples
    --------
    >>> c = sp.csr_matrix(np.array([[0.0, 2.0, 1.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    >>> np.round(ppmi(c).toarray(), 4).tolist()
    [[0.0, 0.6931, 0.6931], [0.6931, 0.0, 0.0], [0.6931, 0.0, 0.0]]
    """
    coo = counts.tocoo()
    rowsum = np.asarray(counts.sum(axis=1)).ravel()
    pmi = np.log(coo.data * rowsum.sum() / (rowsum[coo.row] * rowsum[coo.col]))
    out = sp.csr_matrix((np.maximum(pmi, 0.0), (coo.row, coo.col)), shape=counts.shape)
    out.eliminate_zeros()
    return out


def svd_embeddings(matrix: sp.spmatrix, dim: int, seed: int = 0) -> NDArray[np.float64]:
    """Embedding matrix ``E = 1/2 U Sigma`` from a truncated SVD ``C ~ U Sigma V``.

    Parameters
    ----------
    matrix : sparse matrix, shape (V, V)
        Co-occurrence counts (or their PPMI).
    dim : int
        Number of singular triplets kept; ``dim < V`` (the README's promise, which
        the sparse solver needs).
    seed : int
        Seeds the solver's start vector, so the result is reproducible; signs are
        then fixed by :func:`sklearn.utils.extmath.svd_flip`.

    Returns
    -------
    ndarray of float64, shape (V, dim)
        Rows are token vectors, columns in decreasing singular value. A token that
        never shares a name with another token (it only ever forms a name alone)
        has an all-zero row of ``matrix``, and its vector is set to exactly zero, so
        scoring treats it like an unseen token (the solver returns ~1e-15 there,
        which would otherwise give it an arbitrary direction). With
        ``tol = V * eps * sigma_1`` (the rule of :func:`numpy.linalg.matrix_rank`),
        singular values at or below ``tol`` are numerically zero and set to 0 (a
        matrix of rank ``r < dim`` gives ``dim - r`` zero columns), and so are rows
        of ``U Sigma`` of norm at most ``tol``: a token whose co-occurrences lie
        wholly outside the kept singular vectors (a pair of tokens seen only with
        each other, whose singular value is not among the ``dim`` largest) has the
        row ``C_i V = 0`` in exact arithmetic. On the ``java/util`` names of the
        JDK, 37 such rows had norms up to 7e-15, the smallest other 1.2e-5, with
        ``tol`` = 9e-11.

    Notes
    -----
    The sparse solver (PROPACK) stops with "an invariant subspace of dimension r
    was found" when the matrix has rank ``r < dim``, which happens on small
    corpora, or returns triplets that are not singular triplets (checked by
    :func:`_triplets_failure`). A matrix of at most :data:`DENSE_SVD_MAX` rows is then decomposed
    with the dense :func:`scipy.linalg.svd`, which returns every triplet: the
    ``dim - r`` beyond the rank have singular value 0, hence zero columns, and
    the first ``r`` are those the sparse solver would give. A larger matrix of too
    low rank is refused with a message to lower ``dim``.

    Examples
    --------
    >>> c = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> (svd_embeddings(c, dim=1).round(4) + 0.0).tolist()  # 1/2 * 3 * [1, 1, 0] / sqrt(2)
    [[1.0607], [1.0607], [0.0]]
    >>> c = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    >>> (svd_embeddings(c, dim=2).round(4) + 0.0).tolist()  # rank 1; token 2 co-occurs with nothing
    [[0.7071, 0.0], [0.7071, 0.0], [0.0, 0.0]]
    """
    n = matrix.shape[0]
    if n == 0:
        raise WrdscoreError("the corpus has no tokens to train on")
    if dim < 1:
        raise WrdscoreError(f"--dim must be at least 1, not {dim}")
    if dim >= n:
        raise WrdscoreError(
            f"the corpus has {n} distinct tokens (after --min-count), too few for --dim {dim}: "
            f"the SVD needs at least {dim + 1}; lower --dim or train on more code"
        )
    if matrix.nnz == 0:
        raise WrdscoreError(
            "no two tokens ever occur together (every name has a single token, or --window "
            "excludes every pair), so the co-occurrence SVD has nothing to decompose"
        )
    matrix = sp.csr_matrix(matrix, dtype=np.float64)
    try:
        # PROPACK (Lanczos bidiagonalisation) gives the same exact triplets as ARPACK
        # 5-10x faster on these matrices (benchmarks/train.py).
        u, s, vt = svds(matrix, k=dim, solver="propack", random_state=seed)
        failure = _triplets_failure(matrix, u, s, vt)
    except np.linalg.LinAlgError as exc:
        failure = str(exc)
    if failure:
        if n > DENSE_SVD_MAX:
            raise WrdscoreError(
                f"the sparse SVD of the {n} x {n} co-occurrence matrix failed for --dim {dim} "
                f"({failure}; its rank is probably below {dim}); lower --dim"
            )
        u, s, vt = scipy.linalg.svd(matrix.toarray())
        u, s, vt = u[:, :dim], s[:dim], vt[:dim]
    order = np.argsort(-s, kind="stable")
    u, s, vt = u[:, order], s[order], vt[order]
    # numpy.linalg.matrix_rank's tolerance: below it a value is rounding error.
    tol = max(matrix.shape) * np.finfo(np.float64).eps * s[0]
    s = np.where(s > tol, s, 0.0)
    u, _ = svd_flip(u, vt)
    vectors = u * s
    vectors[np.linalg.norm(vectors, axis=1) <= tol] = 0.0
    vectors[np.diff(matrix.indptr) == 0] = 0.0  # exact, whatever the rounding
    return 0.5 * vectors


def _triplets_failure(
    matrix: sp.csr_matrix, u: NDArray[np.float64], s: NDArray[np.float64], vt: NDArray[np.float64]
) -> str:
    """Why ``(u, s, vt)`` are not singular triplets of ``matrix`` ("" if they are).

    PROPACK does not always raise when the matrix has rank below ``k``: it can
    return a made-up extra triplet (a rank-1 3 x 3 matrix, ``k=2``, gives a second
    singular value 1.13 with a repeated right vector). So the triplets are checked:
    orthonormal columns of ``u`` and rows of ``vt``, and ``C v_k = s_k u_k``, each to
    ``1e-6`` (relative to ``sigma_1`` for the residual); exact triplets meet these to
    about ``1e-12``.
    """
    eye = np.eye(len(s))
    if np.abs(u.T @ u - eye).max() > 1e-6 or np.abs(vt @ vt.T - eye).max() > 1e-6:
        return "the singular vectors it returned are not orthonormal"
    if np.abs(matrix @ vt.T - u * s).max() > 1e-6 * max(s.max(), 0.0):
        return "the singular triplets it returned do not satisfy C v = sigma u"
    return ""
