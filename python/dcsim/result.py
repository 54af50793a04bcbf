"""Result of a packet-level run: the engine's tables as pandas DataFrames, a summary, files.

Every table, column, unit and window (after warm-up, whole run, sample, ...) is listed in
:mod:`dcsim.schema`, which also makes the README's "Result tables" section and ``help(Result)``.

Generated flows (``[[workloads]]``) have one row each in ``flows`` (their throughput and window are
not sampled); :meth:`Result.fct_stats` gives AFCT, p50/p99/p99.9 FCT and slowdown per protocol and
flow-size bucket.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import threading
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from dcsim import schema
from dcsim._files import dir_path, frame_to_parquet
from dcsim._json import jsonable
from dcsim.scenario import FABRIC_TIERS, Scenario, TraceFlows, load_scenario

if TYPE_CHECKING:  # pandas is imported when a DataFrame is first asked for (`dcsim run` needs none)
    import pandas as pd

__all__ = ["Result", "jain_index", "active_goodput_bps", "link_sharing", "TABLES", "fct_stats", "bucket_labels", "WriteError", "ResultDirError"]

#: The engine's tables, in the order they are written.
TABLES = ("queue", "throughput", "cwnd", "flows", "ports", "queue_hist", "counters", "workloads", "rounds",
          "sources", "rates", "cps")
#: Tables a result directory written by an older dcsim may lack (read back as empty).
LATER_TABLES = ("workloads", "rounds", "sources", "rates", "cps")


def _size_label(b: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return f"{b / scale:g}{unit}"
    return f"{b:g}B"


def bucket_labels(edges_bytes: list[float]) -> list[str]:
    """Labels of the size buckets (0, e1], (e1, e2], ..., (e_n, inf): "<=10KB", "10KB-100KB", ">10MB"."""
    e = [float(x) for x in edges_bytes]
    if not e:
        return ["all sizes"]
    return [f"<={_size_label(e[0])}"] + [f"{_size_label(a)}-{_size_label(b)}" for a, b in zip(e, e[1:])] + [
        f">{_size_label(e[-1])}"
    ]


def timed_mask(size_bytes: np.ndarray, start_s: np.ndarray, warmup_s: float) -> np.ndarray:
    """Which flows' completion times are counted: finite (a size given) and started at or after
    warm-up, compared in the engine's whole picoseconds (a tolerance of 1 ps had counted a flow
    that started 1 ps before it, which the engine counts before: a review)."""
    start_ps = np.rint(np.asarray(start_s, dtype=float) * 1e12)
    return np.isfinite(np.asarray(size_bytes, dtype=float)) & (start_ps >= round(warmup_s * 1e12))


def timed_flows(flows: pd.DataFrame, edges_bytes: list[float], warmup_s: float = 0.0) -> pd.DataFrame:
    """The flows whose completion times are counted (:func:`timed_mask`), each with its size
    bucket (``bucket``: a label of :func:`bucket_labels`)."""
    f = flows[timed_mask(flows["size_bytes"].to_numpy(), flows["start_s"].to_numpy(), warmup_s)]
    labels = bucket_labels(edges_bytes)
    idx = np.searchsorted(np.asarray(edges_bytes, dtype=float), f["size_bytes"].to_numpy(dtype=float), side="left")
    return f.assign(bucket=[labels[i] for i in idx])


def fct_group_label(r: dict) -> str:
    """A row of :func:`fct_stats` as the summary names it: "dctcp <=10KB", "dctcp all", "all";
    with several traffic sources "workload 1 (incast): dctcp 10KB-100KB", "workload 1 (incast):
    all", and "all" for the row over every source."""
    base = "all" if r["protocol"] == r["bucket"] == "all" else f"{r['protocol']} {r['bucket']}"
    return base if r["traffic"] == "all" else f"{r['traffic']}: {base}"


def traffic_of(flows: pd.DataFrame, workload_kinds: Optional[dict[int, str]] = None) -> np.ndarray:
    """Where each flow comes from: "workload 1 (incast)" (the [[workloads]] entry that generated
    it, with its kind when ``workload_kinds`` gives it), or "[[flows]]" (a listed flow)."""
    out = np.full(len(flows), "[[flows]]", dtype=object)
    if "workload" not in flows:
        return out
    kinds = workload_kinds or {}
    w = flows["workload"].to_numpy(dtype=float)
    for i in np.unique(w[np.isfinite(w)]).astype(int).tolist():
        out[w == i] = f"workload {i}" + (f" ({kinds[i]})" if kinds.get(i) else "")
    return out


def traffic_sources(traffic: Iterable[str]) -> list[str]:
    """The distinct labels of :func:`traffic_of`, in order: "[[flows]]", then the workloads by index."""
    return sorted(set(traffic), key=lambda t: (t != "[[flows]]", int(t.split()[1]) if t != "[[flows]]" else -1))


#: The fewest finished flows whose p99 and p99.9 are printed plainly (`dcsim run`'s FCT table, a
#: sweep's results): below, such a percentile lies among the largest one or few values (numpy's
#: linear interpolation), and is marked "~" as rough.
ROUGH_BELOW = (100, 1000)


def fct_stats(flows: pd.DataFrame, edges_bytes: list[float], warmup_s: float = 0.0,
              workload_kinds: Optional[dict[int, str]] = None,
              sources: Optional[dict[str, list[str]]] = None) -> pd.DataFrame:
    """Flow completion times per traffic source, protocol and size bucket, plus "all" rows.

    Counted: finite flows (size given) that started at or after warm-up. Columns: traffic,
    protocol, bucket, flows, finished (the others were still running at the end: the statistics
    cover the finished ones, so many unfinished flows bias them low), afct_s (mean FCT), fct_p50_s,
    fct_p99_s, fct_p999_s (numpy's linear-interpolation percentiles 50, 99, 99.9), slowdown_mean,
    slowdown_p50, slowdown_p99, slowdown_p999 (slowdown = FCT / the flow's ideal FCT on an empty
    network, the ``flows`` column; a p99 of fewer than 100 finished flows and a p99.9 of fewer than
    1000 interpolate between the largest ones: :data:`ROUGH_BELOW`).

    Every bucket of every protocol present gets a row, an empty one with 0 flows and NaN statistics,
    and so does every bucket over all protocols (protocol "all").

    ``traffic`` is "all" when the counted flows come from one source. When they come from several
    (an incast on top of background traffic; finite [[flows]] beside a workload) each source gets
    its own rows (traffic = :func:`traffic_of`, with ``workload_kinds``), so that one source's
    tail is not read as another's, and a last row (traffic, protocol and bucket "all") covers them
    all. ``sources``: the traffic sources (:func:`traffic_of`'s labels) and protocols the scenario
    can count, each given its rows (0 flows where none came) whatever a seed drew, so that a
    sweep's columns are the same in every run (:meth:`Result.fct_sources`; without it, a seed whose
    background workload drew no flow had labelled the incast's rows "dctcp all" and another
    "workload 0 (incast): dctcp all": a review).
    """
    import pandas as pd

    cols = ["traffic", "protocol", "bucket", "flows", "finished", "afct_s", "fct_p50_s", "fct_p99_s", "fct_p999_s",
            "slowdown_mean", "slowdown_p50", "slowdown_p99", "slowdown_p999"]
    f = timed_flows(flows, edges_bytes, warmup_s)
    if f.empty:
        return pd.DataFrame(columns=cols)
    labels = bucket_labels(edges_bytes)

    def row(traffic: str, proto: str, bucket: str, d: pd.DataFrame) -> dict:
        fct = d["fct_s"].to_numpy(dtype=float)
        done = np.isfinite(fct)
        sl = d["slowdown"].to_numpy(dtype=float)[done] if "slowdown" in d else np.array([])
        ok = fct[done]
        q = lambda x, p: float(np.percentile(x, p)) if x.size else float("nan")  # noqa: E731
        return {
            "traffic": traffic, "protocol": proto, "bucket": bucket, "flows": int(len(d)), "finished": int(done.sum()),
            "afct_s": float(ok.mean()) if ok.size else float("nan"), "fct_p50_s": q(ok, 50), "fct_p99_s": q(ok, 99),
            "fct_p999_s": q(ok, 99.9), "slowdown_mean": float(sl.mean()) if sl.size else float("nan"),
            "slowdown_p50": q(sl, 50), "slowdown_p99": q(sl, 99), "slowdown_p999": q(sl, 99.9),
        }

    def block(traffic: str, d: pd.DataFrame) -> list[dict]:
        out = []
        for proto in sorted(set(d["protocol"].unique()) | set((sources or {}).get(traffic, ()))):
            dp = d[d["protocol"] == proto]
            for b in labels:  # every bucket, an empty one too (0 flows): a sweep's table then has a 0
                # there, not a missing value that a mean over seeds would skip (a probe)
                out.append(row(traffic, proto, b, dp[dp["bucket"] == b]))
            out.append(row(traffic, proto, "all", dp))
        for b in labels:  # each bucket over every protocol ("all 10KB-100KB"): the same columns
            # whichever protocols a run has (a sweep over the protocol had each bucket's statistics
            # only under each protocol's name, NaN in the other protocol's rows: a review)
            out.append(row(traffic, "all", b, d[d["bucket"] == b]))
        out.append(row(traffic, "all", "all", d))
        return out

    traffic = traffic_of(f, workload_kinds)
    every = traffic_sources([*traffic, *(sources or {})])
    if len(every) <= 1:
        if sources and every:  # the one source's protocols, under "all"
            sources = {"all": sources.get(every[0], [])}
        rows = block("all", f)
    else:
        rows = [r for t in every for r in block(t, f[traffic == t])] + [row("all", "all", "all", f)]
    return pd.DataFrame(rows, columns=cols)


