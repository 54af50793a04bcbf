"""A static HTML report of reproduced experiments (``dcsim reproduce ... --html DIR``).

``index.html`` lists every experiment with its verdict counts (claims of the paper reproduced /
differing / inconclusive, dcsim's own checks passing), its wall time and a link to its page. Each page
``ID.html`` shows the experiment's figures, its claims table (the paper's value, ours, the
verdict, colour-coded; our own checks apart), the parameters it ran with (its parameters.json,
which the registry writes for every experiment), links to its data files (CSV, JSON; copied into
the report), its wall time and the dcsim version and commit. A ``--quick`` run says so on every page. An experiment that failed gets
a page with its error, and the others are still reported.

The report is self-contained: figures and data files are copied next to the pages (REPORT/ID/),
so the directory can be moved or served as it is.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from dcsim.experiments.registry import differ_count
from dcsim.units import count_shown, fmt_wall

#: Said under every claims table of a --quick run (`dcsim reproduce`) and on every page of its report.
QUICK_NOTE = ("quick run (--quick): coarser grids, shorter runs and fewer repetitions than the paper's, "
              "so the verdicts may differ from a full run")

__all__ = ["Entry", "write_report", "commit", "tally", "verdict_counts"]

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; width: 100%; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; font-size: 90%; }
th { background: #f0f0f0; }
td.reproduced { background: #d8f5d8; }
td.differs { background: #f9d6d6; }
td.inconclusive { background: #e1e8f7; }
td.failed { background: #d9d9d9; color: #900; font-weight: bold; }
td.checkfails { background: #fff3c4; }
.quick { background: #fff3c4; border: 1px solid #e0c000; padding: 0.5em 1em; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
.meta { color: #555; font-size: 90%; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
"""


@dataclass
class Entry:
    """One experiment's outcome: its result (None if it failed), files and wall time."""

    id: str
    title: str
    paper: str
    out_dir: Path
    wall_s: float
    result: Optional[object] = None  # registry.ExperimentResult
    error: Optional[str] = None
    files: list[Path] = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C or SIGTERM (``error`` says how far it got)


def commit(version: Optional[str] = None) -> str:
    """The git commit of the dcsim sources when running from a checkout (an editable install
    included); for an installed package, the commit its engine was built from (recorded by
    crates/dcsim-py/build.rs), or, built outside a git checkout, a plain statement that it was not
    recorded."""
    root = Path(__file__).resolve().parents[2]
    if (root / "crates" / "dcsim-core").is_dir() and (root / "python" / "dcsim").is_dir():  # a dcsim checkout, not
        try:  # a git repository that merely contains site-packages
            p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                               text=True, timeout=5)
            if p.returncode == 0 and p.stdout.strip():
                dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                       capture_output=True, text=True, timeout=5).stdout.strip()
                return p.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
        except (OSError, subprocess.SubprocessError):
            pass
        return "not recorded (a source tree without git)"
    built = _built_commit()
    if built != "unknown":
        return f"{built} (recorded when this dcsim was built)"
    if version is None:
        from dcsim import __version__ as version
    return f"not recorded (installed package dcsim {version}, built outside a git checkout)"


def _built_commit() -> str:
    """The commit the installed engine was built from (crates/dcsim-py/build.rs), or "unknown"."""
    try:
        from dcsim import _core
    except ImportError:
        return "unknown"
    return getattr(_core, "__commit__", "unknown")


def _e(x: object) -> str:
    return html.escape(str(x))


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


def _counts(e: Entry) -> tuple[int, int, int, int]:
    """(claims reproduced, claims, checks passing, checks); none for a failed experiment (one
    whose figures failed keeps its claims on its page, but they are not counted)."""
    r = e.result
    if r is None or e.error is not None:
        return 0, 0, 0, 0
    claims, checks = r.paper_claims, r.checks
    return sum(c.passed for c in claims), len(claims), sum(c.passed for c in checks), len(checks)


def _n_inconclusive(e: Entry) -> int:
    """Claims of the paper the runs' noise left unresolved (counted as :func:`_counts` counts)."""
    return 0 if e.result is None or e.error is not None else e.result.n_inconclusive


