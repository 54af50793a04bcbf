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
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from dcsim import schema
from dcsim.scenario import Scenario, load_scenario

__all__ = ["Result", "jain_index", "TABLES", "fct_stats", "bucket_labels"]

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


def fct_stats(flows: pd.DataFrame, edges_bytes: list[float], warmup_s: float = 0.0) -> pd.DataFrame:
    """Flow completion times per protocol and size bucket, plus "all" rows.

    Counted: finite flows (size given) that started at or after warm-up. Columns: protocol,
    bucket, flows, finished (the others were still running at the end: the statistics cover the
    finished ones, so many unfinished flows bias them low), afct_s (mean FCT), fct_p50_s,
    fct_p99_s, fct_p999_s (numpy's linear-interpolation percentiles 50, 99, 99.9), slowdown_mean,
    slowdown_p50, slowdown_p99, slowdown_p999 (slowdown = FCT / the flow's ideal FCT on an empty
    network, the ``flows`` column; a p99.9 of fewer than 1000 flows interpolates between the
    largest ones).
    """
    cols = ["protocol", "bucket", "flows", "finished", "afct_s", "fct_p50_s", "fct_p99_s", "fct_p999_s",
            "slowdown_mean", "slowdown_p50", "slowdown_p99", "slowdown_p999"]
    f = flows[np.isfinite(flows["size_bytes"].to_numpy(dtype=float)) & (flows["start_s"] >= warmup_s - 1e-12)]
    if f.empty:
        return pd.DataFrame(columns=cols)
    labels = bucket_labels(edges_bytes)
    idx = np.searchsorted(np.asarray(edges_bytes, dtype=float), f["size_bytes"].to_numpy(dtype=float), side="left")
    f = f.assign(bucket=[labels[i] for i in idx])
    rows = []

    def row(proto: str, bucket: str, d: pd.DataFrame) -> dict:
        fct = d["fct_s"].to_numpy(dtype=float)
        done = np.isfinite(fct)
        sl = d["slowdown"].to_numpy(dtype=float)[done] if "slowdown" in d else np.array([])
        ok = fct[done]
        q = lambda x, p: float(np.percentile(x, p)) if x.size else float("nan")  # noqa: E731
        return {
            "protocol": proto, "bucket": bucket, "flows": int(len(d)), "finished": int(done.sum()),
            "afct_s": float(ok.mean()) if ok.size else float("nan"), "fct_p50_s": q(ok, 50), "fct_p99_s": q(ok, 99),
            "fct_p999_s": q(ok, 99.9), "slowdown_mean": float(sl.mean()) if sl.size else float("nan"),
            "slowdown_p50": q(sl, 50), "slowdown_p99": q(sl, 99), "slowdown_p999": q(sl, 99.9),
        }

    for proto in sorted(f["protocol"].unique()):
        d = f[f["protocol"] == proto]
        for b in labels:
            db = d[d["bucket"] == b]
            if len(db):
                rows.append(row(proto, b, db))
        rows.append(row(proto, "all", d))
    rows.append(row("all", "all", f))
    return pd.DataFrame(rows, columns=cols)


