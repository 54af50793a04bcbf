"""Claims tables: a row is a claim of the paper or one of our checks; only claims count as reproduced;
tolerances of printed numbers come from the printed digits."""

import pytest

from dcsim.experiments.registry import (CHECK, CLAIM, DIFFERS, REPRODUCED, Claim, ExperimentResult, check,
                                        quoted_tolerance, verdict_quoted)


def test_claim_kind_defaults_to_claim_and_positional_construction_still_works():
    c = Claim("s", "p", "o", REPRODUCED, "d")
    assert c.kind == CLAIM and c.as_dict()["kind"] == "claim"
    with pytest.raises(ValueError, match="kind"):
        Claim("s", "p", "o", REPRODUCED, kind="setup")
    with pytest.raises(ValueError, match="verdict"):
        Claim("s", "p", "o", "ok")


def test_checks_are_not_counted_as_reproduced():
    r = ExperimentResult("x", "t", [Claim("a", "p", "o", REPRODUCED), Claim("b", "p", "o", DIFFERS),
                                    check("(setup) no drops", "0 drops", True)])
    assert [c.statement for c in r.paper_claims] == ["a", "b"] and [c.kind for c in r.checks] == [CHECK]
    assert r.n_reproduced == 1 and not r.all_reproduced and r.checks_pass
    assert r.summary() == "1 of 2 claims of the paper reproduced; checks (not claims of the paper): 1 of 1 pass"
    r2 = ExperimentResult("x", "t", [Claim("a", "p", "o", REPRODUCED), check("(edge)", "o", False)])
    assert r2.all_reproduced and not r2.checks_pass  # a failed check is not a failed claim


@pytest.mark.parametrize("printed,tol", [("0.15", 0.005), ("42", 0.5), ("145", 0.5), ("94", 0.5), ("0.5", 0.05)])
def test_quoted_tolerance_is_half_a_unit_in_the_last_digit(printed, tol):
    assert quoted_tolerance(printed) == pytest.approx(tol)


def test_verdict_quoted():
    assert verdict_quoted("42", 41.55)[0] == REPRODUCED
    assert verdict_quoted("145", 144.39)[0] == DIFFERS
    assert verdict_quoted("0.5", 0.507)[0] == REPRODUCED and verdict_quoted("0.5", 0.6)[0] == DIFFERS
    with pytest.raises(ValueError):
        quoted_tolerance("about 12")
