"""E-divisive's energy statistic (Matteson and James 2014) over the splits of one interval of a series: Q̂(τ, κ) for
start < τ < κ ≤ end, X the n = τ − start points before τ and Y the m = κ − τ from τ on,

    Q̂ = 2/(m + n)·Σ|x − y| − 2m/((m + n)(n − 1))·Σ_{pairs of X}|x − x'| − 2n/((m + n)(m − 1))·Σ_{pairs of Y}|y − y'|,

each sum a rectangle of the two-dimensional prefix sums of the distance matrix (Prefix). The best split is the one
numpy's argmax finds in Otava's layout (row τ, column κ from start + 2, 0 where κ ≤ τ): the first maximum in
row-major order, or the first nan (a series holding inf).

Two ways to find it, the same float for every split: a long interval as one numpy matrix (_matrix), a short one
(the gate's series hold a handful to a few dozen runs) scanned as Python floats (_scan), where numpy's cost per call
on tiny arrays was most of the gate's time (issue 64). Both evaluate _q_hat, the same operations in the same order."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

# Intervals of up to this many points are scanned as Python floats, longer ones as one matrix: the two cost the same
# at about 16 points (a scan grows with its m·n splits, the matrix is some 60 µs of numpy calls whatever the size)
SCAN_LIMIT = 16
# Parts of up to this many points have their prefix sums added as Python floats (numpy's calls cost more below about
# 8 points, less above), longer ones by numpy; every interval of such a part is scanned
BY_HAND = 8


class Prefix:
    """The two-dimensional prefix sums of a series' distance matrix |x_i − x_j| (any block of it summed in four
    look-ups): P[i][j] sums the rows before i and the columns before j, added down each column, then along each row
    (numpy's cumsum(axis=0).cumsum(axis=1)). `rows` as lists of floats, for the scan; `matrix` in numpy for a part of
    more than BY_HAND points (None for a shorter one: all its intervals are scanned, BY_HAND ≤ SCAN_LIMIT)."""

    def __init__(self, part: list[float]):
        self.matrix = _prefix_matrix(np.array(part)) if len(part) > BY_HAND else None
        self.rows = _prefix_rows(part) if self.matrix is None else self.matrix.tolist()


def _prefix_matrix(x: np.ndarray) -> np.ndarray:
    p = np.zeros((len(x) + 1, len(x) + 1))
    p[1:, 1:] = np.abs(x[:, None] - x[None, :]).cumsum(axis=0).cumsum(axis=1)
    return p


def _prefix_rows(part: list[float]) -> list[list[float]]:
    """_prefix_matrix's sums, added in the same order as Python floats."""
    rows = [[0.0] * (len(part) + 1)]
    column = [0.0] * len(part)  # down each column, the rows so far
    for a in part:
        column = [c + abs(a - b) for c, b in zip(column, part)]
        rows.append([0.0, *itertools.accumulate(column)])
    return rows


def best_split(p: Prefix, start: int, end: int) -> tuple[int, float]:
    """(τ, Q̂) of the interval's best split (the module docstring's)."""
    return _matrix(p.matrix, start, end) if end - start > SCAN_LIMIT else _scan(p.rows, start, end)


def _q_hat(p_tk, top_k, d_k, d_t, top_t, within_x, scale, coef_x, coef_y):
    """Q̂ from the prefix sums P: p_tk = P[τ, κ], top_k = P[start, κ], d_k = P[κ, κ], d_t = P[τ, τ], top_t =
    P[start, τ], within_x the pairs of X (τ's alone); on floats or numpy arrays alike."""
    between = p_tk - top_k - d_t + top_t
    within_y = (d_k - 2 * p_tk + d_t) / 2
    return scale * between - coef_x * within_x - coef_y * within_y


def _within_x(d_t, top_t, corner):
    return (d_t - 2 * top_t + corner) / 2


def _matrix(p: np.ndarray, start: int, end: int) -> tuple[int, float]:
    """The best split from Q̂'s whole matrix in Otava's layout: row i is τ = start + 1 + i, column j is
    κ = start + 2 + j."""
    scale, coef_x, coef_y, ordered = _weights(end - start)
    diagonal = np.diagonal(p)
    top = p[start]  # P[start, ·]
    d_t, top_t = diagonal[start + 1:end, None], top[start + 1:end, None]
    with np.errstate(divide="ignore", invalid="ignore"):  # a series holding inf is no warning here
        q = np.where(ordered, _q_hat(p[start + 1:end, start + 2:end + 1], top[None, start + 2:end + 1],
                                     diagonal[None, start + 2:end + 1], d_t, top_t,
                                     _within_x(d_t, top_t, p[start, start]), scale, coef_x, coef_y), 0.0)
    i, j = np.unravel_index(np.argmax(q), q.shape)
    return start + 1 + int(i), float(q[i, j])


def _scan(rows: list[list[float]], start: int, end: int) -> tuple[int, float]:
    """The best split, Q̂ by Q̂ in row-major order as Python floats."""
    scale, coef_x, coef_y = _weight_rows(end - start)
    top = rows[start]
    best_t, best_q = start + 1, -math.inf
    for t in range(start + 1, end):
        row, i = rows[t], t - start - 1
        d_t, top_t = row[t], top[t]
        within_x = _within_x(d_t, top_t, top[start])
        # the row's columns before i are κ ≤ τ, 0 in Otava's layout: the maximum only when rounding leaves every Q̂
        # before them below 0 (the first, |x_start − x_start+1|, is 0 or more but for rounding)
        if i and 0.0 > best_q:
            best_t, best_q = t, 0.0
        for j in range(i, end - start - 1):  # κ = start + 2 + j > τ
            k = start + 2 + j
            q = _q_hat(row[k], top[k], rows[k][k], d_t, top_t, within_x, scale[i][j], coef_x[i][j], coef_y[i][j])
            if q > best_q:
                best_t, best_q = t, q
            elif q != q:  # nan (a series holding inf): numpy's argmax stops at the first
                return t, q
    return best_t, best_q


@functools.lru_cache(maxsize=256)
def _weights(length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Q̂'s weights for an interval of `length` points, in _matrix's layout: 2/(m + n), the within-sample
    coefficients of X (the n points before τ) and of Y (the m from τ on), and where κ > τ. They depend on the
    interval's length alone, and the gate asks for the same few lengths thousands of times (read-only arrays)."""
    n = np.arange(1, length)[:, None]  # τ − start
    m = np.arange(2, length + 1)[None, :] - n  # κ − τ
    with np.errstate(divide="ignore", invalid="ignore"):
        coef_x = np.where(n > 1, 2 * m / ((m + n) * (n - 1)), 0.0)
        coef_y = np.where(m > 1, 2 * n / ((m + n) * (m - 1)), 0.0)
    out = (2 / (m + n), coef_x, coef_y, m >= 1)
    for a in out:
        a.flags.writeable = False
    return out


@functools.lru_cache(maxsize=256)
def _weight_rows(length: int) -> tuple[list[list[float]], ...]:
    """_weights' three weights as lists of floats, for the scan (cached alike: do not mutate)."""
    return tuple(a.tolist() for a in _weights(length)[:3])
