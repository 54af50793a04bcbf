"""AIMD throughput ratio T_r, eq. (4) of the DCTCP/TCP coexistence paper, from first principles."""

from __future__ import annotations

import numpy as np
import pytest

from dcsim.theory import aimd


def test_equal_back_off_gives_equal_throughput():
    """Fig. 1 text: 'when beta_dctcp = 0.5, T_r is 1'."""
    assert aimd.throughput_ratio(0.5) == 1.0


def test_monotone_increasing_on_fig1_range():
    beta = np.linspace(0.5, 0.99, 491)
    tr = aimd.throughput_ratio(beta)
    assert np.all(np.diff(tr) > 0)
    assert tr[0] == 1.0 and tr[-1] == pytest.approx(50.0)


def test_equals_ratio_of_stationary_windows_eq3():
    """(4) is the ratio of the two components of x_p, eq. (3)."""
    for b in (0.5, 0.6, 0.75, 0.9, 0.95):
        xp = aimd.stationary_point([1.0, 1.0], [b, 0.5])
        assert aimd.throughput_ratio(b) == pytest.approx(xp[0] / xp[1], rel=1e-15)


def _simulate_synchronized_aimd(beta_dctcp: float, cap_pkt: float = 2000.0, rtts: int = 100_000):
    """Two flows, +1 segment per RTT each; when the sum exceeds the pipe both back off (synchronized).

    Returns (time-averaged window ratio, mean ratio of windows at the congestion events)."""
    w = np.array([1.0, 1.0])
    betas = np.array([beta_dctcp, 0.5])
    sums, peaks = np.zeros(2), np.zeros(2)
    for step in range(rtts):
        w += 1.0
        if w.sum() > cap_pkt:
            if step > rtts // 2:
                peaks += w
            w *= betas
        if step > rtts // 2:
            sums += w
    return sums[0] / sums[1], peaks[0] / peaks[1]


@pytest.mark.parametrize("b", [0.6, 0.8, 0.9])
def test_closed_form_against_simulated_synchronized_aimd(b):
    """(4) is the window ratio at congestion events; time-averaged throughput ratio is (1+b)/(1+0.5) larger."""
    avg_ratio, peak_ratio = _simulate_synchronized_aimd(b)
    assert peak_ratio == pytest.approx(aimd.throughput_ratio(b), rel=2e-3)
    assert avg_ratio == pytest.approx(aimd.throughput_ratio_time_average(b), rel=5e-3)
    assert aimd.throughput_ratio_time_average(b) == pytest.approx(aimd.throughput_ratio(b) * (1 + b) / 1.5)


def test_time_average_ratio_also_one_at_half_and_increasing():
    assert aimd.throughput_ratio_time_average(0.5) == 1.0
    assert np.all(np.diff(aimd.throughput_ratio_time_average(np.linspace(0.5, 0.99, 50))) > 0)


def test_dctcp_marked_fraction_reading():
    """beta_dctcp = 1 - a/2 (DCTCP back-off with marked fraction a) gives T_r = 1/a."""
    for a in (0.1, 0.25, 0.5, 1.0):
        assert aimd.throughput_ratio(1 - a / 2) == pytest.approx(1 / a)


@pytest.mark.parametrize("bad", [1.0, 1.2, -0.1, float("nan")])
def test_bad_beta_is_rejected(bad):
    with pytest.raises(ValueError, match=r"^beta_dctcp: .*0 <= beta_dctcp < 1"):
        aimd.throughput_ratio(bad)


def test_bad_alpha_is_rejected():
    with pytest.raises(ValueError, match=r"^alpha_tcp: "):
        aimd.throughput_ratio(0.7, alpha_tcp=0)


@pytest.mark.parametrize("alpha", [[1, "x"], "ab", [1, object()]])
def test_stationary_point_names_alpha_for_what_is_not_a_number(alpha):
    """[1, "x"] had said only "could not convert string to float: 'x'" (a review)."""
    with pytest.raises(ValueError, match=r"^alpha: expected a number or an array of numbers"):
        aimd.stationary_point(alpha, [0.5, 0.5])
