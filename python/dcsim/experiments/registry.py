"""Registry of reproducible experiments and the claims table each one prints.

An experiment is a function ``run(out_dir: Path, quick: bool) -> ExperimentResult`` registered
under an id such as ``"dctcp-fig7"``. It writes PNG + CSV into ``out_dir`` and returns the list
of the paper's claims with our numbers and a verdict.

Parameters: the registry writes ``out_dir/parameters.json`` for every experiment it runs
(:func:`write_parameters`, the one place that does): the parameters the experiment reports from
what it ran (:attr:`ExperimentResult.parameters`: its scenarios, grids, repetitions) if it gives
them, else the settings its code reads (:func:`code_settings`: the module-level constants used by
the experiment's function and the helpers of its module it calls). The HTML report shows that file.

Runtimes (``reproduce --list``): the user's own measured wall times (:func:`record_runtime`, in
$DCSIM_CACHE or ~/.cache/dcsim) where they exist, else the typical times shipped in
``dcsim/data/runtimes.json`` (measured by ``benchmarks/ship_runtimes.py`` from a real
``reproduce --all`` and ``--all --quick``; see the README).
"""

from __future__ import annotations

import contextvars
import importlib
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from dcsim.units import count_shown

__all__ = [
    "monotone_trend",
    "Claim",
    "CLAIM",
    "CHECK",
    "check",
    "instruments",
    "ExperimentResult",
    "Experiment",
    "experiment",
    "get",
    "all_experiments",
    "verdict",
    "verdict_quoted",
    "quoted_tolerance",
    "ok",
    "by_noise",
    "noisy_trend",
    "se_trend",
    "all_of",
    "REPRODUCED",
    "DIFFERS",
    "INCONCLUSIVE",
    "save_figure",
]

