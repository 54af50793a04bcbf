"""Claims tables: a row is a claim of the paper or one of our checks; only claims count as reproduced;
tolerances of printed numbers come from the printed digits."""

from pathlib import Path

import pytest

from dcsim.experiments import registry
from dcsim.experiments.registry import (CHECK, CLAIM, DIFFERS, REPRODUCED, Claim, ExperimentResult, check,
                                        quoted_tolerance, verdict_quoted)


def test_claim_kind_defaults_to_claim_and_positional_construction_still_works():
    c = Claim("s", "p", "o", REPRODUCED, "d")
    assert c.kind == CLAIM and c.as_dict()["kind"] == "claim"
    with pytest.raises(ValueError, match="kind"):
        Claim("s", "p", "o", REPRODUCED, kind="setup")
    with pytest.raises(ValueError, match="verdict"):
        Claim("s", "p", "o", "ok")
    # a row marked as dcsim's own is never counted as the paper's (dx-fig5 and dx-fig6 counted two: a probe)
    for mark in ("(dcsim) x", "(setup) x", "(edge) x"):
        with pytest.raises(ValueError, match="kind='check'"):
            Claim(mark, "p", "o", REPRODUCED)
        assert Claim(mark, "p", "o", REPRODUCED, kind=CHECK).kind == CHECK


def test_checks_are_not_counted_as_reproduced():
    r = ExperimentResult("x", "t", [Claim("a", "p", "o", REPRODUCED), Claim("b", "p", "o", DIFFERS),
                                    check("(setup) no drops", "0 drops", True)])
    assert [c.statement for c in r.paper_claims] == ["a", "b"] and [c.kind for c in r.checks] == [CHECK]
    assert r.n_reproduced == 1 and not r.all_reproduced and r.checks_pass
    assert r.summary() == "1 of 2 claims of the paper reproduced; checks (not claims of the paper): 1 of 1 pass"
    r2 = ExperimentResult("x", "t", [Claim("a", "p", "o", REPRODUCED), check("(edge)", "o", False)])
    assert r2.all_reproduced and not r2.checks_pass  # a failed check is not a failed claim


def test_a_claim_judged_against_noise_has_three_verdicts():
    """by_noise: shown beyond the noise reproduces, contradicted beyond it differs, neither is
    inconclusive; all_of: a claim of parts differs if one part does, else is inconclusive if one is."""
    from dcsim.experiments.registry import INCONCLUSIVE, all_of, by_noise

    assert by_noise(True, False) == REPRODUCED and by_noise(False, True) == DIFFERS
    assert by_noise(False, False) == INCONCLUSIVE
    with pytest.raises(ValueError, match="both shown and contradicted"):
        by_noise(True, True)
    assert all_of(REPRODUCED, REPRODUCED) == REPRODUCED and all_of() == REPRODUCED
    assert all_of(REPRODUCED, INCONCLUSIVE) == INCONCLUSIVE
    assert all_of(INCONCLUSIVE, DIFFERS, REPRODUCED) == DIFFERS
    with pytest.raises(ValueError, match="not a verdict"):
        all_of(REPRODUCED, True)
    # a check passes or fails: it has no noise-limited third outcome
    with pytest.raises(ValueError, match="passes or fails"):
        Claim("(setup) x", "p", "o", INCONCLUSIVE, kind=CHECK)
    r = ExperimentResult("x", "t", [Claim("a", "p", "o", REPRODUCED), Claim("b", "p", "o", INCONCLUSIVE),
                                    Claim("c", "p", "o", DIFFERS)])
    assert r.n_reproduced == 1 and r.n_inconclusive == 1 and not r.all_reproduced
    assert r.summary() == "1 of 3 claims of the paper reproduced (1 differs, 1 inconclusive)"
    assert [c.word for c in r.claims] == ["reproduced", "inconclusive", "differs"]
    assert r.claims[1].as_dict()["verdict"] == "inconclusive"


