"""`dcsim reproduce ... --html DIR`: the static report, the shared executor, failures kept apart.

The browser test opens the report in a real headless Chromium (Debian's chromium and
chromium-driver, driven by selenium) and checks what a reader sees: every image loads, every
table has rows, every link of the index opens a page of that experiment. It is skipped, with the
reason, where no browser is installed; `.ci/run` installs one when it can.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.experiments import registry
from dcsim.sweep import SweepError, execution, sweep

runner = CliRunner()
# Two fast experiments (closed forms, < 1 s each): the report's plumbing, not the physics.
FAST = ["dx-thresholds", "coexist-fig1"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    res = runner.invoke(app, ["reproduce", *FAST, "--quick", "--out", str(root / "out"), "--html", str(root / "html")],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    (root / "terminal.txt").write_text(res.output)
    return root / "html"


def test_index_lists_every_experiment_with_its_verdict_counts(report):
    index = (report / "index.html").read_text()
    for exp_id in FAST:
        assert f'href="{exp_id}.html"' in index
        page = (report / f"{exp_id}.html").read_text()
        exp = registry.get(exp_id)
        assert exp.title.split("(")[0].strip()[:30].replace("&", "&amp;") in page
        assert "Quick run" in page, "a --quick page must say so"
        assert "dcsim 0.1.0" in page and "commit" in page
    # Counts in the index equal what the claims tables hold.
    # "4 of 5 reproduced; 1 differs", "2 of 4 reproduced; 2 differ", "3 of 3 reproduced",
    # "3 of 5 reproduced; 1 differs; 1 inconclusive"
    rows = re.findall(r"(\d+) of (\d+) reproduced(?:; (\d+) (differs?))?(?:; (\d+) inconclusive)?<", index)
    assert len(rows) == len(FAST)
    for rep, tot, diff, verb, inc in rows:
        assert int(rep) + int(diff or 0) + int(inc or 0) == int(tot)
        assert (verb == "differs") == (diff == "1") and (verb == "") == (diff == "")


def test_the_terminal_ends_with_every_experiments_verdicts_and_the_tally(report):
    """After more than one experiment the terminal lists each one's verdict counts and the tally
    over all of them (before, only the HTML index had it: a user of --all scrolled through 34
    claims tables). The counts must be those of the claims.json files written beside the runs."""
    out = report.parent / "out"
    said = " ".join(report.with_name("terminal.txt").read_text().split())
    rep = tot = 0
    for exp_id in FAST:
        rows = [r for r in json.loads((out / exp_id / "claims.json").read_text()) if r["kind"] == "claim"]
        n = sum(r["verdict"] == "reproduced" for r in rows)
        rep, tot = rep + n, tot + len(rows)
        assert re.search(rf"{re.escape(exp_id)} │ {n} of {len(rows)} reproduced", said), said[-800:]
    assert f"{rep} of {tot} claims of the papers reproduced over {len(FAST)} finished experiments (0 failed)" in said
    assert re.search(r"\(0 failed\); total wall time [\d.]+ (ms|s|min|h) \(--quick\) report: ", said), said[-300:]


def test_every_image_is_copied_beside_the_pages(report):
    for exp_id in FAST:
        page = (report / f"{exp_id}.html").read_text()
        srcs = re.findall(r'<img src="([^"]+)"', page)
        assert srcs, f"{exp_id}: no figure"
        for s in srcs:
            assert (report / s).stat().st_size > 1000, s


def test_verdicts_are_colour_coded(report):
    page = (report / "coexist-fig1.html").read_text()
    assert '<td class="reproduced">reproduced</td>' in page
    assert '<td class="differs">differs</td>' in page


def test_a_failing_experiment_is_reported_and_the_others_still_run(tmp_path, monkeypatch):
    def boom(out_dir, quick):
        raise RuntimeError("simulated failure")

    monkeypatch.setitem(registry._REGISTRY, "zz-broken", registry.Experiment("zz-broken", "broken", "none", boom))
    res = runner.invoke(app, ["reproduce", "zz-broken", "dx-thresholds", "--out", str(tmp_path / "o"), "--html",
                              str(tmp_path / "h")], env={"COLUMNS": "300"})
    assert res.exit_code == 1, res.output
    index = (tmp_path / "h" / "index.html").read_text()
    assert 'class="failed"' in index and "dx-thresholds.html" in index
    assert "simulated failure" in (tmp_path / "h" / "zz-broken.html").read_text()
    assert (tmp_path / "o" / "dx-thresholds" / "claims.json").exists()


def test_a_file_in_the_way_of_an_experiments_directory_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """`reproduce A B -o OUT` with a file OUT/A had ended the whole batch with a bare "File exists"
    (B never ran, A counted nowhere: a probe). It is now refused before anything runs, naming
    --out and the file; a directory that still cannot be made (a race) fails that experiment only.
    An id given twice runs once."""
    ran = []
    monkeypatch.setitem(registry._REGISTRY, "zz-count", registry.Experiment(
        "zz-count", "counted", "none", lambda out_dir, quick: ran.append(out_dir) or registry.ExperimentResult("zz-count", "counted")))
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "dx-thresholds").write_text("x")
    res = runner.invoke(app, ["reproduce", "zz-count", "dx-thresholds", "--out", str(tmp_path / "o")],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 2 and not ran, res.output
    text = " ".join(res.output.split())
    assert f"--out: {tmp_path / 'o' / 'dx-thresholds'} is a file" in text, text
    (tmp_path / "o" / "dx-thresholds").unlink()
    res = runner.invoke(app, ["reproduce", "zz-count", "zz-count", "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    assert res.exit_code == 0 and len(ran) == 1, res.output


@pytest.mark.parametrize("stop, code", [(KeyboardInterrupt(), 130), ("sigterm", 143)])
def test_an_interrupted_experiment_is_said_and_the_report_is_marked_incomplete(tmp_path, monkeypatch, stop, code):
    """Ctrl-C (or SIGTERM inside an experiment's sweep) exited 130 without a word, and the report
    listed the finished experiments as if they were all: now a line names the experiment, where
    its finished runs are and how to resume, and the index says the report is incomplete."""
    from dcsim.sweep import SweepInterrupted

    from dcsim.sweep import PROCESS_RUNS

    def stopped(out_dir, quick):
        PROCESS_RUNS["computed"] += 1  # one run of its sweep finished (as the sweep counts it)
        raise stop if isinstance(stop, BaseException) else SweepInterrupted(out_dir, 3, 8, 15)

    monkeypatch.setitem(registry._REGISTRY, "zz-stopped", registry.Experiment("zz-stopped", "stopped", "none", stopped))
    res = runner.invoke(app, ["reproduce", "dx-thresholds", "zz-stopped", "coexist-fig1", "--out", str(tmp_path / "o"),
                              "--html", str(tmp_path / "h")], env={"COLUMNS": "300"})
    assert res.exit_code == code, res.output
    said = " ".join(res.output.split())
    assert "interrupted: zz-stopped was interrupted" in said and "1 of 3 experiments finished before it" in said
    assert "1 finished packet run kept in" in said and "run the same command again to resume" in said
    assert "Traceback" not in said
    index = (tmp_path / "h" / "index.html").read_text()
    assert "this report is incomplete; not run: coexist-fig1" in index and "1 interrupted" in index
    assert (tmp_path / "o" / "dx-thresholds" / "claims.json").exists()  # the finished one is kept


def test_an_interrupted_experiment_without_runs_promises_no_resume(tmp_path, monkeypatch):
    """A fluid or theory experiment (dctcp-fig7), or one stopped before its first packet run, keeps
    nothing a second `dcsim reproduce` would reuse: it had been said to keep "the runs it finished
    ...: run the same command again to resume" all the same (a probe)."""
    def stopped(out_dir, quick):
        raise KeyboardInterrupt

    monkeypatch.setitem(registry._REGISTRY, "zz-whole", registry.Experiment("zz-whole", "whole", "none", stopped))
    res = runner.invoke(app, ["reproduce", "zz-whole", "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    said = " ".join(res.output.split())
    assert res.exit_code == 130 and "zz-whole was interrupted" in said, res.output
    # ... and not that it is "computed whole" either: dsm-fig8 stopped before its first run finished had
    # said so, while it resumes from its runs once some have finished (a probe)
    assert "no finished packet run was kept (none had finished, or it keeps none): the same command runs it from " \
           "the start" in said and "resume" not in said and "computed whole" not in said, said


def test_a_ctrl_c_while_the_claims_are_written_is_an_interrupted_experiment(tmp_path, monkeypatch):
    """A Ctrl-C after an experiment's runs, while its claims were written, left it out of the
    tally, which then read as a complete run ("1 of 1 ... over 1 experiments (0 failed)", nothing
    said not run). Now it is counted as interrupted and the experiments after it as not run."""
    import dcsim.cli as cli

    real = cli.write_claims
    calls = []

    def stop_on_second(result, out_dir, quick=False):
        calls.append(out_dir)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(result, out_dir, quick)

    monkeypatch.setattr(cli, "write_claims", stop_on_second)
    # Three experiments (an id given twice runs once): dx-thresholds under two more ids.
    fast = registry.get("dx-thresholds")
    for i in ("zz-second", "zz-third"):
        monkeypatch.setitem(registry._REGISTRY, i, registry.Experiment(i, fast.title, fast.paper, fast.run))
    res = runner.invoke(app, ["reproduce", "dx-thresholds", "zz-second", "zz-third", "--quick", "--out",
                              str(tmp_path / "o"), "--html", str(tmp_path / "h")], env={"COLUMNS": "300"})
    assert res.exit_code == 130, res.output
    said = " ".join(res.output.split())
    assert "interrupted: zz-second was interrupted" in said and "1 of 3 experiments finished before it" in said
    assert "over 1 finished experiment (0 failed, 1 interrupted)" in said and "not run: zz-third" in said, said[-600:]
    index = (tmp_path / "h" / "index.html").read_text()
    assert "this report is incomplete; not run: zz-third" in index and "1 interrupted" in index


def test_a_quick_run_says_so_under_its_claims_and_in_claims_json(tmp_path):
    """Nothing but parameters.json said that a verdict came from --quick's shorter runs."""
    import json

    res = runner.invoke(app, ["reproduce", "dx-thresholds", "--quick", "--out", str(tmp_path / "o")],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 0 and "quick run (--quick)" in " ".join(res.output.split())
    rows = json.loads((tmp_path / "o" / "dx-thresholds" / "claims.json").read_text())
    assert rows and {r["mode"] for r in rows} == {"quick"}
    full = runner.invoke(app, ["reproduce", "dx-thresholds", "--out", str(tmp_path / "f")], env={"COLUMNS": "300"})
    assert full.exit_code == 0 and "quick run" not in full.output
    assert {r["mode"] for r in json.loads((tmp_path / "f" / "dx-thresholds" / "claims.json").read_text())} == {"full"}


def test_bad_options_exit_2_before_anything_runs(tmp_path):
    for args, words in (
        (["reproduce", "--all", "dx-fig1"], "not both"),
        (["reproduce", "dx-fig1", "--jobs", "0"], "--jobs"),
        (["reproduce", "dx-fig1", "--jobs", "2", "--dask", "tcp://127.0.0.1:1"], "--jobs"),
        (["reproduce", "no-such-id"], "unknown experiment id"),
    ):
        res = runner.invoke(app, [*args, "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
        assert res.exit_code == 2, (args, res.output)
        assert words in res.output, (args, res.output)
    assert not (tmp_path / "o").exists()


class CountingPool(cf.ThreadPoolExecutor):
    """An in-process executor that counts what it was given."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.submitted = 0

    def submit(self, *a, **kw):
        self.submitted += 1
        return super().submit(*a, **kw)


def test_sweeps_inside_execution_use_its_executor(tmp_path):
    base = {
        "network": {"senders": 2, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "200pkt"},
        "flows": [{"count": 2, "protocol": "dctcp"}],
        "run": {"duration": "2ms"},
    }
    pool = CountingPool()
    with execution(executor=pool):
        sweep(base, {"network.buffer": ["100pkt", "200pkt"]}, out=tmp_path / "s", tables=False, progress=False)
    assert pool.submitted == 2
    # Outside the block the default (a local pool) is back; an explicit executor always wins.
    other = CountingPool()
    sweep(base, {"network.buffer": ["150pkt"]}, out=tmp_path / "t", tables=False, progress=False, executor=other)
    assert other.submitted == 1
    with pytest.raises(SweepError, match="jobs"):
        with execution(jobs=0):
            pass


def _browser():
    """A headless Chromium driven by selenium, or a skip with the reason."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -r tests/requirements.txt)")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver (.ci/run does)")
    opts = Options()
    opts.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    try:
        return webdriver.Chrome(service=Service(driver), options=opts)
    except Exception as e:  # a browser that cannot start here is an environment problem, said plainly
        pytest.skip(f"chromium is installed but did not start headless: {type(e).__name__}: {str(e)[:200]}")


def test_report_in_a_real_browser(report):
    from selenium.webdriver.common.by import By

    drv = _browser()
    try:
        drv.get((report / "index.html").as_uri())
        links = [a.get_attribute("href") for a in drv.find_elements(By.CSS_SELECTOR, "table a")]
        assert len(links) == len(FAST)
        assert drv.find_elements(By.CSS_SELECTOR, "table tr td"), "index table has no rows"
        for href in links:
            drv.get(href)
            assert "File not found" not in drv.page_source and drv.title.split(":")[0] in FAST, drv.title
            imgs = drv.execute_script(
                "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])")
            assert imgs and all(ok for _, ok in imgs), imgs
            for t in drv.find_elements(By.TAG_NAME, "table"):
                assert len(t.find_elements(By.TAG_NAME, "tr")) > 1, f"{drv.title}: a table without rows"
    finally:
        drv.quit()


def test_every_page_shows_its_parameters_and_links_its_data(report):
    """Every experiment page has a parameters table (from the parameters.json the registry writes
    for every experiment) and links to its CSV files, copied into the report."""
    for exp in FAST:
        page = (report / f"{exp}.html").read_text()
        params = page.split("<h2>Parameters</h2>", 1)[1].split("<h2>", 1)[0]
        assert "<table>" in params and "<th>mode</th><td>quick</td>" in params, params[:500]
        data = page.split("<h2>Data</h2>", 1)[1]
        links = re.findall(r'href="([^"]+)"', data)
        assert any(h.endswith(".csv") for h in links) and f"{exp}/parameters.json" in links, links
        for h in links:
            assert (report / h).is_file(), h
        # every table the run wrote is listed by its experiment, so the page links it (the report
        # no longer takes every CSV of OUT/ID, which had shown strays as the run's data)
        written = {f.name for f in (report.parent / "out" / exp).glob("*.csv")}
        assert written <= {h.split("/")[-1] for h in links}, written
    assert "P_FIG1" in (report / "dx-thresholds.html").read_text()  # settings read by its code
    assert "synchronized_aimd() defaults" in (report / "coexist-fig1.html").read_text()


def test_every_registered_experiment_has_parameters():
    """What parameters.json would hold for each of the registered experiments, without running them:
    the settings its code reads when it reports none itself."""
    exps = registry.all_experiments()
    assert len(exps) >= 34
    for e in exps:
        fn = e.run.__wrapped__
        p = registry.experiment_parameters(fn, registry.ExperimentResult(e.id, e.title), True)
        assert p["mode"] == "quick" and p["source"].startswith("code")
        assert len(p) > 3, (e.id, p)  # experiment, mode, source, and at least one setting


def test_commit_from_a_checkout_and_for_an_installed_package(tmp_path, monkeypatch):
    """From this checkout: its commit. An installed copy (here: a site-packages inside some other
    git repository) says the commit its engine was built from, never the other repository's; built
    outside a checkout, "not recorded"."""
    import subprocess

    import dcsim.report as report_mod

    # Run from this checkout (an editable install) or from a copy installed out of it (`pip install .`,
    # as CI does): either way the commit is this checkout's HEAD.
    here = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    assert re.fullmatch(re.escape(here) + r"( \(with uncommitted changes\))?( \(recorded when this dcsim was built\))?",
                        report_mod.commit("0.1.0")), (here, report_mod.commit("0.1.0"))
    other = tmp_path / "venv"
    (other / "lib" / "dcsim").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "--allow-empty",
                    "-m", "x"], check=True)
    monkeypatch.setattr(report_mod, "__file__", str(other / "lib" / "dcsim" / "report.py"))
    # The engine records the commit it was built from (build.rs): this checkout's, never the
    # other repository's.
    from dcsim import _core

    built = _core.__commit__
    assert re.fullmatch(r"[0-9a-f]{12}( \(with uncommitted changes\))?", built), built
    assert report_mod.commit("0.1.0") == f"{built} (recorded when this dcsim was built)"
    head = subprocess.run(["git", "-C", str(other), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert head not in report_mod.commit("0.1.0")
    # Built outside a git checkout (an sdist): nothing recorded, and said so.
    monkeypatch.setattr(report_mod, "_built_commit", lambda: "unknown")
    assert report_mod.commit("0.1.0") == "not recorded (installed package dcsim 0.1.0, built outside a git checkout)"


def test_checks_read_passes_or_fails_and_split_tables_have_no_duplicate_column(tmp_path):
    """The HTML report gave dcsim's own checks claim verdicts ('reproduced' / 'differs'), repeated
    every value of a split table in a 'dcsim' column beside its instrument columns, left empty
    cells blank, and never flagged a failing check in the index (an audit). Terminal and report now
    share one layout (report.claims_layout)."""
    from dcsim.experiments.registry import Claim, ExperimentResult, check, instruments
    from dcsim.report import Entry, claims_layout, write_report

    rows = [instruments("a split claim", "1", "reproduced", packet="p1", theory="t1"),
            check("(setup) one value only", "v", False)]
    r = ExperimentResult("zz-x", "x", rows)
    cols, laid = claims_layout(r.checks)
    assert cols == ("dcsim",) and laid == [(("v",), "fails", False)]
    cols, laid = claims_layout(r.paper_claims)
    assert cols == ("packet sim", "fluid model", "theory") and laid == [(("p1", "—", "t1"), "reproduced", True)]
    (tmp_path / "o").mkdir()
    index = write_report([Entry("zz-x", "x", "none", tmp_path / "o", 1.0, result=r, files=[])], tmp_path / "h",
                         quick=True, version="0.1.0")
    page = (tmp_path / "h" / "zz-x.html").read_text()
    claims_html, checks_html = page.split("dcsim's own checks")
    assert "<th>claim (paper)</th><th>paper</th><th>packet sim</th><th>fluid model</th><th>theory</th>" in claims_html
    assert "<th>dcsim</th>" not in claims_html and "<td>—</td>" in claims_html
    assert '<td class="checkfails">fails</td>' in checks_html and ">differs<" not in checks_html
    assert '<td class="checkfails">0 of 1 pass</td>' in index.read_text()


def test_inconclusive_claims_are_counted_and_coloured_apart(tmp_path):
    """A claim the runs' noise leaves unresolved is neither reproduced nor differing: the index, the
    tally and the page count and colour it on its own."""
    from dcsim.experiments.registry import DIFFERS, INCONCLUSIVE, REPRODUCED, Claim, ExperimentResult
    from dcsim.report import Entry, tally, verdict_counts, write_report

    def entry(name, *verdicts):
        r = ExperimentResult(name, "x", [Claim(f"c{i}", "p", "o", v) for i, v in enumerate(verdicts)])
        (tmp_path / "o" / name).mkdir(parents=True)
        return Entry(name, "x", "none", tmp_path / "o" / name, 1.0, result=r, files=[])

    a = entry("zz-a", REPRODUCED, DIFFERS, INCONCLUSIVE)
    b = entry("zz-b", REPRODUCED, INCONCLUSIVE)
    c = entry("zz-c", REPRODUCED)
    assert verdict_counts(a)[:2] == ("differs", "1 of 3 reproduced; 1 differs; 1 inconclusive")
    assert verdict_counts(b)[:2] == ("inconclusive", "1 of 2 reproduced; 1 inconclusive")
    assert verdict_counts(c)[:2] == ("reproduced", "1 of 1 reproduced")
    assert tally([a, b, c]).startswith("3 of 6 claims of the papers reproduced (1 differs, 2 inconclusive) over 3 "
                                       "finished")
    assert tally([c]).startswith("1 of 1 claims of the papers reproduced over")
    index = write_report([a, b, c], tmp_path / "h", quick=False, version="0.1.0").read_text()
    assert '<td class="inconclusive">1 of 2 reproduced; 1 inconclusive</td>' in index
    assert '<td class="inconclusive">inconclusive</td>' in (tmp_path / "h" / "zz-b.html").read_text()
    # the terminal's tally colours it too (cyan, neither green nor yellow)
    from rich.console import Console

    import dcsim.cli as cli

    rec = Console(record=True, width=200, force_terminal=True, color_system="standard")
    old, cli.console = cli.console, rec
    try:
        cli.print_tally([a, b, c], [], quick=False)
    finally:
        cli.console = old
    said = rec.export_text(styles=True)
    assert "\x1b[36m1 of 2 reproduced; 1 inconclusive" in said, said


def test_a_second_report_into_the_same_directory_drops_the_first_ones_other_pages(tmp_path):
    """`--html h` of dx-thresholds and coexist-fig1, then of coexist-fig1 alone: h/dx-thresholds.html
    stayed, linking back to an index that no longer listed it (a probe). The second report removes
    the pages an earlier one wrote for experiments it does not hold, and nothing else: a file of the
    user's stays, and with --html the same as -o the experiments' own folders (their outputs) stay."""
    for html in ("h", "o"):  # a report of its own; a report into -o
        out, h = tmp_path / "o", tmp_path / html
        res = runner.invoke(app, ["reproduce", *FAST, "--quick", "-o", str(out), "--html", str(h)])
        assert res.exit_code == 0, res.output
        (h / "mine.txt").write_text("keep me")
        (h / "notes.html").write_text("<p>my page</p>")
        res = runner.invoke(app, ["reproduce", FAST[1], "--quick", "-o", str(out), "--html", str(h)])
        assert res.exit_code == 0, res.output
        assert not (h / f"{FAST[0]}.html").exists() and (h / f"{FAST[1]}.html").exists()
        assert (h / "mine.txt").read_text() == "keep me" and (h / "notes.html").exists()
        assert FAST[0] not in (h / "index.html").read_text()
        assert (out / FAST[0] / "claims.json").exists()  # the first run's results are kept


def test_a_report_links_the_files_the_run_listed_not_strays(tmp_path):
    """A review: a CSV left in OUT/ID by an earlier version or by the user was linked and copied as
    this run's data (every CSV of the directory was taken); now only the listed files and the
    registry's claims.json and parameters.json."""
    from dcsim.report import _data_files

    for name in ("table.csv", "from_last_month.csv", "claims.json", "parameters.json"):
        (tmp_path / name).write_text("a,b\n")
    got = [f.name for f in _data_files(tmp_path, [tmp_path / "table.csv", tmp_path / "figure.png"])]
    assert got == ["table.csv", "claims.json", "parameters.json"], got


def _two_run_sweep_experiment(stop_after: bool):
    """A registered experiment whose packet runs are one real sweep of two 1 ms runs into
    OUT/sweep-a, over other marking thresholds in --quick than in full (as the papers'
    experiments: the two modes share the sweep's directory, not its runs); ``stop_after``: a
    Ctrl-C once the sweep has finished."""
    base = {"network": {"senders": 2, "bottleneck": "1Gbps", "rtt": "100us", "buffer": "100pkt",
                        "aqm": {"kind": "threshold", "K": "20pkt"}},
            "flows": [{"count": 2, "protocol": "dctcp"}], "run": {"duration": "1ms"}}

    def run(out_dir, quick):
        sweep(base, {"network.aqm.K": ["10pkt", "20pkt"] if quick else ["30pkt", "40pkt"]}, out=out_dir / "sweep-a", progress=False,
              jobs=1)
        if stop_after:
            raise KeyboardInterrupt
        return registry.ExperimentResult("zz-sweep", "a sweep")

    return registry.Experiment("zz-sweep", "a sweep", "none", run)


def test_a_cached_rerun_keeps_the_measured_runtime_and_switching_modes_says_nothing_odd(tmp_path, monkeypatch):
    """A review: a rerun whose packet runs all came from the cache overwrote the experiment's
    measured runtime (dx-table1 "4.6 s" became "1.03 s", below its --quick time); switching
    between --quick and full in one directory printed Python's raw SweepWarning with a source line
    and advice for a user's own sweep; and an interrupted experiment said it kept every row.json
    in its directory, the other mode's too, which the same command does not reuse."""
    monkeypatch.setenv("DCSIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(registry._REGISTRY, "zz-sweep", _two_run_sweep_experiment(stop_after=False))
    out = ["--out", str(tmp_path / "o")]
    times = lambda: json.loads((tmp_path / "cache" / "runtimes.json").read_text())  # noqa: E731
    res = runner.invoke(app, ["reproduce", "zz-sweep", "--quick", *out], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    measured = times()["zz-sweep --quick"]
    (tmp_path / "cache" / "runtimes.json").write_text(json.dumps({"zz-sweep --quick": 999.0}))
    res = runner.invoke(app, ["reproduce", "zz-sweep", "--quick", *out], env={"COLUMNS": "300"})
    assert res.exit_code == 0 and times() == {"zz-sweep --quick": 999.0}, (measured, res.output)
    res = runner.invoke(app, ["reproduce", "zz-sweep", *out], env={"COLUMNS": "300"})  # full: its own runs
    assert res.exit_code == 0 and "zz-sweep" in times(), res.output
    assert "SweepWarning" not in res.output and "another sweep" not in res.output, res.output
    # Both modes' runs are in OUT/zz-sweep/sweep-a/runs now (4); a Ctrl-C after the --quick sweep
    # keeps the 2 that the same command reuses.
    assert len(list((tmp_path / "o" / "zz-sweep" / "sweep-a" / "runs").glob("*/row.json"))) == 4
    monkeypatch.setitem(registry._REGISTRY, "zz-sweep", _two_run_sweep_experiment(stop_after=True))
    res = runner.invoke(app, ["reproduce", "zz-sweep", "--quick", *out], env={"COLUMNS": "300"})
    said = " ".join(res.output.split())
    assert res.exit_code == 130 and "2 finished packet runs kept in" in said, said
