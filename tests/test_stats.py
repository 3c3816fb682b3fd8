"""The stdlib Student-t quantile behind every ci95, checked against SciPy."""

from __future__ import annotations

import pytest

from skyhop.stats import t975, t_quantile

LARGE_DOF = [250, 299, 300, 301, 400, 1000, 10_000, 10**6, 10**9]


@pytest.mark.parametrize("p", [0.975, 0.95, 0.995, 0.9, 0.6])
def test_t_quantile_matches_scipy(p):
    special = pytest.importorskip("scipy.special")
    for dof in [*range(1, 201), *LARGE_DOF]:
        ours = t_quantile(p, dof)
        ref = float(special.stdtrit(dof, p))
        assert ours == pytest.approx(ref, rel=1e-9, abs=0), (p, dof)
        assert t_quantile(1 - p, dof) == -ours


def test_known_values_without_scipy():
    # Tables of Student's t (two-sided 95 %), exact to the digits shown.
    assert t975(1) == pytest.approx(12.706204736174698, rel=1e-12)
    assert t975(2) == pytest.approx(4.302652729749464, rel=1e-12)
    assert t975(3) == pytest.approx(3.182446305284263, rel=1e-12)
    assert t975(19) == pytest.approx(2.093024054408263, rel=1e-12)
    assert t975(10**9) == pytest.approx(1.959963986, rel=1e-9)
    assert t_quantile(0.5, 4) == 0.0


@pytest.mark.parametrize(("p", "dof"), [(0.0, 3), (1.0, 3), (0.975, 0), (0.975, 2.5), (0.9, True)])
def test_bad_arguments(p, dof):
    with pytest.raises(ValueError):
        t_quantile(p, dof)
