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


def knn_recall_angles(vectors: npt.NDArray[np.floating], angles: Array, k: int = 5) -> float:
    """Mean share of each point's k nearest neighbours (cosine, full dimension) that are also its
    k nearest by angle on the map. 1.0: the angles keep every neighbourhood; ~k/n: random."""
    n = len(vectors)
    if n <= k + 1:
        return 1.0
    v = np.asarray(vectors, dtype=np.float64)
    sim = v @ v.T
    np.fill_diagonal(sim, -np.inf)
    gap = np.abs(angles[:, None] - angles[None, :]) % (2 * np.pi)
    gap = np.minimum(gap, 2 * np.pi - gap)
    np.fill_diagonal(gap, np.inf)
    high = np.argsort(-sim, axis=1)[:, :k]
    low = np.argsort(gap, axis=1, kind="stable")[:, :k]
    return float(np.mean([len(set(h) & set(lo)) / k for h, lo in zip(high, low, strict=True)]))


def knn_recall_2d(vectors: npt.NDArray[np.floating], coords: Array, k: int = 5) -> float:
    """The same for a 2-D map: k nearest by cosine vs k nearest by Euclidean distance on the map."""
    n = len(vectors)
    if n <= k + 1:
        return 1.0
    v = np.asarray(vectors, dtype=np.float64)
    sim = v @ v.T
    np.fill_diagonal(sim, -np.inf)
    d2 = ((coords[:, None, :] - coords[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    high = np.argsort(-sim, axis=1)[:, :k]
    low = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return float(np.mean([len(set(h) & set(lo)) / k for h, lo in zip(high, low, strict=True)]))