def tally(entries: Sequence[Entry]) -> str:
    """One line over several experiments: claims of the papers reproduced, failures, wall time
    (the report's index and the terminal after ``dcsim reproduce`` of more than one experiment)."""
    tot = [_counts(e) for e in entries]
    stopped = sum(e.interrupted for e in entries)
    failed = sum(e.error is not None and not e.interrupted for e in entries)
    judged = len(entries) - stopped - failed  # the experiments whose claims are counted (a probe: "over 5
    # experiments" of 4 that finished and one interrupted)
    inc = sum(map(_n_inconclusive, entries))
    rep, n = sum(t[0] for t in tot), sum(t[1] for t in tot)
    return (f"{rep} of {n} claims of the papers reproduced"
            f"{f' ({differ_count(n - rep - inc)}, {inc} inconclusive)' if inc else ''} over "
            f"{count_shown(judged, 'finished experiment')} ({failed} failed{f', {stopped} interrupted' if stopped else ''}); "
            f"total wall time {fmt_wall(sum(e.wall_s for e in entries))}")


def verdict_counts(e: Entry) -> tuple[str, str, str]:
    """An experiment's outcome as the report's index says it: (kind, verdict, checks), kind one of
    "reproduced" (every claim), "differs" (one at least), "inconclusive" (none differs, one at least
    is unresolved), "failed", "none" (it states no claim of the paper); e.g. ("differs", "3 of 5
    reproduced; 1 differs; 1 inconclusive", "2 of 2 pass"), or ("failed", "failed" / "interrupted", "—")."""
    if e.error is not None:
        return "failed", ("interrupted" if e.interrupted else "failed"), "—"
    n_rep, n_cl, n_ok, n_ch = _counts(e)
    if n_cl == 0:  # nothing of the paper judged: neither green nor red ("0 of 0 reproduced" had been green)
        return "none", "no claim of the paper", (f"{n_ok} of {n_ch} pass" if n_ch else "—")
    n_inc = _n_inconclusive(e)
    n_diff = n_cl - n_rep - n_inc
    said = f"{n_rep} of {n_cl} reproduced" + (f"; {differ_count(n_diff)}" if n_diff else "") \
        + (f"; {n_inc} inconclusive" if n_inc else "")
    kind = "differs" if n_diff else ("inconclusive" if n_inc else "reproduced")
    return kind, said, (
        f"{n_ok} of {n_ch} pass" if n_ch else "—")


def claims_layout(rows: list) -> tuple[tuple[str, ...], list[tuple[tuple[str, ...], str, bool]]]:
    """How a claims or checks table is laid out, in the terminal and in the HTML report alike: the
    columns for dcsim's value (one "dcsim" column, or one per instrument when a row splits its value
    into packet simulation, fluid model and theory), and per row those cells, the verdict's word
    ("reproduced" / "differs" / "inconclusive" for a claim of the paper, "passes" / "fails" for
    dcsim's own check) and whether it is the good one."""
    split = any(c.packet or c.fluid or c.theory for c in rows)
    cols = ("packet sim", "fluid model", "theory") if split else ("dcsim",)
    out = []
    for c in rows:
        if not split:
            ours: tuple[str, ...] = (c.ours,)
        elif c.packet or c.fluid or c.theory:
            ours = (c.packet or "—", c.fluid or "—", c.theory or "—")
        else:  # a row with one value in a split table: under the first instrument's column
            ours = (c.ours, "—", "—")
        out.append((ours, c.word, c.passed))
    return cols, out


