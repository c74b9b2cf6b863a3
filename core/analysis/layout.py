"""A deterministic 2-D layout (PCA) and how well it keeps neighbourhoods (kNN recall).

PCA, not UMAP/t-SNE: it is exact, fast and deterministic for the same input, and in the star
map it only decides *angles* — radii are true distances, never projected. The measured
neighbourhood preservation is shown next to every map, so nobody reads more into it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def pca2(x: npt.NDArray[np.floating], center: npt.NDArray[np.floating] | None = None) -> tuple[Array, Array, Array]:
    """(coordinates, components, mean): the first two principal components, signs fixed.

    A component's sign is chosen so its largest loading is positive: the same rows give the
    same picture every time.
    """
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=0) if center is None else np.asarray(center, dtype=np.float64)
    if len(x) < 2:
        comps = np.eye(2, x.shape[1]) if x.ndim == 2 and x.shape[1] >= 2 else np.zeros((2, x.shape[-1]))
        return (x - mean) @ comps.T, comps, mean
    _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
    comps = vt[:2]
    if comps.shape[0] < 2:
        comps = np.vstack([comps, np.zeros_like(comps)])
    for i in range(2):
        if comps[i][np.argmax(np.abs(comps[i]))] < 0:
            comps[i] = -comps[i]
    return (x - mean) @ comps.T, comps, mean


def _recall(vectors: npt.NDArray[np.floating], low: Array, k: int) -> float:
    """Mean share of each point's k nearest by cosine (full dimension) among its k nearest by ``low``."""
    v = np.asarray(vectors, dtype=np.float64)
    sim = v @ v.T
    np.fill_diagonal(sim, -np.inf)
    np.fill_diagonal(low, np.inf)
    high = np.argsort(-sim, axis=1)[:, :k]
    near = np.argsort(low, axis=1, kind="stable")[:, :k]
    return float(np.mean([len(set(h) & set(lo)) / k for h, lo in zip(high, near, strict=True)]))


def knn_recall_angles(vectors: npt.NDArray[np.floating], angles: Array, k: int = 5) -> float:
    """How well a star map's angles keep neighbourhoods: 1.0 keeps every one; ~k/n is random."""
    if len(vectors) <= k + 1:
        return 1.0
    gap = np.abs(angles[:, None] - angles[None, :]) % (2 * np.pi)
    return _recall(vectors, np.minimum(gap, 2 * np.pi - gap), k)


def knn_recall_2d(vectors: npt.NDArray[np.floating], coords: Array, k: int = 5) -> float:
    """The same for a 2-D map: neighbours by Euclidean distance on the map."""
    if len(vectors) <= k + 1:
        return 1.0
    return _recall(vectors, ((coords[:, None, :] - coords[None, :, :]) ** 2).sum(-1), k)
