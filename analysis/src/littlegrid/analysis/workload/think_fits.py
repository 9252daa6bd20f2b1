"""Realised think time against the intended distribution: the KS test against an exponential, the Poisson Random Timer's
fit, and the histogram with the counts each null expects."""

import math

import numpy as np

from littlegrid.analysis.reading.histogram import ExactHistogram
from littlegrid.analysis.workload.kolmogorov import kolmogorov_sf


HISTOGRAM_MAX_BINS = 80
CHI2_MIN_EXPECTED = 5.0


def exponential_cdf_measured(k: np.ndarray, mean_ms: float) -> np.ndarray:
    """P(G ≤ k) for G = floor(g + f): a continuous exponential gap g measured between ms-truncated timestamps.

    The previous sample's end has a uniform fractional millisecond f, so the measured gap is floor(g + f) and
    P(G ≤ k) = ∫_k^{k+1} F(t) dt = 1 − μ·e^{−k/μ}·(1 − e^{−1/μ}) for k ≥ 0. Comparing integer gaps with the
    continuous F directly would reject a true exponential at large n from the truncation alone.
    """
    k = np.asarray(k, dtype=float)
    mu = mean_ms
    out = 1.0 - mu * np.exp(-k / mu) * (1.0 - math.exp(-1.0 / mu))
    return np.where(k < 0, 0.0, np.clip(out, 0.0, 1.0))


def _as_histogram(gaps) -> ExactHistogram:
    """The gaps as an ExactHistogram: one already, or an array of whole milliseconds (sorted or not)."""
    if isinstance(gaps, ExactHistogram):
        return gaps
    values = np.asarray(gaps)
    if values.dtype.kind == "f":  # whole ms read as floats
        whole = values.astype(np.int64)
        if not np.array_equal(whole, values):
            raise TypeError("gaps are whole milliseconds")
        values = whole
    return ExactHistogram.of(values)


def _discrete_ks(gaps: ExactHistogram, cdf) -> float:
    """sup |F_n − F| for integer data against a CDF that jumps only at integers.

    Between two consecutive distinct data values u < u', F_n is flat and F rises, so the supremum is at
    k = u or k = u' − 1: evaluating at every distinct value and the integer below it is exact, and costs
    nothing when a run has a 19-hour pause in it (an integer grid from min to max would not).
    """
    ks = np.unique(np.concatenate((gaps.values, gaps.values - 1)))
    f_n = gaps.below(ks + 1) / gaps.n  # the gaps ≤ k
    return float(np.max(np.abs(f_n - cdf(ks))))


def ks_exponential(gaps) -> dict:
    """KS distance and p-value against an exponential of the same mean, as measured in whole milliseconds.
    `gaps`: an ExactHistogram, or an array of whole-ms gaps.

    The measured gap G = floor(g + f) keeps the mean: E[G] = Σ_k P(G > k) = μ under exponential_cdf_measured,
    so μ is the gaps' mean as measured (no half-millisecond correction: that would shift the null by 0.5 ms,
    which a long run's KS rejects on a true exponential). The p-value is the Kolmogorov distribution's
    (ks_p_value): with the mean estimated from the data and a discrete null it is conservative (the true p
    is smaller), so a rejection (p < 0.05) stands.
    """
    gaps = _as_histogram(gaps)
    n = gaps.n
    mu = gaps.mean() if n else None
    if n < 2 or mu <= 0 or gaps.values[0] < 0:
        return {"d": None, "p": None, "mean_ms": mu}
    d = _discrete_ks(gaps, lambda k: exponential_cdf_measured(k, mu))
    return {"d": d, "p": ks_p_value(d, n), "mean_ms": mu}


EXACT_KS_MAX_N = 10_000


def ks_p_value(d: float, n: int) -> float:
    """P(D_n ≥ d) for the two-sided one-sample KS statistic. Up to EXACT_KS_MAX_N gaps: scipy's exact kstwo.
    Beyond: the Kolmogorov limit with Stephens' finite-n correction, K((√n + 0.12 + 0.11/√n)·d), within
    0.0014 of the exact p at n = 10 000 and closer as n grows (test_think_time checks it against kstwo). It
    spares the large runs the imports of scipy.stats (0.8 s) and scipy.special (0.17 s; see kolmogorov.py)."""
    if n <= EXACT_KS_MAX_N:
        from scipy.stats import kstwo  # noqa: PLC0415 (lazy: 0.8 s to import)
        return float(kstwo.sf(d, n))
    root = math.sqrt(n)
    return kolmogorov_sf((root + 0.12 + 0.11 / root) * d)