#: Modules that define experiments; each registers itself on import.
EXPERIMENT_MODULES = [
    "dcsim.experiments.dctcp_analysis",
    "dcsim.experiments.dx_analysis",
    "dcsim.experiments.coexistence",
    "dcsim.experiments.dctcp_packet",
    "dcsim.experiments.coexistence_packet",
    "dcsim.experiments.dx_packet",
    "dcsim.experiments.dctcp_convergence_fairness",
    "dcsim.experiments.dsm_packet",
    "dcsim.experiments.dsm_theory",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"
#: A claim judged against sampling noise (standard errors over seeds or repetitions, a spread over
#: seeds) that the runs neither show nor contradict beyond that noise: more runs could decide it.
#: Also a bound the computation cannot put to the test (one that binds only below the resolution of
#: the numbers it bounds: dctcp-hybrid's (24) where no event lies between), which would otherwise
#: pass empty. Never a check's verdict (a check passes or fails), never a claim judged without a
#: noise level or such a resolution.
INCONCLUSIVE = "inconclusive"
VERDICTS = (REPRODUCED, DIFFERS, INCONCLUSIVE)


def verdict(paper: float, ours: float, rel_tol: float) -> tuple[str, float]:
    """Compare our number with the paper's: (verdict, relative difference). A relative tolerance
    has no meaning around a paper's 0 (a review: ``rel_tol`` silently became an absolute one):
    such a claim needs its own absolute bound, so it is refused here."""
    if not (math.isfinite(rel_tol) and rel_tol >= 0):
        raise ValueError(f"verdict: rel_tol = {rel_tol!r}; allowed a finite number >= 0")
    if paper == 0 or not math.isfinite(paper):
        raise ValueError(f"verdict: the paper's value is {paper!r}; a relative tolerance needs a finite, non-zero one "
                         "(compare with an absolute bound and ok() instead)")
    diff = abs(ours - paper) / abs(paper)
    ok = math.isfinite(ours) and diff <= rel_tol
    return (REPRODUCED if ok else DIFFERS), diff


def quoted_tolerance(printed: str, about: bool = False) -> float:
    """Half a unit in the last digit of a number as the paper prints it: "0.15" -> 0.005, "42" -> 0.5,
    "145" -> 0.5, "94" -> 0.5. A number printed with n digits claims no more than that; our value is
    consistent with it if it rounds to it. (Used for values the paper computed and printed, never for
    bounds it derives.)

    ``about``: the paper marks the number as approximate ("~1600", "about 120"); a whole number's
    trailing zeros are then not significant, and the unit is that of its last non-zero digit:
    "1600" -> 50, "400" -> 50, "120" -> 5 ("8" -> 0.5 either way)."""
    txt = printed.strip().lstrip("+-")
    if not re.fullmatch(r"\d+(\.\d+)?", txt):
        raise ValueError(f"quoted_tolerance: {printed!r} is not a plain decimal number")
    decimals = len(txt.split(".")[1]) if "." in txt else 0
    if about and decimals == 0 and txt.strip("0"):
        return 0.5 * 10.0 ** (len(txt) - len(txt.rstrip("0")))
    return 0.5 * 10.0 ** (-decimals)


def verdict_quoted(printed: str, ours: float, about: bool = False) -> tuple[str, float]:
    """Reproduced if ``ours`` rounds to the paper's printed number (see :func:`quoted_tolerance`,
    whose ``about`` reads a whole number's trailing zeros as not significant); returns (verdict,
    relative difference)."""
    paper = float(printed)
    tol = quoted_tolerance(printed, about=about)
    ok_ = math.isfinite(ours) and abs(ours - paper) <= tol * (1 + 1e-12)
    return (REPRODUCED if ok_ else DIFFERS), (abs(ours - paper) / abs(paper) if paper else abs(ours))


def verdict_quoted_range(printed: str, lo: float, hi: float, about: bool = False) -> str:
    """:func:`verdict_quoted` for a value known only to lie in [lo, hi] (ours computed over the
    paper's inputs to their printed digits): reproduced if that interval meets the printed number's
    rounding interval, i.e. if its point nearest to the printed number rounds to it."""
    paper = float(printed)
    lo, hi = sorted((lo, hi))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return DIFFERS
    return verdict_quoted(printed, min(max(paper, lo), hi), about=about)[0]


def monotone_trend(values, sign: int, end_margin: float, step_margins) -> tuple[bool, list[int]]:
    """The experiments' rule for "X grows (falls) with Y", judged on the trend, not on every step:
    the change from the first point to the last goes the ``sign`` way (+1 rising, -1 falling) by
    more than ``end_margin``, and no step between neighbouring points goes against it by more than
    its ``step_margins`` (one number, or one a step). The margins are a noise level measured or
    stated before looking (standard errors, a spread over seeds), never fitted to a run. Returns
    the verdict and the indices of the steps against the trend beyond their margin (a step whose
    margin is not a number is never among them: it shows nothing either way)."""
    if sign not in (1, -1):
        raise ValueError("monotone_trend: sign must be +1 (rising) or -1 (falling)")
    v = [float(x) for x in values]
    n = len(v) - 1
    margins = [float(m) for m in step_margins] if hasattr(step_margins, "__len__") else [float(step_margins)] * max(n, 0)
    if any(m < 0 for m in [*margins, end_margin]):
        raise ValueError(f"monotone_trend: a margin is a noise level, >= 0; got end_margin = {end_margin!r}, "
                         f"step_margins = {step_margins!r}")
    if len(margins) != max(n, 0):
        return False, []
    against = [i for i in range(n) if math.isfinite(margins[i]) and sign * (v[i + 1] - v[i]) < -margins[i]]
    # A margin that is not finite (the spread of a run that gave NaN) judges nothing: no trend. A NaN
    # step margin had let every step pass (x < -nan is False: a review); it no longer hides another
    # step's reversal either (a review: one point without a standard error had).
    if n < 1 or not all(map(math.isfinite, [*v, *margins, end_margin])):
        return False, against
    return sign * (v[-1] - v[0]) > end_margin and not against, against


def noisy_trend(values, sign: int, end_margin: float, step_margins) -> tuple[str, list[int]]:
    """:func:`monotone_trend` judged against noise (:func:`by_noise`), the margins being the noise
    (twice the standard errors, a spread over seeds): reproduced if it holds; differs if the change
    from the first point to the last, or a step, goes against ``sign`` beyond its margin, or a value
    is not a number, or there is none; inconclusive otherwise (within the noise, or no noise level:
    a margin that is not a number). Returns the verdict and the steps against the trend beyond
    their margins (see :func:`monotone_trend`)."""
    v = [float(x) for x in values]
    good, against = monotone_trend(v, sign, end_margin, step_margins)
    contradicted = not v or bool(against) or not all(map(math.isfinite, v)) or sign * (v[-1] - v[0]) < -end_margin
    return by_noise(good, contradicted), against


def se_trend(values, ses, sign: int) -> tuple[str, list[int], float, list[float]]:
    """:func:`noisy_trend` of means with their standard errors ``ses``, the margins twice the
    standard error of each difference (independent means): of the change from the first to the
    last, 2 hypot(se_first, se_last), and of each step, 2 hypot(se_i, se_i+1). Returns the verdict,
    the steps against the trend beyond their margins, and the margins (for the claims' text)."""
    s = [float(x) for x in ses]
    end = 2 * math.hypot(s[0], s[-1]) if s else 0.0
    steps = [2 * math.hypot(a, b) for a, b in zip(s, s[1:])]
    verdict, against = noisy_trend(values, sign, end, steps)
    return verdict, against, end, steps


def ok(cond: bool) -> str:
    """The verdict of a claim checked as a condition."""
    return REPRODUCED if cond else DIFFERS


def by_noise(shown: bool, contradicted: bool) -> str:
    """The verdict of a claim judged against the runs' sampling noise (a difference beyond twice
    its standard error, a trend beyond the seeds' spread): reproduced if the runs show the claim
    beyond their noise, differs if they show something against it beyond their noise (the
    opposite ordering, a step against a trend), inconclusive if neither: the runs cannot resolve
    it either way, and more of them could. (Read as two words, such a claim's "differs" had said
    the same of "0.97 against 0.98 with 2 SE of 0.05" as of "3.3 against 10.3".)"""
    if shown and contradicted:
        raise ValueError("by_noise: a claim cannot be both shown and contradicted beyond the noise; the caller's "
                         "rule is inconsistent")
    return REPRODUCED if shown else (DIFFERS if contradicted else INCONCLUSIVE)


def differ_count(n: int) -> str:
    """"1 differs", "2 differ", "0 differ": the count of differing claims as the tallies print it."""
    return f"{n} {'differs' if n == 1 else 'differ'}"


def all_of(*verdicts: str) -> str:
    """The verdict of a claim made of parts, each with its verdict: reproduced if every part is,
    differs if one part differs, else inconclusive (a part left unresolved by the noise)."""
    for v in verdicts:
        if v not in VERDICTS:
            raise ValueError(f"all_of: {v!r} is not a verdict; allowed {', '.join(VERDICTS)}")
    if DIFFERS in verdicts:
        return DIFFERS
    return INCONCLUSIVE if INCONCLUSIVE in verdicts else REPRODUCED


#: What every figure of the experiment running now says under it: its id, title and paper, and
#: whether it is a --quick run (set by the registry's run wrapper; None outside an experiment).
_FOOTER: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("dcsim_figure_footer", default=None)


#: The figures of the experiment running now that could not be written, as (file name, error);
#: None outside an experiment (set by the registry's run wrapper, see :func:`save_figure`).
_FIGURE_FAILURES: contextvars.ContextVar[Optional[list]] = contextvars.ContextVar("dcsim_figure_failures",
                                                                                   default=None)


class FigureFailed(Exception):
    """An experiment that ran to the end, but some of its figures could not be written: its result
    (claims, the files it did write) is kept in ``result``; ``failures`` are (file name, error)."""

    def __init__(self, result: "ExperimentResult", failures: list):
        self.result, self.failures = result, failures
        names = ", ".join(f"{n} ({type(e).__name__}: {e})" for n, e in failures)
        super().__init__(f"{count_shown(len(failures), 'figure')} could not be written: {names}; the claims and "
                         "the tables were written")


def figure_footer(exp_id: str, title: str, paper: str, quick: bool) -> str:
    """The line under an experiment's figures: ``dcsim reproduce ID: title; paper``, and for a
    --quick run that it is one (coarser grids, shorter runs than the paper's)."""
    from dcsim.report import QUICK_NOTE

    return f"dcsim reproduce {exp_id}: {title}; {paper}" + (f"\n{QUICK_NOTE}" if quick else "")


def save_figure(fig, out_dir: Path, name: str) -> Path:
    """Write a matplotlib figure as PNG into ``out_dir`` and close it; inside an experiment, with
    the experiment's footer under it (what it is, from which paper, and whether a --quick run)."""
    import matplotlib.pyplot as plt

    from dcsim._files import atomic_write_with

    footer = _FOOTER.get()
    if footer is not None:  # under everything the figure already draws (axes labels, a legend below them)
        import textwrap

        bottom = fig.get_tightbbox().y0 / fig.get_figheight()  # inches -> fraction (any backend)
        width = max(40, int(fig.get_figwidth() * 14))  # characters of 7.5-pt text across the figure
        text = "\n".join(textwrap.fill(line, width) for line in footer.split("\n"))
        fig.text(0.5, min(0.0, bottom) - 0.01, text, ha="center", va="top", fontsize=7.5, color="0.3",
                 fontweight="bold" if "quick run" in footer else "normal")
    path = out_dir / name
    failures = _FIGURE_FAILURES.get()
    try:  # a figure that fails half-written leaves the earlier one, not a truncated file
        atomic_write_with(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight"))
    except Exception as e:
        if failures is None:
            raise
        # Inside an experiment the tables it computes after its figures still get written: the
        # failure is raised when it returns (`FigureFailed`). A figure that failed had lost the CSVs
        # the experiment wrote after it (a review: dctcp-hybrid's folder left empty).
        failures.append((name, e))
    finally:
        plt.close(fig)
    return path


#: Kinds of rows in a claims table: a statement of the paper, or our own check (numerics converged,
#: the setup behaved, an edge the paper does not state, a comparison the paper does not make).
CLAIM = "claim"
CHECK = "check"
KINDS = (CLAIM, CHECK)


#: Statement prefixes of dcsim's own rows (never the paper's claims): such a row must be a check.
OWN_PREFIXES = ("(dcsim)", "(setup)", "(edge)")


@dataclass
class Claim:
    """One row of a claims table: a statement of a paper checked numerically (``kind="claim"``),
    or one of our own checks (``kind="check"``) that is shown apart and never counted as reproduced."""

    statement: str  # the paper's words, short
    paper: str  # the paper's number or condition, as printed
    ours: str  # our number, with units
    verdict: str  # "reproduced", "differs" or (a claim judged against noise: by_noise) "inconclusive"
    detail: str = ""  # by how much, or why
    kind: str = CLAIM  # "claim" (the paper's) or "check" (ours: numerics, setup, edges)
    #: Optional split of ``ours`` by instrument, for experiments that put a packet simulation, the
    #: fluid model and the closed-form theory side by side ("" = not applicable / not given).
    packet: str = ""
    fluid: str = ""
    theory: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Claim.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"Claim.verdict must be one of {', '.join(map(repr, VERDICTS))}, got {self.verdict!r}")
        if self.kind == CHECK and self.verdict == INCONCLUSIVE:
            raise ValueError(f"Claim {self.statement!r}: a check passes or fails; {INCONCLUSIVE!r} is for a claim of "
                             "the paper that the runs' noise leaves unresolved")
        if self.kind == CLAIM and self.statement.startswith(OWN_PREFIXES):
            # a row marked as ours counted as the paper's inflated "n of n claims reproduced" (a probe)
            raise ValueError(f"Claim {self.statement!r}: a row marked {self.statement.split(')')[0]}) is dcsim's "
                             "own check: give kind='check'")

    @property
    def is_claim(self) -> bool:
        return self.kind == CLAIM

    @property
    def passed(self) -> bool:
        """The good outcome: a claim reproduced, or a check that passes."""
        return self.verdict == REPRODUCED

    @property
    def inconclusive(self) -> bool:
        """A claim the runs neither show nor contradict beyond their noise (:func:`by_noise`)."""
        return self.verdict == INCONCLUSIVE

    @property
    def word(self) -> str:
        """The verdict as the tables print it: "reproduced" / "differs" / "inconclusive" for a claim
        of the paper, "passes" / "fails" for dcsim's own check (which reproduces nothing of the paper)."""
        if self.is_claim:
            return self.verdict
        return "passes" if self.passed else "fails"

    def as_dict(self) -> dict:
        """The row as claims.json / claims.parquet hold it: ``verdict`` is :attr:`word`, as printed
        (a check's "reproduced" there had said what the tables do not)."""
        d = dict(statement=self.statement, paper=self.paper, ours=self.ours, verdict=self.word,
                 detail=self.detail, kind=self.kind)
        if self.packet or self.fluid or self.theory:
            d.update(packet=self.packet, fluid=self.fluid, theory=self.theory)
        return d


def check(statement: str, ours: str, passed: bool, detail: str = "", paper: str = "—") -> Claim:
    """A row that is not a claim of the paper (numerics, setup, edges): shown apart, never counted."""
    return Claim(statement, paper, ours, ok(passed), detail, kind=CHECK)


def instruments(statement: str, paper: str, verdict: str, *, packet: str = "", fluid: str = "", theory: str = "",
                detail: str = "", kind: str = CLAIM) -> Claim:
    """A row with our number per instrument: packet simulation, fluid model, closed-form theory
    (``ours`` joins the ones given, for readers of the plain table)."""
    parts = [f"{k}: {v}" for k, v in (("packet", packet), ("fluid", fluid), ("theory", theory)) if v]
    return Claim(statement, paper, "; ".join(parts), verdict, detail, kind=kind, packet=packet, fluid=fluid,
                 theory=theory)


@dataclass
class ExperimentResult:
    id: str
    title: str
    claims: list[Claim] = field(default_factory=list)  # every row, claims and checks, in table order
    files: list[Path] = field(default_factory=list)
    #: The parameters the experiment ran with, taken from what it ran (scenarios, grids, repetitions);
    #: empty: the registry shows the settings its code reads instead (see :func:`write_parameters`).
    parameters: dict = field(default_factory=dict)

    @property
    def paper_claims(self) -> list[Claim]:
        """The rows that are statements of the paper (what "reproduced" counts)."""
        return [c for c in self.claims if c.kind == CLAIM]

    @property
    def checks(self) -> list[Claim]:
        """Our own checks (numerics, setup, edges): shown apart, not counted as reproduced."""
        return [c for c in self.claims if c.kind == CHECK]

    @property
    def n_reproduced(self) -> int:
        return sum(c.passed for c in self.paper_claims)

    @property
    def n_inconclusive(self) -> int:
        """Claims of the paper the runs' noise leaves unresolved (:func:`by_noise`)."""
        return sum(c.inconclusive for c in self.paper_claims)

    @property
    def all_reproduced(self) -> bool:
        """Every claim of the paper reproduced (checks are not claims and do not count)."""
        return all(c.passed for c in self.paper_claims)

    @property
    def checks_pass(self) -> bool:
        return all(c.passed for c in self.checks)

    def summary(self) -> str:
        """One line: "5 of 7 claims of the paper reproduced; checks: 2 of 2 pass", with the others
        split where one is inconclusive: "4 of 7 claims of the paper reproduced (2 differ, 1
        inconclusive)"."""
        n, k = len(self.paper_claims), len(self.checks)
        line = f"{self.n_reproduced} of {n} claims of the paper reproduced"
        if self.n_inconclusive:
            line += f" ({differ_count(n - self.n_reproduced - self.n_inconclusive)}, {self.n_inconclusive} inconclusive)"
        if k:
            line += f"; checks (not claims of the paper): {sum(c.passed for c in self.checks)} of {k} pass"
        return line


@dataclass
class Experiment:
    id: str
    title: str
    paper: str
    run: Callable[[Path, bool], ExperimentResult]


_REGISTRY: dict[str, Experiment] = {}


def _runtimes_path() -> Path:
    """Where measured wall times of experiments are kept ($DCSIM_CACHE or ~/.cache/dcsim)."""
    root = Path(os.environ.get("DCSIM_CACHE") or Path.home() / ".cache" / "dcsim")
    return root / "runtimes.json"


def record_runtime(exp_id: str, quick: bool, wall_s: float) -> None:
    """Remember how long an experiment took on this machine (shown by ``reproduce --list``)."""
    import json

    path = _runtimes_path()
    data = runtimes()
    data[f"{exp_id}{' --quick' if quick else ''}"] = round(float(wall_s), 2)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only home: the listing just shows no time


def runtimes() -> dict[str, float]:
    """Measured wall times on this machine: {"dctcp-fig7": s, "dctcp-fig7 --quick": s}. A file
    of another shape (edited, truncated) gives what it holds of that form: never an error, as
    it is a cache (a list there had `reproduce` fail after the experiment had run)."""
    import json
    import math

    try:
        data = json.loads(_runtimes_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(k, str) and isinstance(v, (int, float))
            and not isinstance(v, bool) and math.isfinite(v) and v >= 0}


#: Typical runtimes shipped with dcsim (written by benchmarks/ship_runtimes.py from a real
#: ``reproduce --all`` and ``--all --quick``).
SHIPPED_RUNTIMES = Path(__file__).resolve().parent.parent / "data" / "runtimes.json"


def shipped_runtimes() -> dict:
    """The shipped file: {"runtimes": {...}, "machine", "load", "date", "dcsim", ...} ({} if absent)."""
    import json

    try:
        data = json.loads(SHIPPED_RUNTIMES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("runtimes"), dict) else {}


def runtime(exp_id: str, quick: bool, mine: Optional[dict] = None, shipped: Optional[dict] = None) -> tuple[Optional[float], str]:
    """(seconds, source) for ``reproduce --list``: this machine's own last measurement
    (source ``"here"``) if there is one, else the shipped typical time (``"shipped"``), else
    (None, "")."""
    key = f"{exp_id}{' --quick' if quick else ''}"
    mine = runtimes() if mine is None else mine
    if isinstance(mine.get(key), (int, float)):
        return float(mine[key]), "here"
    shipped = shipped_runtimes() if shipped is None else shipped
    t = shipped.get("runtimes", {}).get(key)
    if isinstance(t, (int, float)):
        return float(t), "shipped"
    return None, ""


def experiment(id: str, title: str, paper: str):
    """Decorator: register ``fn(out_dir, quick) -> ExperimentResult`` under ``id``; the registered
    ``run`` also writes the experiment's parameters.json (:func:`write_parameters`)."""

    def deco(fn: Callable[[Path, bool], ExperimentResult]):
        if id in _REGISTRY:
            raise ValueError(f"experiment id {id!r} registered twice")

        def run(out_dir: Path, quick: bool) -> ExperimentResult:
            # The folder first: a missing one had failed in the figure's save, after the work (an
            # API audit: minutes of a packet experiment lost).
            try:
                Path(out_dir).mkdir(parents=True, exist_ok=True)
            except (OSError, TypeError) as e:
                raise ValueError(f"out_dir: cannot create the output folder {out_dir!r} ({e})") from None
            if not isinstance(quick, bool):
                raise ValueError(f"quick: expected True or False, got {quick!r}")
            token = _FOOTER.set(figure_footer(id, title, paper, quick))
            failures: list = []
            token2 = _FIGURE_FAILURES.set(failures)
            try:
                result = fn(out_dir, quick)
            finally:
                _FOOTER.reset(token)
                _FIGURE_FAILURES.reset(token2)
            path = write_parameters(fn, result, Path(out_dir), quick)
            if path not in result.files:
                result.files.append(path)
            if failures:  # not listed as written
                gone = {n for n, _ in failures}
                result.files = [f for f in result.files if Path(f).name not in gone]
                raise FigureFailed(result, failures)
            return result

        run.__wrapped__ = fn  # type: ignore[attr-defined]
        run.__doc__ = fn.__doc__
        _REGISTRY[id] = Experiment(id, title, paper, run)
        return fn

    return deco


# --------------------------------------------------------------------------------------------
# Parameters


#: Module constants that describe no setting (the paper's name, plot colours, claim kinds).
_NOT_SETTINGS = {"PAPER", "COLORS", "LABELS", "CLAIM", "CHECK", "KINDS", "REPRODUCED", "DIFFERS", "INCONCLUSIVE",
                 "VERDICTS", "TITLE"}


def _setting_value(v: object) -> object:
    """``v`` as JSON if it is a plain setting (numbers, strings, tuples/lists/dicts of them), else None."""
    import json

    import numpy as np

    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float, str, np.integer, np.floating)):
        return v.item() if isinstance(v, (np.integer, np.floating)) else v
    if isinstance(v, (tuple, list, dict)):
        try:
            text = json.dumps(v, default=lambda x: x.item() if isinstance(x, (np.integer, np.floating)) else repr(x))
        except (TypeError, ValueError):
            return None
        if "<" in text or len(text) > 2000:  # objects, or not a setting one reads
            return None
        return json.loads(text)
    return None


