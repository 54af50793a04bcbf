"""The dx-fig1, dx-thresholds and coexist-fig1 experiments and the `dcsim theory dx` command."""

from __future__ import annotations

import json

import pandas as pd
import numpy as np
import pytest
from typer.testing import CliRunner

from dcsim.experiments import coexistence, dx_analysis
from dcsim.experiments.registry import DIFFERS, REPRODUCED
from dcsim.theory import dx


def _by_prefix(result, prefix):
    hits = [c for c in result.claims if c.statement.startswith(prefix)]
    assert len(hits) == 1, f"expected one claim starting with {prefix!r}, got {[c.statement for c in result.claims]}"
    return hits[0]


def _files_ok(result):
    for f in result.files:
        assert f.exists() and f.stat().st_size > 0
    assert any(f.suffix == ".png" for f in result.files) and any(f.suffix == ".csv" for f in result.files)


@pytest.fixture(scope="module")
def thresholds(tmp_path_factory):
    return dx_analysis.run_thresholds(tmp_path_factory.mktemp("dx-thresholds"), True)


def test_dx_thresholds_claims(thresholds):
    r = thresholds
    _files_ok(r)
    # the state map's curves are saved as drawn; Theorem 2's boundary is N = C R0 / seg exactly, and
    # the dashed curve (tau = R0 + Q0) reaches the axis's end
    curves = pd.read_csv(next(f for f in r.files if f.name == "dx_state_map.csv"))
    assert np.allclose(curves.N_special, 10e9 * curves.R0_us * 1e-6 / (8 * 1500), rtol=1e-12)
    assert curves.R0_us.iloc[-1] == 500 and np.isfinite(curves.N_stable_tau_R0_plus_Q0.iloc[-1])
    # Theorem 2 thresholds: C R0 / seg with seg = 1500 B: exactly the paper's numbers
    for prefix in ("Sect. 4.2/Fig. 3(b)", "Sect. 4.2/Fig. 4(a)", "Sect. 4.2/Fig. 4(b)", "Sect. 4.2/Fig. 6",
                   "Sect. 4.1: at R0 = 80 us, N > 70", "Sect. 4.1/Fig. 2(a)"):
        assert _by_prefix(r, prefix).verdict == REPRODUCED
    # Theorem 1 (corrected, tau = R0), the paper's printed integers against ours over the paper's p to
    # its printed digits (0.945 .. 0.955): reproduced only if that range meets the printed number's
    # rounding interval. 42 (41.15 .. 41.95) does; 145 us (143.0 .. 145.8 us: 144.39 at p = 0.95 rounds
    # to 144, but the paper's two-digit p allows 145; a review); Sect. 4.1's 30, 50, 140 are all
    # multiples of ten (read as rounded to tens, +-5): 30 (27.4 .. 28.0) and 140 (137.2 .. 139.9) do,
    # 50 (68.6 .. 69.9) not
    assert _by_prefix(r, "Sect. 4.3: by Theorem 1 DX is stable when N").verdict == REPRODUCED
    assert _by_prefix(r, "Sect. 4.3: by Theorem 1 the upper bound of R0").verdict == REPRODUCED
    assert _by_prefix(r, "Sect. 4.1: by Theorem 1 DX is stable for N > 140").verdict == REPRODUCED
    assert _by_prefix(r, "Sect. 4.1: by Theorem 1 DX is stable for N > 30").verdict == REPRODUCED
    assert _by_prefix(r, "Sect. 4.1: by Theorem 1 DX is stable for N > 50").verdict == DIFFERS
    C, seg, ps = 10e9, 1500, (0.945, 0.955)
    ranges = {"Sect. 4.1: by Theorem 1 DX is stable for N > 30": ([dx.stability_threshold_N(C, 80e-6, p, seg) for p in ps], 5),
              "Sect. 4.1: by Theorem 1 DX is stable for N > 50": ([dx.stability_threshold_N(C, 200e-6, p, seg) for p in ps], 5),
              "Sect. 4.1: by Theorem 1 DX is stable for N > 140": ([dx.stability_threshold_N(C, 400e-6, p, seg) for p in ps], 5),
              "Sect. 4.3: by Theorem 1 DX is stable when N": ([dx.stability_threshold_N(C, 120e-6, p, seg) for p in ps], 0.5),
              "Sect. 4.3: by Theorem 1 the upper bound of R0": ([dx.stability_threshold_R0(50, C, p, seg) * 1e6 for p in ps], 0.5)}
    for prefix, (vals, half_unit) in ranges.items():
        c = _by_prefix(r, prefix)
        printed = float(c.paper.split()[-2] if c.paper.endswith("us") else c.paper.split()[-1])
        lo, hi = min(vals), max(vals)
        assert (c.verdict == REPRODUCED) == (lo <= printed + half_unit and hi >= printed - half_unit), c
        assert f"{lo:.2f} .. {hi:.2f}" in c.detail, c  # the range the verdict was taken on is shown
    for c in r.claims:
        if c.statement.startswith("Sect. 4.3 vary"):
            assert c.verdict == REPRODUCED, c
    # N = C R0/seg exactly (100 at 120 us) is Theorem 2's boundary, as dx-fig4 and dx-sec4.3 call it
    assert "N=100, C=10 Gbps, R0=120 us: boundary" in _by_prefix(r, "Sect. 4.3 vary N").ours
    table = pd.read_csv([f for f in r.files if f.suffix == ".csv"][0])
    row = table[table.quantity == "special state N at R0=80us"].iloc[0]
    assert float(row.ours) == pytest.approx(10e9 * 80e-6 / 12000)