def jain_index(x: Any) -> float:
    """Jain's fairness index J = (sum x)^2 / (n * sum x^2) of the allocations x (1 = equal shares, 1/n = one takes all)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        raise ValueError("jain_index: no allocations given")
    if np.any(~np.isfinite(x)) or np.any(x < 0):
        raise ValueError("jain_index: allocations must be finite and >= 0")
    s2 = float(np.sum(x * x))
    if s2 == 0:
        return float("nan")  # nobody got anything: fairness is undefined
    return float(np.sum(x)) ** 2 / (x.size * s2)


def _jsonable(v: Any) -> Any:
    """numpy scalars -> Python; NaN/inf -> None (strict JSON)."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, np.bool_):
        return bool(v)
    return v


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
        tables: dict[str, pd.DataFrame],
        *,
        wall_s: Optional[float] = None,
        engine_spec: Optional[dict] = None,
    ) -> None:
        missing = [t for t in TABLES if t not in tables]
        if missing:
            raise ValueError(f"result: the engine returned no table(s) {', '.join(missing)}; got {', '.join(tables)}")
        self.scenario = scenario
        self.tables = tables
        self.wall_s = wall_s
        self.engine_spec = engine_spec if engine_spec is not None else scenario.to_engine_spec()

    @classmethod
    def from_engine(cls, scenario: Scenario, raw: dict, **kw: Any) -> "Result":
        """From ``_core.Simulation.results()``: a dict of tables, each a dict of equal-length columns.

        Adds the label columns of :mod:`dcsim.schema` ("sw->r", "s0->r #0") as categoricals.

        The numeric columns are not copied: the engine moved them into numpy arrays and the
        DataFrames use those arrays (``copy=False``), so a sampled series is held once (the
        memory bound, ``metrics.max_memory``, counts it so)."""
        tables = {}
        for name, cols in raw.items():
            lengths = {c: len(v) for c, v in cols.items()}
            if len(set(lengths.values())) > 1:
                raise ValueError(f"result: table {name!r} has columns of different lengths {lengths}")
            tables[name] = pd.DataFrame({c: (np.asarray(v) if not isinstance(v, list) else v) for c, v in cols.items()},
                                        copy=False)
        _add_labels(tables)
        return cls(scenario, tables, **kw)

    @classmethod
    def from_dir(cls, out: Union[str, Path]) -> "Result":
        """Read back what :meth:`to_dir` wrote."""
        out = Path(out)
        scenario = load_scenario(out / "scenario.toml")
        tables = {
            t: pd.read_parquet(out / f"{t}.parquet")
            for t in TABLES
            if t not in LATER_TABLES or (out / f"{t}.parquet").exists()
        }
        for t in LATER_TABLES:
            tables.setdefault(t, pd.DataFrame())
        spec_path = out / "engine_spec.json"
        spec = json.loads(spec_path.read_text()) if spec_path.exists() else None
        return cls(scenario, tables, engine_spec=spec)

    # -- tables ---------------------------------------------------------------------------------
    @property
    def queue(self) -> pd.DataFrame:
        """The ``queue`` table: samples of each monitored queue every metrics.queue_interval (for plots; statistics come from the exact trajectory in ports and queue_hist) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["queue"]

    @property
    def throughput(self) -> pd.DataFrame:
        """The ``throughput`` table: each flow's goodput over each metrics.throughput_interval (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["throughput"]

    @property
    def cwnd(self) -> pd.DataFrame:
        """The ``cwnd`` table: each running flow's window, α and SRTT every metrics.cwnd_interval (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["cwnd"]

    @property
    def flows(self) -> pd.DataFrame:
        """The ``flows`` table: one row per flow (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["flows"]

    @property
    def ports(self) -> pd.DataFrame:
        """The ``ports`` table: one row per egress port (queue + link) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["ports"]

    @property
    def queue_hist(self) -> pd.DataFrame:
        """The ``queue_hist`` table: the exact distribution of each monitored queue's length over time after warm-up (for CDFs) (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["queue_hist"]

    @property
    def counters(self) -> pd.DataFrame:
        """The ``counters`` table: packet conservation, one row: sent = delivered + dropped + in flight (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["counters"]

    # -- derived --------------------------------------------------------------------------------
    @property
    def duration_s(self) -> float:
        return self.engine_spec["duration_ps"] / 1e12

    @property
    def warmup_s(self) -> float:
        return self.engine_spec["warmup_ps"] / 1e12

    def port_labels(self) -> dict[Any, str]:
        """Port id -> "src->dst"."""
        p = self.ports
        return {pid: f"{s}->{d}" for pid, s, d in zip(p["port"], p["src"], p["dst"])}

    def plot(self, kind: str = "queue", path: Optional[Union[str, Path]] = None):
        """Draw one table; ``kind`` is the table's name:

        * "queue": queue length vs time (and a zoom on its last periods); "cwnd": window (and α)
          of each source vs time; "throughput": goodput of each flow vs time; "queue_hist": the
          queue-length CDF; "flows": goodput and mean window per flow; "ports": utilization and
          mean queue per monitored port; "counters": packets sent, delivered, dropped, in flight;
        * "workloads": target vs realised load per workload; "rounds": completion time per incast
          round;
        * "rates": each L2 source's rate vs time; "sources": goodput and realised feedback loop
          delay per L2 source; "cps": samples and feedback frames per L2 congestion point.

        Returns the matplotlib Figure; with ``path`` it is also saved (PNG, PDF or SVG by suffix).
        Raises ValueError for an unknown kind or an empty table (say, "rounds" without an incast).
        """
        from dcsim.plotting import KINDS

        if kind not in KINDS:
            raise ValueError(f"plot: kind {kind!r} is not one of {', '.join(KINDS)}")
        if kind in self.tables and len(self.tables[kind]) == 0:
            why = schema.TABLE_DOCS.get(kind, "")
            raise ValueError(f"plot({kind!r}): the {kind} table of this run is empty, nothing to draw ({why})")
        return KINDS[kind](self, path)

    def monitored_ports(self) -> pd.DataFrame:
        """The rows of ``ports`` whose queue is monitored."""
        p = self.ports
        return p[p["monitored"].astype(bool)]

    def jain_index(self, window: Union[None, float, tuple[float, float]] = None) -> float:
        """Jain's fairness index of the flows' goodputs.

        ``window=None``: the per-flow goodput after warm-up (flows table). ``window=0.5``: the mean
        throughput of each flow over the last 0.5 s of the run; ``window=(t0, t1)``: over [t0, t1] s
        (from the throughput series; only intervals lying wholly inside the window count).
        """
        if window is None:
            return jain_index(self.listed_flows()["goodput_bps"].to_numpy(dtype=float))
        t0, t1 = (self.duration_s - float(window), self.duration_s) if np.isscalar(window) else map(float, window)
        if not (t1 > t0):
            raise ValueError(f"jain_index: window {window!r} is empty; allowed a length > 0 s or (t0, t1) with t0 < t1")
        dt = self.engine_spec["metrics"]["throughput_interval_ps"] / 1e12
        tp = self.throughput
        eps = 1e-12
        inside = tp[(tp["t_s"] - dt >= t0 - eps) & (tp["t_s"] <= t1 + eps)]
        if inside.empty:
            raise ValueError(f"jain_index: no throughput samples in [{t0:g}, {t1:g}] s")
        means = inside.groupby("flow")["goodput_bps"].mean()
        per_flow = means.reindex(self.listed_flows()["flow"], fill_value=0.0)
        return jain_index(per_flow.to_numpy(dtype=float))

    def listed_flows(self) -> pd.DataFrame:
        """The scenario's [[flows]] (not the flows its workloads generated)."""
        f = self.flows
        return f[~np.isfinite(f["workload"].to_numpy(dtype=float))] if "workload" in f else f

    @property
    def workloads(self) -> pd.DataFrame:
        """The ``workloads`` table: offered and realised load of each [[workloads]] entry (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["workloads"]

    @property
    def rounds(self) -> pd.DataFrame:
        """The ``rounds`` table: each incast round's start, end and completion time (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["rounds"]

    @property
    def sources(self) -> pd.DataFrame:
        """The ``sources`` table: one row per L2 rate source: rates, frames, drops, loop delays, FCT (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["sources"]

    @property
    def rates(self) -> pd.DataFrame:
        """The ``rates`` table: each L2 source's rate every l2.rate_interval (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["rates"]

    @property
    def cps(self) -> pd.DataFrame:
        """The ``cps`` table: one row per L2 congestion point: samples and feedback frames (columns: see :data:`dcsim.schema.SCHEMA`)."""
        return self.tables["cps"]

    def fct_stats(self) -> pd.DataFrame:
        """AFCT, p50/p99/p99.9 FCT and slowdown per protocol and flow-size bucket (metrics.fct_buckets),
        flows that started after warm-up (see :func:`fct_stats`)."""
        edges = [b.value for b in self.scenario.metrics.fct_buckets]
        return fct_stats(self.flows, edges, self.warmup_s)

    def summary(self) -> dict:
        """Per-port utilization and queue statistics, per-flow goodput, Jain's index, totals (JSON-ready)."""
        f = self.flows
        flows = []
        # Generated flows (thousands) are summarised by their FCT statistics, not listed.
        listed = self.listed_flows()
        for row in listed.to_dict("records"):
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
        for row in self.monitored_ports().to_dict("records"):
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
        c = {k: self.counters[k].iloc[0] for k in self.counters.columns} if len(self.counters) else {}
        goodput = listed["goodput_bps"].to_numpy(dtype=float)
        fin = f["fct_s"].to_numpy(dtype=float)
        out = {
            "scenario": self.scenario.describe(),
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "seed": self.engine_spec["seed"],
            "wall_s": self.wall_s,
            "events": c.get("events"),
            "events_per_wall_s": (c["events"] / self.wall_s) if (self.wall_s and "events" in c) else None,
            "packets": {k: c.get(k) for k in ("sent_pkts", "delivered_pkts", "dropped_pkts", "in_flight_pkts")},
            "goodput_total_bps": float(np.nansum(f["goodput_bps"].to_numpy(dtype=float))),
            "goodput_mean_bps": float(np.nanmean(goodput)) if goodput.size else None,
            "jain_index": self.jain_index() if goodput.size else None,
            "flows_finished": int(np.sum(np.isfinite(fin))),
            "after_warmup": {
                "delivered_bytes": int(f["delivered_bytes"].sum()),
                "retransmits": int(f["retransmits"].sum()),
                "timeouts": int(f["timeouts"].sum()),
                "drops": int(self.ports["drops"].sum()),
                "marks": int(self.ports["marks"].sum()),
            },
            "whole_run": {
                "delivered_bytes": int(f["delivered_bytes_whole_run"].sum()),
                "retransmits": int(f["retransmits_whole_run"].sum()),
                "timeouts": int(f["timeouts_whole_run"].sum()),
                "drops": int(self.ports["drops_whole_run"].sum()),
                "marks": int(self.ports["marks_whole_run"].sum()),
            },
            "ports": ports,
            "flows": flows,
        }
        fs = self.fct_stats() if len(f) else pd.DataFrame()
        if len(fs):
            out["fct_groups"] = [
                {"fct_group": "all" if r["protocol"] == r["bucket"] == "all" else f"{r['protocol']} {r['bucket']}", **{k: r[k] for k in fs.columns if k not in ("protocol", "bucket")}}
                for r in fs.to_dict("records")
            ]
        if len(self.workloads):
            out["workloads"] = [self._workload_summary(r) for r in self.workloads.to_dict("records")]
        src = self.sources
        if len(src):
            keep = ("source", "label", "scheme", "rate_final_bps", "goodput_bps", "sent_frames", "sent_bytes",
                    "delivered_bytes", "dropped_frames", "feedback_frames", "loop_delay_mean_s", "loop_delay_min_s",
                    "loop_delay_max_s", "fct_s")
            out["sources"] = [{k: r[k] for k in keep} for r in src.to_dict("records")]
            sent, dropped = int(src["sent_frames"].sum()), int(src["dropped_frames"].sum())
            out["l2_goodput_total_bps"] = float(np.nansum(src["goodput_bps"].to_numpy(dtype=float)))
            out["l2_dropped_frames"] = dropped
            out["l2_drop_pct"] = 100.0 * dropped / sent if sent else None
        return _jsonable(out)

    def _workload_summary(self, r: dict) -> dict:
        """One workload: offered vs realised load (Poisson), round completion times (incast)."""
        w = int(r["workload"])
        out = {"workload": w, "kind": r["kind"], "link": r["link"], "target_load": r["target_load"],
               "realised_load": r["realised_load"], "flows": r["flows"], "bytes": r["bytes"]}
        if r["kind"] == "incast":
            rd = self.rounds[self.rounds["workload"] == w] if len(self.rounds) else self.rounds
            comp = rd["completion_s"].to_numpy(dtype=float) if len(rd) else np.array([])
            done = comp[np.isfinite(comp)]
            out.update({"rounds": int(len(rd)), "rounds_completed": int(done.size),
                        "round_completion_mean_s": float(done.mean()) if done.size else None,
                        "round_completion_max_s": float(done.max()) if done.size else None})
        return out

    # -- files ----------------------------------------------------------------------------------
    def to_dir(self, out: Union[str, Path]) -> list[Path]:
        """Write every table as Parquet, then summary.json, scenario.toml and engine_spec.json.

        Tables go first, each in its own file, so that nothing computed is lost if a later step fails.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = []
        for name in TABLES:
            path = out / f"{name}.parquet"
            self.tables[name].to_parquet(path, index=False)
            files.append(path)
        for name, text in (
            ("scenario.toml", self.scenario.to_toml()),
            ("engine_spec.json", json.dumps(self.engine_spec, indent=2)),
            ("summary.json", json.dumps(self.summary(), indent=2, allow_nan=False)),
        ):
            path = out / name
            path.write_text(text, encoding="utf-8")
            files.append(path)
        return files

    def __repr__(self) -> str:
        rows = ", ".join(f"{t}={len(self.tables[t])}" for t in TABLES)
        return f"Result({self.scenario.describe()!r}; rows: {rows})"


def _labels(ids: np.ndarray, names: dict) -> pd.Categorical:
    """The categorical of ``names[id]`` for each id (NaN where an id has no name), categories sorted.

    Built from codes through a lookup table indexed by id, never through a column of Python
    strings: a sampled series of 10^7 rows costs its int32 codes (and then pandas' int8/int16
    ones), not 10^7 object pointers and a hash table (the memory bound counts these codes)."""
    categories = sorted(set(names.values()), key=str)
    if not len(ids):
        return pd.Categorical([], categories=categories)
    code_of = {c: i for i, c in enumerate(categories)}
    keys = [k for k in names if isinstance(k, (int, np.integer)) and 0 <= k]
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu" or not keys:
        values = pd.Series(ids).map(names)  # small tables (ids of another dtype): the plain way
        return pd.Categorical(values, categories=categories)
    top = int(max(max(keys), ids.max())) + 1
    lut = np.full(top, -1, dtype=np.int32)
    for k in keys:
        lut[int(k)] = code_of[names[k]]
    codes = lut[ids] if ids.min() >= 0 else np.where(ids >= 0, lut[np.clip(ids, 0, None)], -1).astype(np.int32)
    return pd.Categorical.from_codes(codes, categories=categories)


def _add_labels(tables: dict[str, pd.DataFrame]) -> None:
    """Insert the label columns of :mod:`dcsim.schema` (categoricals) next to the ids they name."""
    ports, flows, sources = tables.get("ports"), tables.get("flows"), tables.get("sources")
    port_names = {} if ports is None else dict(zip(ports["port"], ports["src"].astype(str) + "->" + ports["dst"].astype(str)))
    flow_names = {} if flows is None else {
        f: f"{s}->{d} #{f}" for f, s, d in zip(flows["flow"], flows["src"], flows["dst"])}
    source_names = {} if sources is None or sources.empty else {
        i: f"{s}->{d} #{i}" for i, s, d in zip(sources["source"], sources["src"], sources["dst"])}
    for table, labels in schema.LABEL_COLUMNS.items():
        df = tables.get(table)
        if df is None:
            continue
        for label in labels:
            key, names = {"port_label": ("port", port_names), "source_label": ("source", source_names)}.get(
                label, ("flow", flow_names))
            if key not in df.columns or label in df.columns:
                continue
            df.insert(df.columns.get_loc(key) + 1, label, _labels(df[key].to_numpy(), names))


Result.__doc__ = (Result.__doc__ or "") + "\n".join("    " + line for line in schema.docstring().splitlines()) + "\n"