def _defaults(f: Callable) -> dict:
    """The keyword defaults of ``f`` that are plain settings."""
    import inspect

    out = {}
    for name, par in inspect.signature(f).parameters.items():
        if par.default is not inspect.Parameter.empty:
            val = _setting_value(par.default)
            if val is not None:
                out[name] = val
    return out


def code_settings(fn: Callable) -> dict:
    """The module-level constants (UPPER_CASE names with plain values) that ``fn`` reads, directly
    or through the functions and classes of its own module that it uses, in the order first read,
    and the keyword defaults of those functions and methods (``"helper() defaults"``); names ending
    in ``_QUICK`` are the ``--quick`` variants (an experiment keeps both modes' settings as module
    constants so that they are recorded: a review found parameters.json without the run lengths)."""
    import types

    mod = fn.__module__
    out: dict = {}
    seen: set = set()

    def walk(code: types.CodeType, glb: dict) -> None:
        if code in seen:
            return
        seen.add(code)
        for name in code.co_names:
            if name not in glb:
                continue
            v = glb[name]
            if isinstance(v, types.FunctionType) and v.__module__ == mod:
                if v.__code__ not in seen:
                    defaults = _defaults(v)
                    if defaults:
                        out[f"{name}() defaults"] = defaults
                walk(v.__code__, v.__globals__)
            elif isinstance(v, type) and v.__module__ == mod:  # a helper class: its methods too
                for meth_name, meth in vars(v).items():
                    if isinstance(meth, types.FunctionType) and meth.__code__ not in seen:
                        defaults = _defaults(meth)
                        if defaults:
                            out[f"{name}.{meth_name}() defaults"] = defaults
                        walk(meth.__code__, meth.__globals__)
            elif name.isupper() and name not in _NOT_SETTINGS and name not in out:
                val = _setting_value(v)
                if val is not None or v is None:
                    out[name] = val
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                walk(c, glb)

    walk(fn.__code__, fn.__globals__)
    return out