def _claims_table(rows: list, head: str) -> str:
    cols, laid = claims_layout(rows)
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in (head, "paper", *cols, "verdict", "detail")) + "</tr>"]
    for c, (ours, word, good) in zip(rows, laid):
        # a failing check in the index's colour for it (yellow): it is not a claim of the paper that differs
        cls = "reproduced" if good else (c.verdict if c.is_claim else "checkfails")
        out.append("<tr>" + "".join(f"<td>{_e(x)}</td>" for x in (c.statement, c.paper, *ours))
                   + f"<td class=\"{cls}\">{_e(word)}</td><td>{_e(c.detail)}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def _value(v: object) -> str:
    if isinstance(v, (dict, list)):
        return f"<pre>{_e(json.dumps(v, indent=1, default=str))}</pre>" if len(json.dumps(v, default=str)) > 80 else \
            f"<code>{_e(json.dumps(v, default=str))}</code>"
    return _e(v)


def _parameters(out_dir: Path, e_id: str) -> str:
    """The experiment's parameters.json (written by the registry for every experiment) as a table."""
    p = out_dir / "parameters.json"
    try:
        params = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "<p>No parameters.json was written (the experiment did not run through the registry).</p>"
    except ValueError:
        return f"<pre>{_e(p.read_text(encoding='utf-8'))}</pre>"
    if not isinstance(params, dict):
        return f"<pre>{_e(json.dumps(params, indent=2))}</pre>"
    source = params.pop("source", "")
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_value(v)}</td></tr>" for k, v in params.items())
    return (f"<p class=\"meta\">Source: {_e(source)}. File: <a href=\"{_e(e_id)}/parameters.json\">"
            f"parameters.json</a></p><table>{rows}</table>")


def _data_files(out_dir: Path, files: list[Path]) -> list[Path]:
    """The experiment's data files: the CSV and JSON files it lists (every experiment lists every
    table it writes) and the claims.json and parameters.json the registry wrote beside them. Not
    every CSV of its output directory: a file left there by an earlier version or by the user was
    shown as this run's data (a review)."""
    out = [Path(f) for f in files if Path(f).suffix.lower() in (".csv", ".json")]
    out += [out_dir / name for name in ("claims.json", "parameters.json")]
    return [f for f in dict.fromkeys(out) if f.is_file()]


def _data_section(e_id: str, data: list[Path]) -> str:
    if not data:
        return "<p>The experiment wrote no data file.</p>"
    return "<ul>" + "".join(f"<li><a href=\"{_e(e_id)}/{_e(f.name)}\"><code>{_e(f.name)}</code></a></li>" for f in data) + "</ul>"


def _copy(f: Path, figs_dir: Path) -> None:
    """Copy ``f`` into ``figs_dir``, unless it is there already (--html the same directory as -o)."""
    figs_dir.mkdir(parents=True, exist_ok=True)
    dst = figs_dir / f.name
    if not (dst.exists() and os.path.samefile(f, dst)):
        shutil.copy2(f, dst)


#: The first line of every experiment page's body: how a page an earlier report wrote is told from
#: a file of the user's.
BACK_LINK = "<p><a href=\"index.html\">&larr; all experiments</a></p>"


def _remove_stale_pages(html_dir: Path, ids: set) -> None:
    """The pages that an earlier report wrote into ``html_dir`` for experiments not in this one:
    the new index would not list them, yet they linked back to it (a probe). Only the pages go:
    a folder of the same name may be the experiment's own output (``--html`` the same directory
    as ``-o``), which nothing here removes, and other files are the user's."""
    for page in html_dir.glob("*.html"):
        if page.name == "index.html" or page.stem in ids:
            continue
        try:
            ours = BACK_LINK in page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if ours:
            page.unlink(missing_ok=True)