def test_dx_fig1(tmp_path):
    r = dx_analysis.run_fig1(tmp_path, True)
    _files_ok(r)
    df = pd.read_csv(tmp_path / "dx_fig1.csv")
    assert set(df.panel) == {"a", "b", "c"}
    checked = df.dropna(subset=["tau_critical_numerical_us"])
    assert len(checked) >= 9
    # the corrected bound agrees with the independent numerical critical delay within 1 %
    assert (abs(checked.tau_bound_us - checked.tau_critical_numerical_us) / checked.tau_critical_numerical_us).max() < 0.01
    # our correction's checks are ours, not claims of the paper (a review: they were counted as claims)
    for prefix in ("(dcsim) Theorem 1 (corrected sign) vs numerical", "(dcsim) nonlinear fluid model"):
        c = _by_prefix(r, prefix)
        assert c.verdict == REPRODUCED and c.kind == "check", c
    assert _by_prefix(r, "Theorem 1, eq. (17) as printed").verdict == DIFFERS
    for prefix in ("Fig. 1(a)", "Fig. 1(b)", "Fig. 1(c)"):
        assert _by_prefix(r, prefix).verdict == REPRODUCED
    # Fig. 1(c) is about Theorem 1's verdict along R0 (tau = R0): bound > R0 at 20 us, < R0 at 400 us
    c = df[df.panel == "c"]
    assert c.tau_bound_us.iloc[0] > c.R0_s.iloc[0] * 1e6 and c.tau_bound_us.iloc[-1] < c.R0_s.iloc[-1] * 1e6


def test_dx_fig1c_verdict_is_computed(tmp_path, monkeypatch):
    """Fig. 1(c) used to be REPRODUCED unconditionally. With a (fake) bound ten times larger, Theorem 1
    holds at every R0 of the sweep and the claim "unstable when R0 is very large" must come out DIFFERS."""
    real = dx_analysis.dx.tau_bound
    monkeypatch.setattr(dx_analysis.dx, "tau_bound", lambda lin: 10 * real(lin))
    monkeypatch.setattr(dx_analysis.dx, "stability_threshold_R0", lambda *a, **k: 1e-3)
    monkeypatch.setattr(dx_analysis, "_fluid_check", lambda quick: ([], None))
    r = dx_analysis.run_fig1(tmp_path, True)
    assert _by_prefix(r, "Fig. 1(c)").verdict == DIFFERS


def test_coexist_fig1(tmp_path):
    r = coexistence.run_fig1(tmp_path, True)
    _files_ok(r)
    df = pd.read_csv(tmp_path / "coexist_fig1.csv")
    assert df.T_r_eq4.iloc[0] == 1.0 and df.T_r_eq4.is_monotonic_increasing
    assert df.beta_dctcp.min() == 0.5 and df.beta_dctcp.max() < 1.0
    assert _by_prefix(r, "when beta_dctcp = 0.5").verdict == REPRODUCED
    assert _by_prefix(r, "as beta_dctcp increases").verdict == REPRODUCED
    assert _by_prefix(r, "eq. (3)-(4)").verdict == REPRODUCED
    assert _by_prefix(r, "T_r of (4) is 'the ratio of throughput'").verdict == DIFFERS


