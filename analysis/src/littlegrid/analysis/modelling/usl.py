"""Universal Scalability Law fit of X(N): X = λN / (1 + σ(N−1) + κN(N−1)), with its peak N* = √((1−σ)/κ)."""

import math

import numpy as np

MIN_POINTS = 4  # three parameters: with fewer distinct N the fit is exact or underdetermined and says nothing
CURVE_POINTS = 60  # points of the fitted curve stored for the report: a smooth line between the measured N


def usl(n, lam, sigma, kappa):
    n = np.asarray(n, dtype=float)
    return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


def curve(lam: float, sigma: float, kappa: float, lo: float, hi: float, count: int = CURVE_POINTS) -> list[dict]:
    """The fitted X(N) at `count` loads evenly spaced from lo to hi (both included): the line the report draws."""
    loads = np.linspace(lo, hi, count)
    return [{"load": float(n), "x": float(x)} for n, x in zip(loads, usl(loads, lam, sigma, kappa))]


def fit(users, throughput) -> dict:
    """Least-squares fit with σ in [0, 1], κ ≥ 0, λ > 0; refused (ok false, reason) under MIN_POINTS distinct N.
    `points`: the fitted curve from the smallest to the largest N (curve)."""
    n = np.asarray(users, dtype=float)
    x = np.asarray(throughput, dtype=float)
    keep = np.isfinite(n) & np.isfinite(x) & (n > 0)
    n, x = n[keep], x[keep]
    refused = {"ok": False, "sigma": None, "kappa": None, "lambda": None, "r2": None, "n_peak": None, "points": []}
    distinct = len(np.unique(n))
    if distinct < MIN_POINTS:
        return refused | {"reason": f"{distinct} distinct user counts; the USL has 3 parameters and needs at least {MIN_POINTS}"}
    from scipy.optimize import curve_fit  # noqa: PLC0415 (lazy: 0.3 s to import; a grid of ≥ 4 points only)
    lowest = np.argmin(n)
    p0 = (max(x[lowest] / n[lowest], 1e-9), 0.01, 1e-4)
    try:
        (lam, sigma, kappa), _ = curve_fit(usl, n, x, p0=p0, bounds=([0.0, 0.0, 0.0], [np.inf, 1.0, np.inf]),
                                           method="trf", x_scale="jac", max_nfev=20000, ftol=1e-14, xtol=1e-14)
    except (RuntimeError, ValueError) as e:
        return refused | {"reason": f"the fit did not converge: {e}"}
    residual = float(((x - usl(n, lam, sigma, kappa)) ** 2).sum())
    total = float(((x - x.mean()) ** 2).sum())
    r2 = 1.0 - residual / total if total > 0 else None
    n_peak = math.sqrt((1.0 - sigma) / kappa) if kappa > 0 else None
    return {"ok": True, "reason": None, "sigma": float(sigma), "kappa": float(kappa), "lambda": float(lam),
            "r2": r2, "n_peak": n_peak,
            "points": curve(float(lam), float(sigma), float(kappa), float(n.min()), float(n.max()))}