def active_goodput_bps(delivered_bytes: Any, start_s: Any, fct_s: Any, warmup_s: float, end_s: float) -> np.ndarray:
    """Each flow's payload rate while it ran after warm-up, bit/s: its delivered bytes after warm-up
    over the time from max(warm-up, its start) to its completion (start + FCT) or the end of the
    run; NaN for a flow that ran none of its time after warm-up. (The flows table's goodput_bps
    divides by the whole time after warm-up, which a flow that started later did not have.)"""
    start = np.maximum(np.asarray(start_s, dtype=float), warmup_s)
    fct = np.asarray(fct_s, dtype=float)
    end = np.where(np.isfinite(fct), np.minimum(np.asarray(start_s, dtype=float) + fct, end_s), end_s)
    window = end - start
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(window > 0, np.asarray(delivered_bytes, dtype=float) * 8.0 / window, np.nan)


def link_sharing(paths: Sequence[str]) -> np.ndarray:
    """ECMP collisions: for each flow path ("h0->leaf0->spine2->leaf1->h9"), the most flows of ``paths`` that cross
    one of its links in its direction: 1 when it shares no link, k when k flows share its busiest."""
    hops = [list(zip(p.split("->")[:-1], p.split("->")[1:])) for p in paths]
    count: dict[tuple[str, str], int] = {}
    for h in hops:
        for link in h:
            count[link] = count.get(link, 0) + 1
    return np.array([max((count[link] for link in h), default=1) for h in hops], dtype=int)