def experiment_parameters(fn: Callable, result: ExperimentResult, quick: bool) -> dict:
    """The content of parameters.json: the mode, and the experiment's parameters as run if it
    reports them (``source = "as run"``), else the settings its code reads (``source = "code"``)."""
    head = {"experiment": result.id, "mode": "quick" if quick else "full"}
    if result.parameters:
        return {**head, "source": "as run: the scenarios, grids and runs of this experiment", **result.parameters}
    return {**head, "source": f"code: module constants read by {fn.__module__}.{fn.__name__} and the helpers of its "
                              "module it calls (names ending in _QUICK apply to --quick)", **code_settings(fn)}


def write_parameters(fn: Callable, result: ExperimentResult, out_dir: Path, quick: bool) -> Path:
    """Write ``out_dir/parameters.json`` (:func:`experiment_parameters`); the only writer of that file."""
    import json

    from dcsim._files import atomic_write_bytes

    path = Path(out_dir) / "parameters.json"
    text = json.dumps(experiment_parameters(fn, result, quick), indent=2, default=str)
    atomic_write_bytes(path, text.encode("utf-8"), fsync=False)
    return path


def _load() -> None:
    for mod in EXPERIMENT_MODULES:
        importlib.import_module(mod)


def all_experiments() -> list[Experiment]:
    _load()
    return sorted(_REGISTRY.values(), key=lambda e: e.id)


def get(id: str) -> Experiment:
    _load()
    if not isinstance(id, str):
        raise KeyError(f"id: expected an experiment id (a str such as {sorted(_REGISTRY)[0]!r}), got {id!r}")
    if id not in _REGISTRY:
        from dcsim.units import closest_name

        known = ", ".join(sorted(_REGISTRY))
        close = closest_name(id, sorted(_REGISTRY), cutoff=0.75)
        hint = f" (did you mean {close}?)" if close else ""
        raise KeyError(f"unknown experiment id {id!r}{hint}; known ids: {known}")
    return _REGISTRY[id]