def test_thresholds_deterministic(tmp_path, thresholds):
    r2 = dx_analysis.run_thresholds(tmp_path, True)
    a = [f for f in thresholds.files if f.suffix == ".csv"][0].read_bytes()
    b = [f for f in r2.files if f.suffix == ".csv"][0].read_bytes()
    assert a == b


def test_registered_ids():
    from dcsim.experiments.registry import _REGISTRY

    assert {"dx-fig1", "dx-thresholds", "coexist-fig1"} <= set(_REGISTRY)


# ------------------------------------------------------------------------------------------- CLI


def _cli(*args):
    from dcsim.cli import app

    return CliRunner().invoke(app, ["theory", "dx", *args])


def test_cli_json():
    res = _cli("--N", "50", "--C", "10Gbps", "--R0", "80us", "--json")
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    assert r["inputs"] == dict(N=50.0, C_bps=10e9, R0_s=80e-6, p=0.95, seg_bytes=1500.0)
    assert r["theorem2"]["N_min_special"] == pytest.approx(800e3 / 12e3)
    assert r["theorem2"]["R0_max_special_s"] == pytest.approx(60e-6)
    assert r["theorem2"]["special_state"] is False
    t1 = r["theorem1"]
    assert t1["tau_bound_s"] == pytest.approx(t1["tau_critical_numerical_s"], rel=0.01)
    assert t1["tau_bound_paper_s"] < 0
    assert t1["R0_max_stable_s"] == pytest.approx(145e-6, rel=0.01)
    e = r["equilibrium"]
    assert 50 * e["W0_pkt"] * 12000 == pytest.approx(10e9 * (80e-6 + e["Q0_s"]))  # eq. (6)


def test_cli_human_has_units():
    res = _cli("--N", "50", "--C", "10Gbps", "--R0", "20us", "--seg", "1500B")
    assert res.exit_code == 0, res.output
    for s in ("rad/s", " us", "pkt", "flows", "Theorem 1", "Theorem 2", "yes"):
        assert s in res.output


@pytest.mark.parametrize("args,msg", [
    (("--N", "0", "--C", "10Gbps", "--R0", "80us"), "--N"),
    (("--N", "50", "--C", "10Gbs", "--R0", "80us"), "--C"),
    (("--N", "50", "--C", "10Gbps", "--R0", "-1us"), "--R0"),
    (("--N", "50", "--C", "10Gbps", "--R0", "80us", "--p", "1"), "--p"),
    (("--N", "50", "--C", "10Gbps", "--R0", "80us", "--seg", "1pkt"), "--seg"),
])
def test_cli_bad_input(args, msg):
    res = _cli(*args)
    assert res.exit_code == 2
    assert msg in res.output or msg in (res.stderr if res.stderr_bytes is not None else "")


def test_sect43_orderings_need_strictly_more_stable_states(tmp_path, monkeypatch):
    """Sect. 4.3's "larger N, smaller R0, smaller C -> more stable" accepted ties: three points all
    "stable" would have shown the ordering (an audit). With every point classified alike the four states
    cannot order them: inconclusive (a review: "differs" was unfair to a tie); with the classification
    reversed (the lowest utilisation the most stable) each row differs."""
    monkeypatch.setattr(dx_analysis, "_plot_state_map", lambda *a, **k: [])
    real = dx_analysis._state

    def rows():
        r = dx_analysis.run_thresholds(tmp_path, True)
        got = [c for c in r.claims if c.statement.startswith("Sect. 4.3 vary")]
        assert len(got) == 3
        return [c.verdict for c in got]

    monkeypatch.setattr(dx_analysis, "_state", lambda *a, **k: "N=50, C=10 Gbps, R0=120 us: stable")
    assert rows() == ["inconclusive"] * 3
    monkeypatch.setattr(dx_analysis, "_state", real)
    assert rows() == [REPRODUCED] * 3  # the theorems order the paper's points strictly
    flip = {"special": "N=1, C=1 Gbps, R0=1 us: unstable", "stable": "N=1, C=1 Gbps, R0=1 us: stable"}

    def reversed_state(*a, **k):
        st = real(*a, **k)
        return flip["special"] if st.endswith("special") else ("N=1: special" if "unstable" in st else st)
    monkeypatch.setattr(dx_analysis, "_state", reversed_state)
    assert DIFFERS in rows()