def jain_index(x: Any) -> float:
    """Jain's fairness index J = (sum x)^2 / (n * sum x^2) of the allocations x (1 = equal shares, 1/n = one takes all);
    NaN when every allocation is 0 (0/0: nobody got anything, so fairness is undefined)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        raise ValueError("jain_index: no allocations given")
    if np.any(~np.isfinite(x)) or np.any(x < 0):
        raise ValueError("jain_index: allocations must be finite and >= 0")
    s2 = float(np.sum(x * x))
    if s2 == 0:
        return float("nan")  # nobody got anything: fairness is undefined
    return float(np.sum(x)) ** 2 / (x.size * s2)


def summary_inputs(scenario) -> dict:
    """The scenario's settings that :meth:`Result.summary` reads and the engine spec does not
    hold: ``metrics.fct_buckets`` (bytes), the edges of the FCT groups. A sweep's run key
    (:func:`dcsim.sweep.spec.run_key`) holds them, so a cached row is never one of other buckets."""
    return {"fct_buckets_bytes": [float(b.value) for b in scenario.metrics.fct_buckets]}


class Result:
    """Tables of one run plus the scenario that produced them.

    Build with :func:`dcsim.simulate`, or read back with :meth:`Result.from_dir`. Each table is a
    pandas DataFrame (``res.flows``, ``res.ports``, ...); ``res.plot("queue")`` draws one and
    :func:`dcsim.plotting.compare` overlays several runs.

    Tables and their columns (unit, window, meaning):

    """

    def __init__(
        self,
        scenario: Scenario,
        tables: "Union[dict[str, pd.DataFrame], _Tables]",
        *,
        wall_s: Optional[float] = None,
        engine_spec: Optional[dict] = None,
    ) -> None:
        missing = [t for t in TABLES if t not in tables]
        if missing:
            raise ValueError(f"result: the engine returned no table(s) {', '.join(missing)}; got {', '.join(tables)}")
        self.scenario = scenario
        self.tables = tables if isinstance(tables, _Tables) else _Tables({}, dict(tables))
        self.wall_s = wall_s
        #: A run that run.max_wall or metrics.max_memory (its queues or its running generated
        #: flows, one world) stopped (see :func:`dcsim.simulate`): {"field", "max_wall_s" or "max_memory_bytes",
        #: "duration_s" asked for (the scenario's run.duration), "simulated_s" (the engine spec's
        #: duration, :attr:`duration_s`)}; else None.
        self.stopped: Optional[dict] = None
        self.engine_spec = engine_spec if engine_spec is not None else scenario.to_engine_spec()

    @classmethod
    def from_engine(cls, scenario: Scenario, raw: dict, **kw: Any) -> "Result":
        """From ``_core.Simulation.results()``: a dict of tables, each a dict of equal-length columns.

        Each table becomes a DataFrame, with the label columns of :mod:`dcsim.schema` ("sw->r",
        "s0->r #0") as categoricals, when it is first asked for: summaries and files need no
        pandas (`dcsim run` does not import it).

        The numeric columns are not copied: the engine moved them into numpy arrays and the
        DataFrames use those arrays (``copy=False``), so a sampled series is held once (the
        memory bound, ``metrics.max_memory``, counts it so)."""
        for name, cols in raw.items():
            lengths = {c: len(v) for c, v in cols.items()}
            if len(set(lengths.values())) > 1:
                raise ValueError(f"result: table {name!r} has columns of different lengths {lengths}")
        return cls(scenario, _Tables({n: {c: v if isinstance(v, list) else np.asarray(v) for c, v in cols.items()}
                                      for n, cols in raw.items()}, {}), **kw)

    @classmethod
    def from_dir(cls, out: Union[str, Path]) -> "Result":
        """Read back what :meth:`to_dir` wrote (a ``dcsim run`` directory, or a sweep's
        OUT/runs/<run_id>/). Raises :class:`ResultDirError` naming the directory, the file and what
        is wrong with it (missing, not Parquet, another table's columns) before returning anything."""
        import pandas as pd
        import pyarrow as pa

        out = dir_path(out)
        if not out.is_dir():
            raise ResultDirError(f"{out}: {'not a directory' if out.exists() else 'no such directory'}")
        if not (out / "scenario.toml").is_file():
            kind = ("a sweep's directory: its runs are in runs/<run_id>/" if (out / "sweep.json").exists()
                    else "not a run's directory (dcsim run writes scenario.toml and the tables)")
            raise ResultDirError(f"{out}: no scenario.toml; {kind}")
        try:
            scenario = load_scenario(out / "scenario.toml")
        except ValueError as e:
            msg = str(e)
            raise ResultDirError(msg if msg.startswith(str(out)) else f"{out / 'scenario.toml'}: {msg}") from None
        tables = {}
        for t in TABLES:
            path = out / f"{t}.parquet"
            if t in LATER_TABLES and not path.exists():
                continue  # written by a newer dcsim than the run's
            if not path.is_file():
                raise ResultDirError(f"{path}: {'not a file' if path.exists() else 'missing'}; every run writes its {t} table")
            try:
                # Label columns read as dictionaries (pandas categoricals), not as a string per row.
                with open(path, "rb") as f:  # a path that is not UTF-8 is a str Arrow refuses
                    df = pd.read_parquet(f, read_dictionary=schema.LABEL_COLUMNS.get(t) or None)
            except (OSError, pa.ArrowException) as e:
                raise ResultDirError(f"{path}: not a readable Parquet file ({e})") from None
            lacking = [c.name for c in schema.SCHEMA[t] if c.name not in df.columns]
            if lacking:
                raise ResultDirError(f"{path}: lacks the {t} table's columns {', '.join(lacking[:5])}"
                                     f"{' ...' if len(lacking) > 5 else ''} (another table's file, or another dcsim's)")
            tables[t] = df
        for t in LATER_TABLES:
            tables.setdefault(t, pd.DataFrame())
        _restore_categories(tables)
        spec_path = out / "engine_spec.json"
        spec = None
        if spec_path.exists():
            try:
                spec = json.loads(spec_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise ResultDirError(f"{spec_path}: not a readable engine spec ({e})") from None
            if not isinstance(spec, dict) or not isinstance(spec.get("duration_ps"), int):
                raise ResultDirError(f"{spec_path}: not an engine spec (a JSON table with duration_ps)")
        problem = _not_one_run(out)  # each file readable, but are they one run's? (a probe mixed two runs)
        if problem:
            raise ResultDirError(f"{out / problem[0]}: {problem[1]}; the directory's files are not those of one run "
                                 "(a file removed, copied from another run, or changed since the run wrote it)")
        res = cls(scenario, tables, engine_spec=spec, wall_s=_summary_wall_s(out / "summary.json"))
        res.stopped = _summary_stopped(out / "summary.json")
        return res

    def _col(self, table: str, column: str) -> np.ndarray:
        """One column as a numpy array, without building the DataFrame (strings: an object array)."""
        return self.tables.column(table, column)

    def _rows(self, table: str) -> int:
        return self.tables.rows(table)

    def _records(self, table: str, mask: Optional[np.ndarray] = None) -> list[dict]:
        """The rows of ``table`` (where ``mask``) as dicts of Python values, without pandas."""
        cols = self.tables.columns(table)
        data = {c: self._col(table, c) for c in cols}
        if mask is not None:
            data = {c: v[mask] for c, v in data.items()}
        lists = {c: v.tolist() for c, v in data.items()}
        return [dict(zip(lists, vals)) for vals in zip(*lists.values())]

    # -- tables ---------------------------------------------------------------------------------
    def _table(self, name: str) -> pd.DataFrame:
        """Table ``name`` as a DataFrame of its own: changing it (a column, its rows, its values in
        place) leaves the Result as the run left it (``f = res.flows; f["goodput_bps"] /= 1e9``
        changed summary(), jain_index() and what to_dir wrote: an API probe). With pandas'
        copy-on-write (pandas >= 3, or its option set) the copy shares the arrays until one is
        written; under pandas 2 without it, the values are copied. ``res.tables[name]`` is the
        Result's own table, for those who mean to change what it holds and writes."""
        return self.tables[name].copy(deep=not _pandas_copy_on_write())

    @property
    def queue(self) -> pd.DataFrame:
        """The ``queue`` table: samples of each monitored queue every metrics.queue_interval (for plots; statistics come from the exact trajectory in ports and queue_hist; an "auto" interval, the default, is lengthened to fit metrics.max_memory: the one used is in engine_spec.json) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("queue")

    @property
    def throughput(self) -> pd.DataFrame:
        """The ``throughput`` table: each traced flow's goodput over each metrics.throughput_interval (traced: metrics.trace_flows, by default the first 100 listed flows; a workload's generated flows only when named by id) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("throughput")

    @property
    def cwnd(self) -> pd.DataFrame:
        """The ``cwnd`` table: each running traced flow's window, α and SRTT every metrics.cwnd_interval (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("cwnd")

    @property
    def flows(self) -> pd.DataFrame:
        """The ``flows`` table: one row per flow (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("flows")

    @property
    def ports(self) -> pd.DataFrame:
        """The ``ports`` table: one row per egress port (queue + link) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("ports")

    @property
    def queue_hist(self) -> pd.DataFrame:
        """The ``queue_hist`` table: the exact distribution of each monitored queue's length over time after warm-up (for CDFs) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("queue_hist")

    @property
    def counters(self) -> pd.DataFrame:
        """The ``counters`` table: packet conservation, one row: sent = delivered + dropped + in flight (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("counters")

    # -- derived --------------------------------------------------------------------------------
    @property
    def duration_s(self) -> float:
        return self.engine_spec["duration_ps"] / 1e12

    @property
    def warmup_s(self) -> float:
        return self.engine_spec["warmup_ps"] / 1e12

    def port_labels(self) -> dict[Any, str]:
        """Port id -> "src->dst"."""
        ids, src, dst = (self._col("ports", c).tolist() for c in ("port", "src", "dst"))
        return {pid: f"{s}->{d}" for pid, s, d in zip(ids, src, dst)}

    def plot(self, kind: str = "queue", path: Optional[Union[str, Path]] = None):
        """Draw one table; ``kind`` is the table's name:

        * "queue": queue length vs time (and a zoom on its last periods); "cwnd": window (and α)
          of each source vs time; "throughput": goodput of each flow vs time; "queue_hist": the
          queue-length CDF; "flows": goodput and mean window per flow; "ports": utilization and
          mean queue per monitored port; "counters": packets sent, delivered, dropped, in flight;
        * "workloads": target vs realised load per workload; "rounds": completion time per incast
          round;
        * "rates": each L2 source's rate vs time; "sources": goodput and realised feedback loop
          delay per L2 source; "cps": samples and feedback frames per L2 congestion point;
        * "fct": the slowdown CDF and percentiles per flow-size bucket of the finished finite
          flows; "tiers": a leaf-spine's or fat-tree's port utilization and losses by tier;
          "permutation": a permutation workload's goodput per flow.

        Returns the matplotlib Figure; with ``path`` it is also saved, whole or not at all (PNG, PDF, SVG, ... by
        its suffix; a name without one, or a folder, is refused).
        Raises ValueError for an unknown kind or a run without what it draws (say, "rounds" without an incast).
        """
        from dcsim.plotting import KINDS

        if not isinstance(kind, str) or kind not in KINDS:
            raise ValueError(f"plot: kind {kind!r} is not one of {', '.join(KINDS)}")
        return KINDS[kind](self, path)  # each refuses a run without its data

    def monitored_ports(self) -> pd.DataFrame:
        """The rows of ``ports`` whose queue is monitored."""
        p = self.ports
        return p[p["monitored"].astype(bool)]

    def jain_index(self, window: Union[None, float, tuple[float, float]] = None, of: str = "flows") -> float:
        """Jain's fairness index of the flows' goodputs.

        ``window=None``: the per-flow goodput after warm-up (flows table). ``window=0.5``: the mean
        throughput of each flow over the last 0.5 s of the run; ``window=(t0, t1)``: over [t0, t1] s
        (from the throughput series; only intervals lying wholly inside the window count).
        ``of="l2"``: of the L2 sources' goodputs after warm-up instead (the listed sources without
        a size, which run to the end: :meth:`l2_long_lived`; ``window`` must be None).

        NaN when no flow (source) delivered a byte in the window: the index is 0/0 there, undefined
        (``summary()["jain_index"]`` is then None, and ``dcsim run`` prints "-"); a NaN, not an
        error, so that a sweep's column keeps the run and pandas' means skip it visibly (``count``).
        """
        if of == "l2":
            if window is not None:
                raise ValueError("jain_index: window applies to the flows (of=\"flows\"); the L2 sources' index is "
                                 "over their goodput after warm-up (window=None)")
            x = self._l2_long_lived_goodput()
            if x is None:
                raise ValueError("jain_index: of=\"l2\": the run has no L2 source without a size (the index is over "
                                 "the long-lived ones)")
            return jain_index(x)
        if of != "flows":
            raise ValueError(f"jain_index: of = {of!r}; allowed \"flows\" or \"l2\"")
        listed = self.listed_flows()
        if listed.empty:
            raise ValueError("jain_index: the scenario lists no [[flows]]; the index is over the listed flows "
                             "(a workload's generated flows come and go: see fct_stats() for them"
                             + ("; for the L2 sources: of=\"l2\")" if self._rows("sources") else ")"))
        if window is None:
            return jain_index(listed["goodput_bps"].to_numpy(dtype=float))
        t0, t1 = _window_bounds(window, self.duration_s)
        if not (t1 > t0):
            raise ValueError(f"jain_index: window {window!r} is empty; allowed a length > 0 s or (t0, t1) with t0 < t1")
        end = self.duration_s
        if t0 < -1e-12 or t1 > end + 1e-12:  # beyond the run: the mean would silently cover less
            raise ValueError(f"jain_index: window {window!r} reaches beyond the run [0, {end:g}] s; allowed a "
                             f"length in (0, {end:g}] s, or (t0, t1) with 0 <= t0 < t1 <= {end:g}")
        dt = self.engine_spec["metrics"]["throughput_interval_ps"] / 1e12
        tp = self.throughput
        eps = 1e-12
        inside = tp[(tp["t_s"] - dt >= t0 - eps) & (tp["t_s"] <= t1 + eps)]
        if inside.empty:
            raise ValueError(f"jain_index: no throughput samples in [{t0:g}, {t1:g}] s")
        traced = set(tp["flow"].unique().tolist())
        untraced = [f for f in listed["flow"].tolist() if f not in traced]
        if untraced:  # their goodput is not 0: it was not recorded (an API probe found them counted as 0)
            raise ValueError(
                f"jain_index: window: {len(untraced)} of the {len(listed)} listed flows have no goodput series "
                f"(metrics.trace_flows chose the traced flows; the first untraced is flow {untraced[0]}): set "
                f"metrics.trace_flows = \"all\", or use window=None (each flow's goodput after warm-up, from the flows table)")
        means = inside.groupby("flow")["goodput_bps"].mean()
        per_flow = means.reindex(listed["flow"], fill_value=0.0)  # traced, but sent nothing in the window
        return jain_index(per_flow.to_numpy(dtype=float))

    def listed_flows(self) -> pd.DataFrame:
        """The scenario's [[flows]] (not the flows its workloads generated)."""
        f = self.flows
        return f[~np.isfinite(f["workload"].to_numpy(dtype=float))] if "workload" in f else f

    @property
    def workloads(self) -> pd.DataFrame:
        """The ``workloads`` table: offered and realised load of each [[workloads]] entry (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("workloads")

    @property
    def rounds(self) -> pd.DataFrame:
        """The ``rounds`` table: each incast round's start, end and completion time (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("rounds")

    @property
    def sources(self) -> pd.DataFrame:
        """The ``sources`` table: one row per L2 rate source: rates, frames, drops, loop delays, FCT (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("sources")

    @property
    def rates(self) -> pd.DataFrame:
        """The ``rates`` table: each L2 source's rate every l2.rate_interval (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("rates")

    @property
    def cps(self) -> pd.DataFrame:
        """The ``cps`` table: one row per L2 congestion point: samples and feedback frames (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self._table("cps")

    def _workload_index(self, workload: int) -> int:
        """``workload`` checked against the scenario's workloads (ValueError naming the range)."""
        n = len(self.scenario.workloads or [])
        if isinstance(workload, bool) or not isinstance(workload, numbers.Integral) or not 0 <= workload < n:
            allowed = f"0 .. {n - 1}" if n else "none: the scenario has no [[workloads]]"
            raise ValueError(f"workload: {workload!r} is out of range; allowed {allowed}")
        return int(workload)

    def _of_workload(self, workload: int) -> np.ndarray:
        """Mask of the flows table's rows that workload ``workload`` generated."""
        return self._col("flows", "workload").astype(float) == self._workload_index(workload)

    def active_goodput(self, workload: int) -> np.ndarray:
        """:func:`active_goodput_bps` of workload ``workload``'s flows, in the flows table's order."""
        mine = self._of_workload(workload)
        col = lambda c: self._col("flows", c).astype(float)[mine]  # noqa: E731
        return active_goodput_bps(col("delivered_bytes"), col("start_s"), col("fct_s"), self.warmup_s, self.duration_s)

    def flow_paths(self, workload: int) -> np.ndarray:
        """The paths ("h0->leaf0->spine2->leaf1->h9") of workload ``workload``'s flows, in the flows table's order."""
        return self._col("flows", "path").astype(str)[self._of_workload(workload)]

    def fct_stats(self) -> pd.DataFrame:
        """AFCT, p50/p99/p99.9 FCT and slowdown per protocol and flow-size bucket (metrics.fct_buckets),
        flows that started after warm-up (see :func:`fct_stats`)."""
        edges = summary_inputs(self.scenario)["fct_buckets_bytes"]
        return fct_stats(self.flows, edges, self.warmup_s, self._workload_kinds(), self.fct_sources())

    def fct_sources(self) -> dict[str, list[str]]:
        """The traffic sources whose flows the FCT statistics may count, by the scenario (not by
        what a seed drew), with their protocols: "[[flows]]" for listed flows with a size, and
        "workload i (kind)" for each workload that generates flows with sizes (a permutation's only
        with ``size``)."""
        out: dict[str, set] = {}
        listed = {f.protocol for f in self.scenario.flows if f.size is not None}
        if listed:
            out["[[flows]]"] = listed
        for i, w in enumerate(self.scenario.workloads):
            if w.kind != "permutation" or w.size is not None:
                out[f"workload {i} ({w.kind})"] = {c.protocol for c in w.classes()}
        return {k: sorted(v) for k, v in out.items()}

    def _workload_kinds(self) -> dict[int, str]:
        """[[workloads]] entry -> its kind ("poisson", "incast", "trace", "permutation")."""
        if not self._rows("workloads"):
            return {}
        return dict(zip(self._col("workloads", "workload").tolist(), self._col("workloads", "kind").tolist()))

    def tier_stats(self) -> pd.DataFrame:
        """A leaf-spine's or fat-tree's ports by tier and direction, after warm-up (every port, not
        only the monitored ones): one row per tier, in path order ("host up", ..., "host down";
        see :meth:`dcsim.scenario.Network.fabric_port_tiers`). Columns: ``schema.SUMMARY_DERIVED["tiers"]``
        (tier, ports, rate_bps, util_mean, util_max, q_mean_pkt, q_max_pkt, tx_bytes, drops,
        marks). Empty for other topologies."""
        import pandas as pd

        return pd.DataFrame(self._tier_rows(), columns=[c.name for c in schema.SUMMARY_DERIVED["tiers"]])

    def trace(self, workload: Optional[int] = None) -> pd.DataFrame:
        """The flows the workloads generated (or workload ``workload``'s), as a trace: start_s,
        src, dst, size_bytes, protocol, in start order. :meth:`write_trace` writes it as a trace file.
        Raises ValueError naming the workload if its flows are long-lived (a permutation's)."""
        f = self.flows
        if workload is not None:
            workload = self._workload_index(workload)
        if "workload" in f:
            w = f["workload"].to_numpy(dtype=float)
            f = f[np.isfinite(w) if workload is None else (w == workload)]
        else:
            f = f.iloc[:0]
        endless = ~np.isfinite(f["size_bytes"].to_numpy(dtype=float))
        if endless.any():  # a trace's flows have sizes (pandas' "cannot convert non-finite values" before)
            which = sorted({int(w) for w in f["workload"].to_numpy(dtype=float)[endless]})
            kinds = self._workload_kinds()
            named = ", ".join(f"workloads[{w}] ({kinds.get(w, '?')})" for w in which)
            raise ValueError(f"trace: {named} generated long-lived flows (no size), which a trace cannot hold"
                             + ("" if workload is not None else "; give workload= of a workload of sized flows"))
        out = f[["start_s", "src", "dst", "size_bytes", "protocol"]].astype(
            {"src": str, "dst": str, "size_bytes": "int64", "protocol": str})
        return out.sort_values("start_s", kind="stable").reset_index(drop=True)

    def write_trace(self, path: Union[str, Path], workload: Optional[int] = None) -> Path:
        """Write :meth:`trace` as a trace file (``start,src,dst,size``: exact seconds and bytes;
        and ``protocol``, where the flows ran more than one class). Replayed by a ``kind =
        "trace"`` workload with the same network, transport (the protocol, or a mix with the same
        classes) and seed, it gives the same flows and completion times, bit for bit
        (tests/test_trace_workload.py): each flow of a mix replays as the class of its protocol.
        Where two of the classes the flows ran have the same protocol with other options, the file
        cannot tell them apart: a replay keeps each flow's protocol but draws which of its classes
        it runs as, and a :class:`dcsim.ScenarioWarning` says that the replay is not exact. Raises ValueError, writing nothing, if a host's name cannot be a field of the
        file's lines (a graph's node named with whitespace, a comma or ``#``)."""
        from dcsim.scenario import ScenarioWarning, not_a_trace_field

        t = self.trace(workload)
        bad = sorted({h for h in (*t["src"].unique(), *t["dst"].unique()) if not_a_trace_field(h)})
        if bad:
            raise ValueError(f"write_trace: host {bad[0]!r} cannot be a field of a trace file's line (no whitespace, "
                             "',' or '#'); rename the node, or give the flows inline: trace() returns them")
        workloads = self.scenario.workloads or []
        chosen = range(len(workloads)) if workload is None else [self._workload_index(workload)]
        # The transports the flows may have run: (workload, class, protocol, its options but the share).
        runs = [(i, k, c.protocol, json.dumps({**c.to_engine(), "share": None}, sort_keys=True))
                for i in chosen for k, c in enumerate(workloads[i].classes())]
        named = len({opts for *_, opts in runs}) > 1
        options: dict[str, set] = {}
        for _, _, p, opts in runs:
            options.setdefault(p, set()).add(opts)
        alike = sorted(p for p, opts in options.items() if len(opts) > 1)
        if alike:
            import warnings

            where = [f"workloads[{i}]" + (f".mix[{k}]" if workloads[i].mix else "") for i, k, p, _ in runs if p == alike[0]]
            warnings.warn(f"write_trace: {', '.join(where)} run {alike[0]} with different options; a trace file names "
                          "a flow's protocol only, so a replay keeps each of these flows' protocol but draws which of "
                          "its classes the flow runs as: the replay is not exact (it is where the classes' protocols "
                          "differ)", ScenarioWarning, stacklevel=2)
        flows = TraceFlows()  # the file's lines as a trace's own writer writes them (read_trace reads them back)
        for s, a, b, n, p in zip(t["start_s"].tolist(), t["src"], t["dst"], t["size_bytes"].tolist(), t["protocol"]):
            flows.add((s, a, b, float(n), False, None, None, p if named else None))
        from dcsim._files import file_path

        path = file_path(path, "write_trace: path")
        path.write_text("".join(flows.csv_lines()), encoding="utf-8")
        return path

    def port_tiers(self) -> Optional[np.ndarray]:
        """The tier and direction of each row of ``ports`` ("host up", ...; "" for a port of no
        tier; see :meth:`dcsim.scenario.Network.fabric_port_tiers`), or None if the topology is no
        fabric."""
        codes = self._port_tier_codes()
        if codes is None:
            return None
        return np.array([*self.scenario.network.fabric_tier_order(), ""])[codes]

    def _port_tier_codes(self) -> Optional[np.ndarray]:
        """Each row of ``ports``' index into ``fabric_tier_order()`` (-1: none), or None if the
        topology is no fabric."""
        net = self.scenario.network
        if net.topology not in FABRIC_TIERS or not self._rows("ports"):
            return None
        return net.fabric_port_tiers(self._col("ports", "src"), self._col("ports", "dst"))

    def _tier_rows(self) -> list[dict]:
        """The rows of :meth:`tier_stats`, computed with numpy (the summary's "tiers")."""
        tier = self._port_tier_codes()
        if tier is None:
            return []
        net, col = self.scenario.network, self._col
        values = {k: col("ports", k).astype(float) for k in ("rate_bps", "utilization", "q_mean_pkt", "q_max_pkt")}
        counts = {k: col("ports", k).astype(np.int64) for k in ("tx_bytes", "drops", "marks")}
        rows = []
        for i, name in enumerate(net.fabric_tier_order()):
            m = tier == i
            if not m.any():
                continue
            rate = values["rate_bps"][m]
            rows.append({
                "tier": name, "ports": int(m.sum()),
                "rate_bps": float(rate[0]) if np.all(rate == rate[0]) else float("nan"),
                "util_mean": float(np.mean(values["utilization"][m])),
                "util_max": float(np.max(values["utilization"][m])),
                "q_mean_pkt": float(np.mean(values["q_mean_pkt"][m])),
                "q_max_pkt": float(np.max(values["q_max_pkt"][m])),
                **{k: int(np.sum(v[m])) for k, v in counts.items()},
            })
        return rows

    def _listed_mask(self) -> np.ndarray:
        """Rows of ``flows`` that are the scenario's [[flows]] (not generated by a workload)."""
        n = self._rows("flows")
        if "workload" not in self.tables.columns("flows"):
            return np.ones(n, dtype=bool)
        return ~np.isfinite(self._col("flows", "workload").astype(float))

    def summary(self) -> dict:
        """Per-port utilization and queue statistics, per-flow goodput, Jain's index, totals (JSON-ready).

        Computed from the columns with numpy (no DataFrame is built; pandas is imported only for
        the FCT groups of finite flows)."""
        col = self._col
        listed = self._listed_mask()
        flows = []
        # Generated flows (thousands) are summarised by their FCT statistics, not listed.
        for row in self._records("flows", listed):
            flows.append(
                {
                    "flow": row["flow"],
                    "src": row["src"],
                    "dst": row["dst"],
                    "protocol": row["protocol"],
                    "start_s": row["start_s"],
                    "size_bytes": row["size_bytes"],
                    "goodput_bps": row["goodput_bps"],
                    "delivered_bytes": row["delivered_bytes"],
                    "sent_pkts": row["sent_pkts"],
                    "retransmits": row["retransmits"],
                    "timeouts": row["timeouts"],
                    "fast_retransmits": row.get("fast_retransmits"),
                    "marks": row["marks"],
                    "ecn_cuts": row.get("ecn_cuts"),
                    "fct_s": row["fct_s"],
                    "drops": row.get("drops"),
                    "ecn_cut_mean_frac": row.get("ecn_cut_mean_frac"),
                    "slowdown": row.get("slowdown"),
                    "cwnd_mean_pkt": row["cwnd_mean_pkt"],
                    "alpha_mean": row["alpha_mean"],
                    # once-per-RTT window decisions (DX): the paper's p, DX's measured Q and R0
                    "rtt_rounds": row.get("rtt_rounds"),
                    "p_decrease": row.get("p_decrease"),
                    "q_delay_mean_s": row.get("q_delay_mean_s"),
                    "base_rtt_s": row.get("base_rtt_s"),
                    "p_queued_per_ack": (row["rtt_samples_queued"] / row["rtt_samples"]
                                         if row.get("rtt_samples") else None),
                }
            )
        ports = []
        monitored = col("ports", "monitored").astype(bool)
        for row in self._records("ports", monitored):
            ports.append(
                {
                    "port": f"{row['src']}->{row['dst']}",
                    "rate_bps": row["rate_bps"],
                    "utilization": row["utilization"],
                    "q_mean_pkt": row["q_mean_pkt"],
                    "q_p50_pkt": row["q_p50_pkt"],
                    "q_p99_pkt": row["q_p99_pkt"],
                    "q_max_pkt": row["q_max_pkt"],
                    "q_min_pkt": row["q_min_pkt"],
                    "q_empty_frac": row["q_empty_frac"],
                    "idle_s": row["idle_s"],
                    "drops": row["drops"],
                    "marks": row["marks"],
                    "evictions": row.get("evictions"),
                    "tx_bytes": row["tx_bytes"],
                    "drops_whole_run": row["drops_whole_run"],
                    "marks_whole_run": row["marks_whole_run"],
                }
            )
        c = self._records("counters")[0] if self._rows("counters") else {}
        f_goodput = col("flows", "goodput_bps").astype(float)
        goodput = f_goodput[listed]
        fin = col("flows", "fct_s").astype(float)
        total = lambda t, k: int(np.sum(col(t, k))) if self._rows(t) else 0  # noqa: E731
        out = {
            "scenario": self.scenario.describe(),
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "seed": self.engine_spec["seed"],
            "wall_s": self.wall_s,
            "events": c.get("events"),
            "events_per_wall_s": (c["events"] / self.wall_s) if (self.wall_s and "events" in c) else None,
            "packets": {k: c.get(k) for k in ("sent_pkts", "delivered_pkts", "dropped_pkts", "in_flight_pkts")},
            "goodput_total_bps": float(np.nansum(f_goodput)),
            "goodput_mean_bps": float(np.nanmean(goodput)) if goodput.size else None,
            "jain_index": jain_index(goodput) if goodput.size else None,
            "flows_finished": int(np.sum(np.isfinite(fin))),
            "after_warmup": {
                "delivered_bytes": total("flows", "delivered_bytes"),
                "retransmits": total("flows", "retransmits"),
                "timeouts": total("flows", "timeouts"),
                "drops": total("ports", "drops"),
                "data_drops": total("flows", "drops"),
                "marks": total("ports", "marks"),
            },
            "whole_run": {
                "delivered_bytes": total("flows", "delivered_bytes_whole_run"),
                "retransmits": total("flows", "retransmits_whole_run"),
                "timeouts": total("flows", "timeouts_whole_run"),
                "drops": total("ports", "drops_whole_run"),
                "data_drops": total("flows", "drops_whole_run"),
                "marks": total("ports", "marks_whole_run"),
            },
            "ports": ports,
            "flows": flows,
        }
        tiers = self._tier_rows()
        if tiers:
            out["tiers"] = tiers
        # FCT groups: only finite flows that started after warm-up count (see fct_stats); pandas
        # is imported only when there are some.
        timed = timed_mask(col("flows", "size_bytes"), col("flows", "start_s"), self.warmup_s)
        fs = self.fct_stats() if timed.any() else None
        if fs is not None and len(fs):
            out["fct_groups"] = [
                {"fct_group": fct_group_label(r), **{k: r[k] for k in fs.columns if k not in ("traffic", "protocol", "bucket")}}
                for r in fs.to_dict("records")
            ]
        if self._rows("workloads"):
            out["workloads"] = [self._workload_summary(r) for r in self._records("workloads")]
        if self._rows("sources"):
            keep = ("source", "label", "scheme", "rate_final_bps", "goodput_bps", "sent_frames", "sent_bytes",
                    "delivered_bytes", "dropped_frames", "feedback_frames", "loop_delay_mean_s", "loop_delay_min_s",
                    "loop_delay_max_s", "fct_s")
            out["sources"] = [{k: r[k] for k in keep} for r in self._records("sources")]
            sent, dropped = total("sources", "sent_frames"), total("sources", "dropped_frames")
            out["l2_goodput_total_bps"] = float(np.nansum(col("sources", "goodput_bps").astype(float)))
            long_lived = self._l2_long_lived_goodput()
            out["l2_jain_index"] = jain_index(long_lived) if long_lived is not None else None
            out["l2_dropped_frames"] = dropped
            out["l2_drop_pct"] = 100.0 * dropped / sent if sent else None
        if self.stopped is not None:
            out["stopped"] = dict(self.stopped)
        return jsonable(out)

    def _l2_long_lived_goodput(self) -> Optional[np.ndarray]:
        """The goodputs after warm-up (bit/s) of the listed L2 sources without a size (long-lived:
        not a Poisson short flow, not a sized transfer), or None if there are none."""
        if not self._rows("sources"):
            return None
        keep = np.isnan(self._col("sources", "size_bytes").astype(float))
        if "poisson" in self.sources.columns:
            keep &= np.isnan(self._col("sources", "poisson").astype(float))
        x = self._col("sources", "goodput_bps").astype(float)[keep]
        return x if x.size else None

    def _workload_summary(self, r: dict) -> dict:
        """One workload: offered vs realised load (Poisson), round completion times (incast)."""
        w = int(r["workload"])
        its_flows = self._of_workload(w)
        delivered = int(np.sum(self._col("flows", "delivered_bytes_whole_run")[its_flows]))
        out = {"workload": w, "kind": r["kind"], "link": r["link"], "target_load": r["target_load"],
               "realised_load": r["realised_load"], "flows": r["flows"], "bytes": r["bytes"],
               "delivered_bytes": delivered,
               "delivered_frac": delivered / r["bytes"] if r["bytes"] else None}
        if r["kind"] == "trace" and w < len(self.scenario.workloads):
            out["arrivals"] = len(self.scenario.workloads[w].arrivals)
        if r["kind"] == "permutation":
            g = self.active_goodput(w)
            g = g[np.isfinite(g)]
            out.update({"goodput_mean_bps": float(g.mean()) if g.size else None,
                        "goodput_min_bps": float(g.min()) if g.size else None,
                        "goodput_max_bps": float(g.max()) if g.size else None,
                        "goodput_jain": jain_index(g) if g.size and g.sum() > 0 else None})
        if r["kind"] == "incast":
            if self._rows("rounds"):
                mine = self._col("rounds", "workload") == w
                comp = self._col("rounds", "completion_s").astype(float)[mine]
            else:
                mine, comp = np.zeros(0, dtype=bool), np.array([])
            done = comp[np.isfinite(comp)]
            if w < len(self.scenario.workloads):
                out["rounds_requested"] = int(self.scenario.workloads[w].rounds)
            out.update({"rounds": int(mine.sum()), "rounds_completed": int(done.size),
                        "round_completion_mean_s": float(done.mean()) if done.size else None,
                        "round_completion_max_s": float(done.max()) if done.size else None})
        return out

    # -- files ----------------------------------------------------------------------------------
    def to_dir(self, out: Union[str, Path], *, summary: Optional[dict] = None, force: bool = False) -> list[Path]:
        """Write the result into directory ``out`` as ``dcsim run`` does (:meth:`write_into`), and
        by the same rule: ``out`` is replaced whole, so it must be new, empty, or a previous run's
        (nothing in it but that run's files); another directory only with ``force=True``. A
        background plotter of an earlier run still drawing there is stopped first. The files are
        written into a temporary sibling that takes ``out``'s place when they are: a reader never
        sees one run's files beside another's (a robustness probe found a CLI run's plots arriving
        beside an API run's tables, under the CLI run's manifest). If a file cannot be written the
        others are still put in place, and :class:`WriteError` names it. Returns the files in
        ``out``, tables first. Raises ValueError (naming ``out``) before writing anything if the
        directory may not be replaced, or if another process (a ``dcsim run``) writes it now.
        The directory's manifest (``dcsim-manifest.json``) lists the files with their sizes and
        CRC-32, as a ``dcsim run``'s does."""
        from dcsim._files import MANIFEST, atomic_dir
        from dcsim.run import check_out_dir, out_dir_lock, stop_previous_plotter, write_manifest

        out = dir_path(out)
        _check_summary(summary, "to_dir")
        if not isinstance(force, bool):  # force="no" is truthy: it had replaced a user's directory (a review)
            raise ValueError(f"force: expected True or False, got {force!r}")
        check_out_dir(out, force, names=("out", "force=True"))
        failed: list[str] = []
        with out_dir_lock(out, opt="out"), atomic_dir(out) as tmp:
            try:
                files = self.write_into(tmp, summary=summary)
            except WriteError as e:
                files, failed = list(e.written), e.errors
            try:  # as `dcsim run` lists its files: from_dir then reads only files of one run
                files.append(write_manifest(tmp, files))
            except OSError as e:
                failed.append(f"{MANIFEST}: {type(e).__name__}: {e}")
            stop_previous_plotter(out)
        placed = [out / p.name for p in files]
        if failed:
            # the messages name the files where they are now, not in the temporary sibling (a review)
            raise WriteError(placed, [m.replace(str(tmp), str(out)) for m in failed])
        return placed

    def write_into(self, out: Union[str, Path], *, summary: Optional[dict] = None,
                   meanwhile: Optional[Callable[[], None]] = None) -> list[Path]:
        """Write every table as Parquet, and scenario.toml, engine_spec.json and summary.json
        (``summary``: :meth:`summary` when the caller has it already), into directory ``out``
        beside whatever it holds (:meth:`to_dir` is the rule for a user's directory); a trace of
        more than TRACE_INLINE_MAX_FLOWS flows as a trace file (TRACE_FILE) that scenario.toml
        names. Returns the files, tables first.

        The tables are written by :data:`WRITER_THREADS` threads (the engine's writer encodes and
        writes them without the GIL) while
        this one writes the other files and calls ``meanwhile()`` (`dcsim run` prints its summary
        then). Each file is written on its own: one that fails stops none
        of the others, its partial file is removed, it is tried once more when the others are
        written (smallest first: on a full disk, what fits is kept), and then :class:`WriteError` names every file
        that failed and lists those written, so nothing computed is lost to one failed write.
        """
        out = Path(out)
        _check_summary(summary, "write_into")
        out.mkdir(parents=True, exist_ok=True)
        tables = [(out / f"{name}.parquet", self.tables.parquet_writer(name)) for name in TABLES]  # snapshots, here
        cells = [self._rows(name) * len(self.tables.columns(name)) for name in TABLES]
        texts: list[tuple[Path, Callable[[Path], None]]] = []  # the text files' writers, for a second try
        done = _write_in_threads(tables, WRITER_THREADS, lambda: self._write_text_files(out, summary, meanwhile, texts),
                                 sizes=cells)
        # A file that failed (a full disk: two threads each ran out of space mid-file) is tried
        # once more, one at a time, the smallest first, now that the partial files are removed:
        # the scenario and the small tables fit where the largest table did not.
        by_size = sorted(range(len(tables)), key=lambda i: cells[i])
        done.update(_retry_failed(done, [*texts, *(tables[i] for i in by_size)]))
        files = [p for p, err in done.items() if err is None]
        failed = [f"{p.name}: {err}" for p, err in done.items() if err is not None]
        if failed:
            raise WriteError(files, failed)
        return files

    def _write_text_files(self, out: Path, summary: Optional[dict], meanwhile: Optional[Callable[[], None]],
                          writers: list[tuple[Path, Callable[[Path], None]]]) -> dict[Path, Optional[str]]:
        """``meanwhile()``, then the large traces' files, scenario.toml, engine_spec.json and
        summary.json: {path: None, or why it failed}; the last three's (path, writer) are
        appended to ``writers`` (a trace file is not tried again: scenario.toml names it only if
        it was written, and otherwise holds its flows)."""
        if meanwhile is not None:
            meanwhile()
        done: dict[Path, Optional[str]] = {}
        beside: dict[int, str] = {}  # large traces, written as trace files that scenario.toml names
        for i, w in enumerate(self.scenario.workloads):
            flows = w.arrivals
            if w.kind == "trace" and len(flows) > TRACE_INLINE_MAX_FLOWS and flows.fits_a_file():
                path = out / TRACE_FILE.format(i=i)
                done[path] = _attempt(lambda: _write_lines(path, flows.csv_lines()), path)
                if done[path] is None:
                    beside[i] = path.name  # else held inline: scenario.toml still has every flow
        for name, text in (
            ("scenario.toml", lambda: self.scenario.to_toml(trace_files=beside)),
            ("engine_spec.json", lambda: engine_spec_text(self.engine_spec)),
            ("summary.json", lambda: json.dumps(self.summary() if summary is None else summary, indent=2,
                                                allow_nan=False)),
        ):
            path = out / name
            def write(p: Path, text: Callable[[], str] = text) -> None:
                p.write_text(text(), encoding="utf-8")

            writers.append((path, write))
            done[path] = _attempt(lambda: write(path), path)
        return done

    def __repr__(self) -> str:
        rows = ", ".join(f"{t}={self._rows(t)}" for t in TABLES)
        return f"Result({self.scenario.describe()!r}; rows: {rows})"


#: Most flows of a trace that a run's scenario.toml holds inline; a larger trace is written beside
#: it as a trace file (TRACE_FILE) that it names: reading a million inline flows back is TOML in
#: pure Python (47 s), reading the file ~5 s, and so is Result.from_dir.
TRACE_INLINE_MAX_FLOWS = 10_000
#: The file of a run's trace workload ``i`` (relative to its scenario.toml).
TRACE_FILE = "workload-{i}-flows.csv"


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


#: Largest engine spec (compact JSON, bytes) written indented in a run's engine_spec.json; a
#: larger one (a trace's flows) is written compact: Python indents with its pure-Python encoder,
#: 0.74 s for a 200 000-flow trace's columns (one number a line), against 0.16 s compact.
PRETTY_SPEC_MAX_BYTES = 1 << 20


def engine_spec_text(spec: dict) -> str:
    """A run's ``engine_spec.json``: indented for reading, or compact when it is large."""
    text = json.dumps(spec)
    return json.dumps(spec, indent=2) if len(text) <= PRETTY_SPEC_MAX_BYTES else text


#: Threads writing the Parquet tables (the machine this was measured on has 2 cores; more gave nothing).
WRITER_THREADS = 2


def _check_summary(summary: Any, who: str) -> None:
    """A summary given to write: None (computed) or a table as :meth:`Result.summary` returns
    (``summary="hello"`` was written as summary.json: an API probe)."""
    if summary is not None and not (isinstance(summary, dict) and "duration_s" in summary):
        raise ValueError(f"{who}: summary: expected the dict Result.summary() returns (or None), got "
                         f"{type(summary).__name__}")


def _window_bounds(window: Any, duration_s: float) -> tuple[float, float]:
    """``jain_index``'s window as (t0, t1) s: a length (the last ``window`` s) or a pair (t0, t1)."""
    def real(x: Any) -> bool:
        return isinstance(x, numbers.Real) and not isinstance(x, bool)

    if real(window):
        return duration_s - float(window), duration_s
    if isinstance(window, (tuple, list, np.ndarray)) and len(window) == 2 and all(real(x) for x in window):
        return float(window[0]), float(window[1])
    raise ValueError(f"jain_index: window {window!r} is neither a length in s (the last part of the run) nor a "
                     f"pair (t0, t1) in s")


def _pandas_copy_on_write() -> bool:
    """Whether pandas copies a DataFrame's shared arrays before writing into them (copy-on-write:
    always from pandas 3, by option in pandas 2)."""
    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        return True
    try:
        return pd.get_option("mode.copy_on_write") is True
    except (KeyError, pd.errors.OptionError):
        return False


class ResultDirError(ValueError):
    """A directory :meth:`Result.from_dir` cannot read as a run's: the message names the file and why."""


def _not_one_run(out: Path) -> Optional[tuple[str, str]]:
    """The first file of directory ``out`` that is not as its run listed it, with its size and
    CRC-32 (in its manifest, or a sweep's run in its row.json), and why; None if each is,
    or if nothing lists them (a run of a dcsim before the lists). Figures are not read back, so
    not checked."""
    from dcsim._files import MANIFEST, not_as_listed, read_manifest

    manifest = read_manifest(out)
    if manifest is None and os.path.lexists(out / MANIFEST):
        # present but unreadable: damage, not "a run of a dcsim before the lists" (an unreadable
        # manifest had turned the check off: a probe loaded another run's flows under it)
        return MANIFEST, "present but not a readable dcsim manifest (a regular JSON file holding a table)"
    listed = (manifest or {}).get("sizes_crc32")
    if "sizes_crc32" in (manifest or {}) and not isinstance(listed, dict):
        return MANIFEST, "its sizes_crc32 is not a table of the run's files"
    if not isinstance(listed, dict) and (out / "row.json").is_file():
        try:
            listed = json.loads((out / "row.json").read_text(encoding="utf-8")).get("files")
        except (OSError, ValueError, AttributeError):
            listed = None
    if not isinstance(listed, dict):
        return None
    return not_as_listed(out, {n: v for n, v in listed.items() if not n.endswith(".png")})


def _summary_wall_s(path: Path) -> Optional[float]:
    """The run's wall time as its summary.json says (None without one: it is not a result; read as
    :func:`dcsim._files.read_small_json` reads, so a pipe or /dev/zero is never read)."""
    from dcsim._files import read_small_json

    d = read_small_json(path)
    wall = d.get("wall_s") if isinstance(d, dict) else None
    return float(wall) if isinstance(wall, (int, float)) and not isinstance(wall, bool) and math.isfinite(wall) else None


def _summary_stopped(path: Path) -> Optional[dict]:
    """What stopped the run, as its summary.json says (None for a run that ended, or without one)."""
    from dcsim._files import read_small_json

    d = read_small_json(path)
    stopped = d.get("stopped") if isinstance(d, dict) else None
    return stopped if isinstance(stopped, dict) else None


class WriteError(OSError):
    """Some files of a result could not be written; all the others were. ``written``: those files;
    ``errors``: one line per file that failed ("cwnd.parquet: OSError: [Errno 28] No space left")."""

    def __init__(self, written: list[Path], errors: list[str]) -> None:
        super().__init__("could not write " + "; ".join(errors))
        self.written, self.errors = written, errors


def _attempt(write: Callable[[], Any], path: Path) -> Optional[str]:
    """Run ``write`` (which writes ``path``); None, or why it failed (and the partial file removed)."""
    try:
        write()
        return None
    except Exception as e:  # noqa: BLE001 - any failure of one file is reported, the others go on
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
        return f"{type(e).__name__}: {e}"


def _retry_failed(done: dict[Path, Optional[str]],
                  jobs: Sequence[tuple[Path, Callable[[Path], None]]]) -> dict[Path, Optional[str]]:
    """Try once more, in this thread and in the order of ``jobs``, each job whose file failed in
    ``done``: {path: None, or why it failed the second time} of those tried."""
    return {path: _attempt(lambda: write(path), path) for path, write in jobs if done.get(path) is not None}


def _write_in_threads(jobs: list[tuple[Path, Callable[[Path], None]]], threads: int,
                      here: Callable[[], dict[Path, Optional[str]]],
                      sizes: Optional[Sequence[int]] = None) -> dict[Path, Optional[str]]:
    """Run the ``jobs`` (path, writer) in ``threads`` threads while this thread runs ``here()``;
    returns {path: None, or why it failed} of both, in the order of ``jobs``. Each job is tried
    whatever the others do; if ``here`` raises (Ctrl-C), the threads start no further job and are
    waited for before it propagates, so no thread writes into a directory being removed.

    With ``sizes`` (one per job, e.g. its cells), the largest jobs start first, so that the
    largest table is not begun last while the other thread idles (`dcsim run` of the demo: the
    window table, ~36 ms of the ~45 ms of writing, started second behind the queue table)."""
    results: dict[Path, Optional[str]] = {}
    order = range(len(jobs)) if sizes is None else sorted(range(len(jobs)), key=lambda i: -sizes[i])
    pending = [jobs[i] for i in reversed(order)]
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with lock:
                if not pending:
                    return
                path, write = pending.pop()
            results[path] = _attempt(lambda: write(path), path)

    workers = [threading.Thread(target=work, name=f"dcsim-write-{i}") for i in range(max(1, threads))]
    for w in workers:
        w.start()
    try:
        mine = here()
    except BaseException:
        stop.set()
        raise
    finally:
        for w in workers:
            w.join()
    return {**{p: results[p] for p, _ in jobs}, **mine}


class _Label:
    """A label column as codes into sorted categories (-1: no name): a pandas Categorical or an
    Arrow dictionary array without a column of Python strings."""

    __slots__ = ("codes", "categories")

    def __init__(self, codes: np.ndarray, categories: list) -> None:
        self.codes, self.categories = codes, categories

    def __len__(self) -> int:
        return len(self.codes)

    def categorical(self):
        import pandas as pd

        return pd.Categorical.from_codes(self.codes, categories=self.categories)

    def parquet_column(self) -> tuple:
        """The column as :func:`dcsim._core.write_parquet` takes a label column: (int32 codes,
        categories as str), stored as dictionary-encoded strings (:meth:`Result.from_dir` reads
        them back as this categorical)."""
        return np.ascontiguousarray(self.codes, dtype=np.int32), [str(c) for c in self.categories]


def _parquet_column(v: Union[np.ndarray, list, _Label]):
    """A column as :func:`dcsim._core.write_parquet` takes it: a contiguous numpy array, a list
    of str, or a label column's (codes, categories)."""
    if isinstance(v, _Label):
        return v.parquet_column()
    return v if isinstance(v, list) else np.ascontiguousarray(v)


def _frame_columns(df: "pd.DataFrame", text: Iterable[str] = ()) -> Optional[list]:
    """A table already read as a DataFrame, as the engine's writer takes its columns: the same
    Parquet file whether or not the table was read first (a categorical label column as its codes
    and categories, text as str; a probe found such tables written by pandas as dictionary<int8>
    and large_string, read back as another dtype). ``text``: the columns that hold text (an empty
    one is float64 in pandas). None if a column has another type (one the user added): pandas then
    writes the table."""
    import pandas as pd

    out = []
    for c in df.columns:
        s = df[c]
        if c in text and not len(s):
            out.append((str(c), []))
        elif isinstance(s.dtype, pd.CategoricalDtype):
            if not all(isinstance(x, str) for x in s.cat.categories):
                return None
            out.append((str(c), (np.ascontiguousarray(s.cat.codes.to_numpy(), dtype=np.int32), list(s.cat.categories))))
        elif s.dtype in (np.float64, np.int64, np.uint64, np.int32, np.bool_):
            out.append((str(c), np.ascontiguousarray(s.to_numpy())))
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            values = s.tolist()
            if not all(isinstance(x, str) for x in values):
                return None
            out.append((str(c), values))
        else:
            return None
    return out


def _categories(names: dict) -> list:
    """The categories of a label column whose ids are named ``names``: every name, sorted."""
    return sorted(set(names.values()), key=str)


class _Names(dict):
    """Id -> name of one kind of label (:meth:`_Tables._label_names`), with its sorted categories
    and id -> code lookup made once, on first use: a k = 64 fat-tree names 393 216 ports, and the
    `ports`, `queue` and `queue_hist` tables each took ~1.5 s to label them again."""

    __slots__ = ("_index",)
    _lock = threading.Lock()  # the label columns are made in the table writers' threads

    def index(self) -> tuple[list, Optional[np.ndarray]]:
        with self._lock:
            if not hasattr(self, "_index"):
                self._index = _label_index(self)
            return self._index


def _label_index(names: dict) -> tuple[list, Optional[np.ndarray]]:
    """``names``' categories (sorted) and the code of each id as an array indexed by id (-1: no
    name), or None if the ids are not all integers >= 0 (then the codes are looked up by name)."""
    categories = _categories(names)
    keys = list(names)
    if not keys or not all(isinstance(k, (int, np.integer)) and k >= 0 for k in keys):
        return categories, None
    code_of = {c: i for i, c in enumerate(categories)}  # not kept: one entry a name (a flow each)
    ids = np.fromiter(keys, dtype=np.int64, count=len(keys))
    lut = np.full(int(ids.max()) + 1, -1, dtype=np.int32)
    lut[ids] = np.fromiter((code_of[v] for v in names.values()), dtype=np.int32, count=len(keys))
    return categories, lut


def _labels(ids: np.ndarray, names: dict) -> _Label:
    """The label ``names[id]`` of each id (none where an id has no name), categories sorted.

    Built from codes through a lookup table indexed by id, never through a column of Python
    strings: a sampled series of 10^7 rows costs its int32 codes (and then pandas' int8/int16
    ones), not 10^7 object pointers and a hash table (the memory bound counts these codes)."""
    categories, lut = names.index() if isinstance(names, _Names) else _label_index(names)
    ids = np.asarray(ids)
    if not len(ids):
        return _Label(np.zeros(0, dtype=np.int32), categories)
    if ids.dtype.kind not in "iu" or lut is None:
        # small tables (ids of another dtype): the plain way
        code_of = {c: i for i, c in enumerate(categories)}
        return _Label(np.array([code_of.get(names.get(i), -1) for i in ids.tolist()], dtype=np.int32), categories)
    inside = (ids >= 0) & (ids < len(lut))
    codes = lut[ids] if inside.all() else np.where(inside, lut[np.where(inside, ids, 0)], -1).astype(np.int32)
    return _Label(codes, categories)


class _Tables(MutableMapping):
    """The result tables by name. Engine columns (numpy arrays; strings as lists) become a pandas
    DataFrame, with the label columns of :mod:`dcsim.schema` inserted next to the ids they name,
    when a table is first asked for; :meth:`column`, :meth:`rows` and :meth:`write_parquet`
    need no pandas."""

    def __init__(self, raw: dict[str, dict], frames: dict) -> None:
        self._raw = raw
        self._frames = frames
        self._names: Optional[dict] = None
        self._text: dict[str, set] = {}  # table -> its text columns, once it is a DataFrame
        # A table moves from the columns to the frames when first read: one thread at a time
        # (re-entrant: building a table's labels reads the ports and flows tables).
        self._lock = threading.RLock()

    # -- pickling (a Result sent between processes, copied): everything but the lock
    def __getstate__(self) -> dict:
        with self._lock:
            state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    # -- mapping
    def __getitem__(self, name: str) -> "pd.DataFrame":
        df = self._frames.get(name)
        if df is not None:
            return df
        with self._lock:
            if name not in self._frames:
                if name not in self._raw:
                    raise KeyError(name)
                import pandas as pd

                cols = {c: (v.categorical() if isinstance(v, _Label) else v) for c, v in self._labelled(name).items()}
                # text columns (lists of str): an empty one gets the dtype pandas gives text (it
                # would be float64, and the same table read back by from_dir text: a probe)
                text = {c for c, v in cols.items() if isinstance(v, list)}
                cols.update({c: pd.Series([], dtype=str) for c in text if not cols[c]})
                self._frames[name] = pd.DataFrame(cols, copy=False)
                self._text[name] = text
                del self._raw[name]  # the DataFrame uses the same arrays: the columns are held once
            return self._frames[name]

    def __setitem__(self, name: str, df: "pd.DataFrame") -> None:
        with self._lock:
            self._raw.pop(name, None)
            self._text.pop(name, None)
            self._frames[name] = df

    def __delitem__(self, name: str) -> None:
        with self._lock:
            if name not in self._frames and name not in self._raw:
                raise KeyError(name)
            self._raw.pop(name, None)
            self._frames.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        # A snapshot: reading a table while iterating moves it from the columns to the frames.
        with self._lock:
            return iter([*self._frames, *(n for n in self._raw if n not in self._frames)])

    def __len__(self) -> int:
        with self._lock:
            return len(set(self._frames) | set(self._raw))

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._frames or name in self._raw

    def frames(self) -> dict:
        """The tables already built as DataFrames."""
        return self._frames

    # -- columns without pandas
    def columns(self, name: str) -> list[str]:
        """The engine's columns of ``name`` (without the label columns), or a DataFrame's."""
        with self._lock:
            return list(self._frames[name].columns) if name in self._frames else list(self._raw[name])

    def column(self, name: str, col: str) -> np.ndarray:
        with self._lock:
            if name in self._frames:
                return self._frames[name][col].to_numpy()
            v = self._raw[name][col]
        return np.array(v, dtype=object) if isinstance(v, list) else v

    def rows(self, name: str) -> int:
        with self._lock:
            if name in self._frames:
                return len(self._frames[name])
            return len(next(iter(self._raw[name].values()), ()))

    def parquet_writer(self, name: str) -> Callable[[Path], None]:
        """A function that writes table ``name`` as it is now to a Parquet file, in any thread:
        what it reads is taken here (the table's columns and its labels' names; reading a table
        as a DataFrame meanwhile moves it to the frames). The engine's writer
        (:func:`dcsim._core.write_parquet`: no pyarrow, no GIL) writes it, label columns as
        dictionary-encoded strings, which :meth:`Result.from_dir` reads back as the same
        categoricals, whether or not the table was read as a DataFrame first; pandas only a
        DataFrame with a column of a type the engine's writer has not (one a user added)."""
        frame, columns = self._parquet_source(name)

        def write(path: Path) -> None:
            cols = columns()
            if cols is None:
                frame_to_parquet(frame, path)
                return
            from dcsim import _core

            _core.write_parquet(path, cols)

        return write

    def parquet_bytes(self, name: str) -> bytes:
        """The bytes of the Parquet file :meth:`parquet_writer` writes for table ``name`` (a
        sweep's worker sends them to the process that stores the run)."""
        frame, columns = self._parquet_source(name)
        cols = columns()
        if cols is None:
            return frame.to_parquet(index=False)  # no path: the bytes
        from dcsim import _core

        return _core.parquet_bytes(cols)

    def _parquet_source(self, name: str) -> tuple[Optional["pd.DataFrame"], Callable[[], Optional[list]]]:
        """Table ``name`` as it is now: its DataFrame (None if not read yet), and a function that
        builds its columns as the engine's writer takes them when called (in a writer's thread),
        None for a DataFrame the engine's writer cannot write."""
        with self._lock:
            frame = self._frames.get(name)
            if frame is not None:
                text = self._text.get(name, ())
                return frame, lambda: _frame_columns(frame, text)
            cols = dict(self._raw[name])
            names = self._label_names() if schema.LABEL_COLUMNS.get(name) else {}
        return None, lambda: [(c, _parquet_column(v)) for c, v in _with_labels(name, cols, names).items()]

    # -- labels
    def _label_names(self) -> dict[str, dict]:
        """Port id -> "src->dst", flow id -> "src->dst #id", L2 source id -> "src->dst #id"."""
        with self._lock:
            if self._names is None:
                def triples(table: str, key: str) -> list:
                    if table not in self or not self.rows(table):
                        return []
                    return list(zip(*(self.column(table, c).tolist() for c in (key, "src", "dst"))))

                self._names = {
                    "port_label": _Names({p: f"{s}->{d}" for p, s, d in triples("ports", "port")}),
                    "flow_label": _Names({f: f"{s}->{d} #{f}" for f, s, d in triples("flows", "flow")}),
                    "source_label": _Names({i: f"{s}->{d} #{i}" for i, s, d in triples("sources", "source")}),
                }
            return self._names

    def _labelled(self, name: str) -> dict:
        """The engine's columns of ``name`` with its label columns (:class:`_Label`) inserted."""
        labels = schema.LABEL_COLUMNS.get(name)
        with self._lock:
            return _with_labels(name, dict(self._raw[name]), self._label_names() if labels else {})


def _restore_categories(frames: dict) -> None:
    """Give the label columns of tables read back from Parquet the categories they had in the run
    (every name, sorted: :func:`_labels`). The file holds only the names a column uses (in the
    order they first appear, as a dictionary page or as plain strings), so read as they are the
    columns would differ from the run's (in type or order, and in the flows that a plot shows as
    empty)."""
    import pandas as pd

    names = _Tables({}, frames)._label_names()
    for table, labels in schema.LABEL_COLUMNS.items():
        df = frames.get(table)
        for label in labels:
            if df is None or label not in df.columns:
                continue
            col = df[label]
            in_file = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else col.dropna().unique()
            # A name the file holds is kept even if the tables do not give it (never dropped to NaN).
            categories = _categories({**{c: c for c in in_file}, **_names_of(label, names)})
            df[label] = pd.Categorical(col, categories=categories)


def _names_of(label: str, names: dict[str, dict]) -> dict:
    """The names (id -> name) label column ``label`` takes from :meth:`_Tables._label_names`."""
    return names.get(label, names["flow_label"])


def _with_labels(name: str, cols: dict, names: dict[str, dict]) -> dict:
    """Table ``name``'s engine columns ``cols`` with its label columns (:class:`_Label`) inserted
    next to the ids they name (``names``: :meth:`_Tables._label_names`)."""
    labels = schema.LABEL_COLUMNS.get(name, [])
    if not labels:
        return cols
    out: dict = {}
    for c, v in cols.items():
        out[c] = v
        for label in labels:
            key = {"port_label": "port", "source_label": "source"}.get(label, "flow")
            if key == c and label not in cols:
                out[label] = _labels(v, _names_of(label, names))
    return out


Result.__doc__ = (Result.__doc__ or "") + "\n".join("    " + line for line in schema.docstring().splitlines()) + "\n"