def test_a_trend_against_noise():
    """noisy_trend: the change beyond the end margin with no step against beyond its margin reproduces;
    a change or a step against beyond them differs, as does a series without a number or without points;
    a series within its margins, or without a noise level, is inconclusive."""
    from dcsim.experiments.registry import INCONCLUSIVE, noisy_trend

    assert noisy_trend([1.0, 1.5, 2.0], +1, 0.5, 0.3) == (REPRODUCED, [])
    assert noisy_trend([1.0, 1.5, 1.1], +1, 0.5, 0.3) == (DIFFERS, [1])  # a step back by 0.4 > 0.3
    assert noisy_trend([2.0, 1.5, 1.0], +1, 0.5, 0.6) == (DIFFERS, [])  # the change against by 1.0 > 0.5
    assert noisy_trend([1.0, 1.2, 1.3], +1, 0.5, 0.3)[0] == INCONCLUSIVE
    assert noisy_trend([1.0, 1.2, 1.3], +1, float("nan"), 0.3)[0] == INCONCLUSIVE
    assert noisy_trend([1.0, float("nan")], +1, 0.1, 0.1)[0] == DIFFERS and noisy_trend([], +1, 0.1, 0.1)[0] == DIFFERS
    # a step without a noise level shows nothing, and does not hide another step's reversal (a review)
    nan = float("nan")
    assert noisy_trend([1, 5, 0.5, 0.6, 6], +1, 0.03, [0.03, 0.03, nan, 0.03]) == (DIFFERS, [1])
    assert noisy_trend([1, 2, 3, 4], +1, 0.5, [0.1, nan, 0.1])[0] == INCONCLUSIVE  # shown only with every margin



def test_a_trend_of_means_is_judged_against_twice_their_standard_errors():
    """se_trend: margins 2 hypot(se_first, se_last) for the change and 2 hypot(se_i, se_i+1) for a step."""
    from dcsim.experiments.registry import INCONCLUSIVE, se_trend

    v, against, end, steps = se_trend([1.0, 1.2, 1.5], [0.03, 0.04, 0.04], +1)
    assert v == REPRODUCED and against == [] and end == pytest.approx(0.1) and steps == pytest.approx([0.1, 0.08 * 2 ** 0.5])
    assert se_trend([1.0, 1.05, 1.09], [0.03, 0.04, 0.04], +1)[0] == INCONCLUSIVE  # +0.09 within 0.1
    assert se_trend([1.0, 1.5, 1.3, 1.6], [0.03, 0.04, 0.04, 0.03], +1)[:2] == (DIFFERS, [1])  # -0.2 beyond 0.113
    assert se_trend([], [], +1)[0] == DIFFERS


@pytest.mark.parametrize("printed,tol", [("0.15", 0.005), ("42", 0.5), ("145", 0.5), ("94", 0.5), ("0.5", 0.05)])
def test_quoted_tolerance_is_half_a_unit_in_the_last_digit(printed, tol):
    assert quoted_tolerance(printed) == pytest.approx(tol)


@pytest.mark.parametrize("printed,tol", [("1600", 50), ("400", 50), ("120", 5), ("8", 0.5), ("0.215", 0.0005),
                                         ("0", 0.5), ("145", 0.5)])
def test_an_approximate_whole_number_is_good_to_its_last_non_zero_digit(printed, tol):
    """'~1600' back-offs is not a count to the unit: its trailing zeros are not significant."""
    assert quoted_tolerance(printed, about=True) == pytest.approx(tol)
    assert quoted_tolerance("1600") == 0.5  # printed without "~": every digit counts


def test_verdict_quoted():
    assert verdict_quoted("42", 41.55)[0] == REPRODUCED
    assert verdict_quoted("145", 144.39)[0] == DIFFERS
    assert verdict_quoted("0.5", 0.507)[0] == REPRODUCED and verdict_quoted("0.5", 0.6)[0] == DIFFERS
    with pytest.raises(ValueError):
        quoted_tolerance("about 12")