def poisson_fit(gaps, offset_ms: float) -> dict:
    """Gaps (an ExactHistogram, or an array of whole-ms gaps) against offset + Poisson(λ) with λ = mean − offset
    (JMeter's Poisson Random Timer).

    d is the KS distance on the discrete CDF; p comes from a chi-square goodness-of-fit test on integer
    bins pooled from both ends until each expects ≥ 5 gaps (dof = bins − 2, one parameter fitted), the
    textbook test for a discrete null (KS p-values are not valid there).
    """
    gaps = _as_histogram(gaps)
    n = gaps.n
    offset = int(round(offset_ms))
    lam = gaps.mean() - offset if n else None
    none = {"d": None, "p": None, "lambda_ms": lam, "offset_ms": offset,
            "test": "chi-square", "chi2": None, "dof": None}
    if n < 2 or lam <= 0:
        return none
    from scipy import special, stats as sps  # noqa: PLC0415 (lazy: only Poisson-timer cells need it)
    dist = sps.poisson(lam, loc=offset)
    d = _discrete_ks(gaps, dist.cdf)
    # integer bins over the null's range; data beyond it falls into the end bins with the null's tail mass
    lo, hi = int(dist.ppf(1e-9)), int(dist.isf(1e-9)) + 1
    support = np.arange(lo, hi + 1)
    observed = np.diff(gaps.below(np.append(support, hi + 1))).astype(float)
    observed[0] += gaps.below(lo)
    observed[-1] += n - gaps.below(hi + 1)
    expected = n * dist.pmf(support)
    expected[0] += n * dist.cdf(lo - 1)
    expected[-1] += n * dist.sf(hi)
    obs_bins, exp_bins = _pool(observed, expected)
    dof = len(obs_bins) - 2
    if dof < 1:
        return none | {"d": d}
    chi2 = float(((obs_bins - exp_bins) ** 2 / exp_bins).sum())
    return none | {"d": d, "p": float(special.chdtrc(dof, chi2)), "chi2": chi2, "dof": dof}


def _pool(observed: np.ndarray, expected: np.ndarray):
    """Merge adjacent bins until each expects at least CHI2_MIN_EXPECTED."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected):
        o_acc += o
        e_acc += e
        if e_acc >= CHI2_MIN_EXPECTED:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:
        if exp:
            obs[-1] += o_acc
            exp[-1] += e_acc
        else:
            obs.append(o_acc)
            exp.append(e_acc)
    return np.array(obs), np.array(exp)


def histogram(gaps) -> dict:
    """Counts on integer-ms bins from the minimum to the 99.9th percentile; gaps beyond it are counted in `overflow`.
    `gaps`: an ExactHistogram, or an array of whole-ms gaps."""
    gaps = _as_histogram(gaps)
    n = gaps.n
    if n == 0:
        return {"edges_ms": [], "counts": [], "overflow": 0}
    lo = int(gaps.values[0])
    hi = int(gaps.at_rank(min(n, math.ceil(0.999 * n)))) + 1
    width = max(1, math.ceil((hi - lo) / HISTOGRAM_MAX_BINS))
    edges = np.arange(lo, hi + width, width)
    counts = np.diff(gaps.below(edges))
    return {"edges_ms": edges.astype(float).tolist(), "counts": counts.astype(int).tolist(),
            "overflow": int(n - gaps.below(edges[-1]))}


def expected_counts(edges, gaps: int, cdf) -> list[float]:
    """Gaps per bin [a, b) of `edges` that a null predicts for `gaps` gaps, `cdf` being its P(G ≤ k) for whole-ms
    gaps G: a bin holds the whole milliseconds ⌈a⌉ … ⌈b⌉ − 1, so its share is F(⌈b⌉ − 1) − F(⌈a⌉ − 1)."""
    below = cdf(np.ceil(np.asarray(edges, dtype=float)) - 1.0)
    return [gaps * float(p) for p in np.diff(below)]


def expected_exponential(edges, gaps: int, ks: dict) -> list[float] | None:
    """The gaps per bin ks_exponential's null predicts: an exponential of its mean_ms measured in whole milliseconds
    (exponential_cdf_measured), so the line beside the histogram is the distribution D was measured against. None
    where the test was not made (fewer than 2 gaps, a mean ≤ 0, negative gaps) or there are no bins."""
    if ks["d"] is None or len(edges) < 2:
        return None
    return expected_counts(edges, gaps, lambda k: exponential_cdf_measured(k, ks["mean_ms"]))


def expected_poisson(edges, gaps: int, fit: dict | None) -> list[float] | None:
    """The gaps per bin poisson_fit's null predicts: offset_ms + Poisson(lambda_ms), JMeter's Poisson Random Timer.
    None without a fit (no Poisson timer), a λ ≤ 0, or no bins."""
    if fit is None or fit["lambda_ms"] is None or fit["lambda_ms"] <= 0 or len(edges) < 2:
        return None
    from scipy import stats as sps  # noqa: PLC0415 (lazy: only Poisson-timer cells need it)
    return expected_counts(edges, gaps, sps.poisson(fit["lambda_ms"], loc=fit["offset_ms"]).cdf)


def histogram_with_nulls(gaps, ks: dict, fit: dict | None) -> dict:
    """histogram(gaps) with, beside the realised counts, those the two nulls predict (expected_exponential,
    expected_poisson): what the report draws over the bars."""
    hist = histogram(gaps)
    n = _as_histogram(gaps).n
    return hist | {"expected_exponential": expected_exponential(hist["edges_ms"], n, ks),
                   "expected_poisson": expected_poisson(hist["edges_ms"], n, fit)}
