"""kolmogorov_sf against scipy.special.kolmogorov (the reference it replaces) and known values."""

import math

import numpy as np
import pytest
from scipy import special

from littlegrid.analysis.workload.kolmogorov import kolmogorov_sf


def test_known_values():
    # classic KS critical values: P(K > 1.3581) = 0.05, P(K > 1.6276) = 0.01, P(K > 1.2239) = 0.10
    assert kolmogorov_sf(1.3581) == pytest.approx(0.05, abs=1e-4)
    assert kolmogorov_sf(1.6276) == pytest.approx(0.01, abs=1e-4)
    assert kolmogorov_sf(1.2239) == pytest.approx(0.10, abs=1e-4)
    assert kolmogorov_sf(0.0) == 1.0 and kolmogorov_sf(-1.0) == 1.0
    assert math.isnan(kolmogorov_sf(float("nan")))


@pytest.mark.parametrize("x", np.concatenate([np.linspace(0.01, 3.0, 300), [0.999999, 1.0, 1.000001, 5.0, 8.0, 30.0]]))
def test_matches_scipy_within_1e_14(x):
    assert kolmogorov_sf(float(x)) == pytest.approx(float(special.kolmogorov(x)), abs=1e-14)


def test_is_a_survival_function():
    values = [kolmogorov_sf(x) for x in np.linspace(0, 4, 401)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a >= b for a, b in zip(values, values[1:]))  # never rises
    assert values[0] == 1.0 and values[-1] < 1e-12