def write_report(entries: list[Entry], html_dir: Path, *, quick: bool, version: str, not_run: Sequence[str] = ()) -> Path:
    """Write index.html and one page per experiment into ``html_dir``; returns the index.
    ``not_run``: the ids of the experiments asked for that an interruption left unstarted."""
    html_dir = Path(html_dir)
    html_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_pages(html_dir, {e.id for e in entries})
    rev = commit(version)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    meta = f"dcsim {_e(version)}, commit {_e(rev)}, written {_e(stamp)}"
    quick_note = f"<p class=\"quick\">{_e(QUICK_NOTE[0].upper() + QUICK_NOTE[1:])}.</p>" if quick else ""
    rows = []
    for e in entries:
        page = f"{e.id}.html"
        figs_dir = html_dir / e.id
        figs = []
        for f in e.files:
            f = Path(f)
            if f.suffix.lower() in (".png", ".svg") and f.exists():
                _copy(f, figs_dir)
                figs.append(f"{e.id}/{f.name}")
        # A failed experiment's data are the files it wrote (listed by the runner), without the
        # claims and parameters an earlier run may have left beside them.
        data = (_data_files(Path(e.out_dir), e.files) if e.error is None or e.result is not None
                else [Path(f) for f in e.files if Path(f).suffix.lower() in (".csv", ".json") and Path(f).is_file()])
        for f in data:  # copied beside the figures: the report stays self-contained
            _copy(f, figs_dir)
        body = [BACK_LINK,
                f"<h1>{_e(e.id)}: {_e(e.title)}</h1>", f"<p class=\"meta\">{_e(e.paper)}</p>", quick_note,
                f"<p class=\"meta\">wall time {fmt_wall(e.wall_s)}; {meta}</p>"]
        if e.error is not None:
            body.append(f"<h2>{'Interrupted' if e.interrupted else 'Failed'}</h2><pre>{_e(e.error)}</pre>")
            if e.result is None:  # what it wrote before it failed, or was interrupted (a review: "failed" for both)
                stopped = "was interrupted" if e.interrupted else "failed"
                if figs:
                    body.append(f"<h2>Figures written before it {stopped}</h2>"
                                + "".join(f"<p><img src=\"{_e(src)}\" alt=\"{_e(src)}\"></p>" for src in figs))
                body.append(f"<h2>Data written before it {stopped}</h2>" + _data_section(e.id, data))
        if e.result is not None:
            r = e.result
            if e.error is not None:
                body.append("<p>It ran to the end: its claims and tables follow (not counted in the index's "
                            "tally).</p>")
            body.append(f"<p><b>{_e(r.summary())}</b></p>")
            # a figure it could not write is in the error above, not "no figure" (a review)
            none = ("<p>No figure was written (see above).</p>" if e.error is not None
                    else "<p>This experiment draws no figure.</p>")
            body.append("<h2>Figures</h2>" + ("".join(f"<p><img src=\"{_e(src)}\" alt=\"{_e(src)}\"></p>" for src in figs)
                                             or none))
            body.append("<h2>Claims of the paper</h2>" + (_claims_table(r.paper_claims, "claim (paper)")
                                                          if r.paper_claims else "<p>none</p>"))
            if r.checks:
                body.append("<h2>dcsim's own checks (not claims of the paper)</h2>" + _claims_table(r.checks, "check"))
            body.append("<h2>Parameters</h2>" + _parameters(Path(e.out_dir), e.id))
            body.append("<h2>Data</h2>" + _data_section(e.id, data))
        _write(html_dir / page, _page(f"{e.id}: {e.title}", "\n".join(body)))
        cls, said, checks = verdict_counts(e)
        verdict = f"<td class=\"{cls}\">{_e(said)}</td>"
        n_ok, n_checks = _counts(e)[2:]
        # a failing check is flagged as a differing claim is (its own colour: it is not the paper's)
        check_cls = "" if e.error is not None or n_ok == n_checks else " class=\"checkfails\""
        checks = "" if e.error is not None else _e(checks)
        rows.append(f"<tr><td><a href=\"{_e(page)}\">{_e(e.id)}</a></td><td>{_e(e.title)}</td><td>{_e(e.paper)}</td>"
                    f"{verdict}<td{check_cls}>{checks}</td><td>{fmt_wall(e.wall_s)}</td></tr>")
    stopped = sum(e.interrupted for e in entries)
    summary = tally(entries)
    incomplete = ""
    if stopped or not_run:
        left = f"; not run: {', '.join(not_run)}" if not_run else ""
        incomplete = f"<p class=\"quick\">Interrupted: this report is incomplete{_e(left)}.</p>"
    index = ["<h1>dcsim: reproduced experiments</h1>", f"<p class=\"meta\">{meta}</p>", quick_note, incomplete,
             f"<p><b>{_e(summary)}</b></p>",
             "<table><tr><th>experiment</th><th>what</th><th>paper</th><th>claims of the paper</th>"
             "<th>dcsim's checks</th><th>wall time</th></tr>", *rows, "</table>"]
    out = html_dir / "index.html"
    _write(out, _page("dcsim: reproduced experiments", "\n".join(index)))
    return out


def _write(path: Path, text: str) -> None:
    """A page renamed into place: a reader (or a failure) sees the old page or the new one."""
    from dcsim._files import atomic_write_bytes

    atomic_write_bytes(path, text.encode("utf-8"), fsync=False)
