"""The DCTCP-analysis experiments run (quick grids), write PNG + CSV, and reproduce the paper's
central claims: rho < 1 (Fig. 6), Q_min >~ -0.15 (Fig. 7), >= 94 % throughput (Fig. 9),
convergence at rate (25) (Section 4)."""

import json

import pandas as pd

from dcsim.experiments.registry import get


def _run(id, tmp_path):
    res = get(id).run(tmp_path, True)
    assert res.id == id and res.claims
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
    assert any(str(f).endswith(".png") for f in res.files) and any(str(f).endswith(".csv") for f in res.files)
    json.dumps([c.as_dict() for c in res.claims])
    return {c.statement: c for c in res.claims}, res


def test_fig6(tmp_path):
    claims, res = _run("dctcp-fig6", tmp_path)
    c = next(v for k, v in claims.items() if k.startswith("rho(Z1 Z2) < 1"))
    assert c.verdict == "reproduced"
    df = pd.read_csv(tmp_path / "fig6_rho.csv")
    assert (df.rho < 1).all() and len(df) == 36


def test_fig7_and_fig8(tmp_path):
    claims, _ = _run("dctcp-fig7", tmp_path)
    assert claims["Q_min >~ -0.15 for small g"].verdict == "reproduced"
    df = pd.read_csv(tmp_path / "fig7_queue.csv")
    assert df[df.g == 0.01].Q_min.min() >= -0.15
    claims8, _ = _run("dctcp-fig8", tmp_path)
    assert claims8["period grows as sqrt(wbar) for small g; g = 0.01"].verdict == "reproduced"


def test_fig9(tmp_path):
    claims, _ = _run("dctcp-fig9", tmp_path)
    assert claims["throughput always >= 94 % for g < 0.1"].verdict == "reproduced"
    assert claims["100 % throughput for psi >~ 0.17 (small g)"].verdict == "reproduced"


def test_hybrid(tmp_path):
    claims, _ = _run("dctcp-hybrid", tmp_path)
    rates = [c for k, c in claims.items() if k.startswith("convergence rate beta")]
    assert len(rates) == 3 and all(c.verdict == "reproduced" for c in rates)
    assert claims["beta_DCTCP < beta_TCP"].verdict == "reproduced"
    # the paper's 1.4 factor does not hold at finite W*: we must say so
    assert claims["beta_TCP < 1.4 beta_DCTCP for g large enough (g >= gamma)"].verdict == "differs"