def test_shipped_runtimes_cover_every_experiment_and_say_where_they_come_from():
    from dcsim.experiments import registry

    shipped = registry.shipped_runtimes()
    ids = [e.id for e in registry.all_experiments()]
    for i in ids:
        for q in (False, True):
            t, src = registry.runtime(i, q, mine={}, shipped=shipped)
            assert src == "shipped" and t is not None and t > 0, (i, q)
    for key in ("machine", "load", "date", "dcsim"):
        assert shipped[key], key
    assert shipped["full_total_s"] == pytest.approx(sum(shipped["runtimes"][i] for i in ids), abs=0.1)


def test_list_shows_typical_times_on_a_fresh_machine_and_own_times_once_measured(tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from dcsim.cli import app

    monkeypatch.setenv("DCSIM_CACHE", str(tmp_path))
    res = CliRunner().invoke(app, ["reproduce", "--list"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    row = next(line for line in res.output.splitlines() if "coexist-fig3 " in line)
    assert "—" not in res.output and "*" in row and "* typical: measured on" in res.output
    (tmp_path / "runtimes.json").write_text(json.dumps({"coexist-fig3": 12.5}))
    res = CliRunner().invoke(app, ["reproduce", "--list"], env={"COLUMNS": "400"})
    row = next(line for line in res.output.splitlines() if "coexist-fig3 " in line)
    assert "12.5 s / " in row and "12.5 s*" not in row and row.count("*") == 1  # own full time; quick still shipped


def test_each_paper_is_named_one_way():
    """The experiments list four papers; each is named once, the same way for all its experiments
    (coexist-fig1 once named the coexistence paper by a title it does not have), and its section
    only in parentheses."""
    import re

    from dcsim.experiments.registry import all_experiments

    titles = {re.sub(r"\s*\(Sections? [^)]*\)$", "", e.paper) for e in all_experiments()}
    assert len(titles) == 4, sorted(titles)
    assert all(t.count(":") + t.count(",") >= 1 for t in titles), sorted(titles)  # authors, then title


@pytest.mark.parametrize("cache", ['["x"]', '{"dx-thresholds --quick": "fast", "dx-fig2": -5, "dx-fig3": 1e400}', "{"])
def test_a_runtimes_cache_of_another_shape_costs_nothing(tmp_path, monkeypatch, cache):
    """runtimes.json is a cache: a list there ended `reproduce --list` in an internal error, and
    `reproduce ID` after the experiment had run (its claims never written, its report empty);
    -5 and 1e400 were listed as "-5 s" and "inf s". Such entries are ignored, and the runtime is
    recorded after the claims are written."""
    import json

    from typer.testing import CliRunner

    from dcsim.cli import app

    monkeypatch.setenv("DCSIM_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "runtimes.json").write_text(cache)
    res = CliRunner().invoke(app, ["reproduce", "--list"], env={"COLUMNS": "400"})
    assert res.exit_code == 0 and "inf s" not in res.output and "-5 s" not in res.output, res.output
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["reproduce", "dx-thresholds", "--quick", "-o", str(out), "--html", str(out)])
    assert res.exit_code == 0, res.output  # --html into -o too: no file is copied onto itself
    assert (out / "dx-thresholds" / "claims.json").exists() and (out / "index.html").exists()
    times = json.loads((tmp_path / "cache" / "runtimes.json").read_text())
    assert isinstance(times["dx-thresholds --quick"], float)


def test_reproduce_out_that_is_a_file_is_refused_before_running(tmp_path):
    from typer.testing import CliRunner

    from dcsim.cli import app

    (tmp_path / "afile").write_text("x")
    res = CliRunner().invoke(app, ["reproduce", "dx-thresholds", "--quick", "-o", str(tmp_path / "afile")])
    assert res.exit_code == 2 and "--out: " in res.output and "is not a directory" in " ".join(res.output.split()), res.output
    res = CliRunner().invoke(app, ["reproduce", "dx-thresholds", "--quick", "-o", str(tmp_path / "afile" / "sub")])
    assert res.exit_code == 2 and "--out: cannot create" in " ".join(res.output.split()), res.output


def test_reproduce_into_a_directory_it_cannot_write_is_refused_before_running(tmp_path, monkeypatch):
    """An existing read-only --out (a probe: a read-only tmpfs) had failed every experiment of --all in
    turn, 34 errors and exit 1; now one error naming --out, exit 2, nothing run. (Root writes through
    permission bits, so the read-only mount is stood in for by os.access.)"""
    import os

    from typer.testing import CliRunner

    from dcsim.cli import app

    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == ro and mode & os.W_OK else real(p, mode, **kw))
    res = CliRunner().invoke(app, ["reproduce", "--all", "--quick", "-o", str(ro)])
    assert res.exit_code == 2 and f"--out: directory {ro} is not writable" in " ".join(res.output.split()), res.output
    assert list(ro.iterdir()) == []
    res = CliRunner().invoke(app, ["reproduce", "dx-thresholds", "--quick", "-o", str(tmp_path / "o"), "--html", str(ro)])
    assert res.exit_code == 2 and f"--html: directory {ro} is not writable" in " ".join(res.output.split()), res.output
    assert not (tmp_path / "o" / "dx-thresholds").exists()


@pytest.mark.parametrize("quick", [True, False])
def test_every_experiment_figure_says_what_it_is_and_whether_quick(tmp_path, monkeypatch, quick):
    """A figure of a paper experiment carries a footer: `dcsim reproduce ID: title; paper`, and a
    --quick run says it is one (a figure review: none of the 34 quick figures said so, and most
    named neither their paper nor their figure). The footer exists only inside an experiment."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dcsim.report import QUICK_NOTE

    texts = []

    def draw(out_dir, q):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        orig = fig.savefig

        def spy(*a, **kw):
            texts.append([t.get_text() for t in fig.texts])
            return orig(*a, **kw)

        fig.savefig = spy
        png = registry.save_figure(fig, Path(out_dir), "x.png")
        return registry.ExperimentResult("zz-fig", "A test figure (Fig. 99)", [], [png])

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))  # registered for this test only
    registry.experiment("zz-fig", "A test figure (Fig. 99)", "Someone et al.: A paper")(draw)
    registry.get("zz-fig").run(tmp_path, quick)
    said = [[" ".join(t.split()) for t in ts] for ts in texts]  # wrapped to the figure's width:
    width = int(plt.rcParams["figure.figsize"][0] * 14)  # characters of 7.5-pt text (save_figure's rule)
    assert all(len(line) <= width for line in texts[0][0].split("\n")), texts  # so it never widens the figure
    assert said == [[" ".join(("dcsim reproduce zz-fig: A test figure (Fig. 99); Someone et al.: A paper"
                               + (f" {QUICK_NOTE}" if quick else "")).split())]]
    fig, _ = plt.subplots()  # outside an experiment: no footer
    # (a stand-in that writes an empty file: save_figure renames what savefig wrote into place)
    fig.savefig = lambda *a, **kw: texts.append([t.get_text() for t in fig.texts]) or Path(a[0]).write_bytes(b"")
    registry.save_figure(fig, tmp_path, "y.png")
    assert texts[-1] == []


def test_experiment_figures_are_written_through_save_figure_only():
    """The footer (experiment, paper, --quick) is added by save_figure: a figure written with
    fig.savefig elsewhere went without it (coexist-fig1, dx-fig1, dx-thresholds had: a review)."""
    import re as _re

    here = Path(registry.__file__).parent
    direct = [f"{p.name}:{i}" for p in sorted(here.glob("*.py")) if p.name != "registry.py"
              for i, line in enumerate(p.read_text().splitlines(), 1) if _re.search(r"\.savefig\(", line)]
    assert not direct, direct


def test_monotone_trend_is_the_one_trend_rule_with_per_step_margins():
    """The coexistence experiments' 2-standard-error trend and the DSM experiments' seed-spread
    trend are one rule (registry.monotone_trend): first to last beyond the end margin, no step
    against the direction beyond its own margin."""
    from dcsim.experiments.registry import monotone_trend

    # a step against the trend within its own margin (0.5) is noise; the same step with a margin of 0.1 is not
    assert monotone_trend([1.0, 2.0, 1.7, 3.0], +1, 1.0, [0.1, 0.5, 0.1]) == (True, [])
    assert monotone_trend([1.0, 2.0, 1.7, 3.0], +1, 1.0, [0.1, 0.1, 0.1]) == (False, [1])
    assert monotone_trend([3.0, 2.0, 1.0], -1, 1.5, 0.0) == (True, [])
    assert monotone_trend([3.0, 2.0, 1.9], -1, 1.5, 0.0) == (False, [])  # the ends too close
    assert monotone_trend([1.0, 2.0], +1, 0.5, [0.1, 0.1]) == (False, [])  # margins do not match the steps


def test_a_margin_or_tolerance_without_meaning_is_refused_not_passed():
    """A review: a NaN step margin let a step against the trend pass (x < -nan is False), and a
    paper's 0 turned verdict's relative tolerance into an absolute one in silence. A margin that
    is not finite now judges nothing (no trend: the claim differs), a negative one and a
    relative tolerance around 0 raise (an experiment's mistake, not a result)."""
    from dcsim.experiments.registry import monotone_trend, verdict

    nan = float("nan")
    assert monotone_trend([1.0, 5.0, 2.0, 9.0], +1, 0.5, 0.1) == (False, [1])
    assert monotone_trend([1.0, 5.0, 2.0, 9.0], +1, 0.5, nan) == (False, [])  # was (True, []): judged nothing
    assert monotone_trend([1.0, 5.0, 2.0, 9.0], +1, 0.5, [0.1, nan, 0.1]) == (False, [])
    assert monotone_trend([1.0, 2.0], +1, nan, 0.0) == (False, [])
    with pytest.raises(ValueError, match="a margin is a noise level, >= 0"):
        monotone_trend([1.0, 5.0, 2.0, 9.0], +1, 0.5, [0.1, -0.1, 0.1])
    with pytest.raises(ValueError, match="a relative tolerance needs a finite, non-zero one"):
        verdict(0.0, 0.04, 0.05)
    with pytest.raises(ValueError, match="rel_tol"):
        verdict(1.0, 1.0, -0.1)
    assert verdict(2.0, 2.09, 0.05) == (REPRODUCED, pytest.approx(0.045))
    assert verdict(2.0, nan, 0.05)[0] == DIFFERS


@pytest.mark.parametrize("extra,said", [(["dctcp-fig4"], "ids"), (["--all"], "--all"), (["--quick", "--html", "h"], "--quick, --html")])
def test_list_with_something_to_run_is_refused_not_ignored(extra, said):
    """`reproduce --list dctcp-fig4 --all --quick --html hx` listed and exited 0, the rest ignored (a review)."""
    from typer.testing import CliRunner

    from dcsim.cli import app

    res = CliRunner().invoke(app, ["reproduce", "--list", *extra], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert f"--list only lists the experiments; not with {said}" in " ".join(res.output.split())


def test_a_range_of_ours_meets_a_printed_number_or_not():
    """Ours over the paper's inputs to their printed digits: reproduced when the interval meets the
    printed number's rounding interval (DX's R0* 143.0 .. 145.8 us meets 145 +- 0.5; coexist-fig1's
    4.640 .. 4.662 meets 4.6 +- 0.05)."""
    from dcsim.experiments.registry import DIFFERS, REPRODUCED, verdict_quoted_range

    assert verdict_quoted_range("145", 145.8, 143.0) == REPRODUCED
    assert verdict_quoted_range("145", 143.0, 144.4) == DIFFERS  # ends 0.1 short of 144.5
    assert verdict_quoted_range("4.6", 4.640, 4.662) == REPRODUCED
    assert verdict_quoted_range("4.6", 4.651, 4.662) == DIFFERS
    assert verdict_quoted_range("30", 27.4, 28.0, about=True) == REPRODUCED  # "30" read to tens: +-5
    assert verdict_quoted_range("50", 68.6, 69.9, about=True) == DIFFERS
    assert verdict_quoted_range("145", float("nan"), 146.0) == DIFFERS
