"""A sweep's results at a glance: which columns of its table headline it, for the table
`dcsim sweep` prints and the figure it draws (:func:`dcsim.plotting.plot_sweep`)."""

from __future__ import annotations

#: The headline columns of a sweep's results: (column, header, scale, format); those a sweep's
#: runs do not have (no finite flows: no slowdown) are left out. Each monitored port that carried
#: traffic adds :data:`PORT_HEADLINE`'s columns (the first two such ports at most).
HEADLINE = (
    ("goodput_total_bps", "goodput Gbps", 1e-9, ".3f"),
    ("l2_goodput_total_bps", "L2 goodput Gbps", 1e-9, ".3f"),
    ("jain_index", "Jain", 1.0, ".4f"),
    ("after_warmup.drops", "drops pkt", 1.0, "count"),
    ("after_warmup.timeouts", "RTOs", 1.0, "count"),
    ("fct_group[all].finished", "flows done", 1.0, "count"),
    ("fct_group[all].slowdown_p50", "slowdown p50", 1.0, ".2f"),
    ("fct_group[all].slowdown_p99", "slowdown p99", 1.0, ".2f"),
)
PORT_HEADLINE = (("utilization", "util %", 100.0, ".2f"), ("q_mean_pkt", "q mean pkt", 1.0, ".1f"),
                 ("q_p99_pkt", "q p99 pkt", 1.0, ".1f"))
#: Ports whose columns headline a sweep, at most.
HEADLINE_PORTS = 2


def finished_runs(df):
    """The rows of the runs that ran to their end (status "ok"), a copy. A run with no finite flow
    started after warm-up has no FCT group: it finished 0 of them, not an unknown number a mean
    over seeds would skip (6 seeds, one with 1 flow, had shown 1, not 1/6)."""
    ok = df[df["status"] == "ok"].copy()
    if "fct_group[all].finished" in ok.columns and ok["fct_group[all].finished"].notna().any():
        ok["fct_group[all].finished"] = ok["fct_group[all].finished"].fillna(0)
    return ok


def headline_columns(ok) -> list[tuple[str, str, float, str]]:
    """(column, header, scale, format) of the headline columns that ``ok`` (:func:`finished_runs`)
    has values in, the ports' last.

    The ports are the first :data:`HEADLINE_PORTS` monitored ports whose utilization shows
    (>= 0.005 %, printed "0.01") in some run: a fabric's default monitors include ports a light
    load leaves idle, and columns of "0.00" say nothing. An L2 run's queues and drops count its
    frames (1 KB in the DSM paper), not packets."""
    ports = [c[len("port["):-len("].utilization")] for c in ok.columns
             if c.startswith("port[") and c.endswith("].utilization") and (100 * ok[c].fillna(0) >= 0.005).any()]
    cols = [(c, h, k, f) for c, h, k, f in HEADLINE if c in ok.columns and ok[c].notna().any()]
    l2_only = "l2_goodput_total_bps" in ok.columns and not ok["goodput_total_bps"].any()  # L2 sources only
    if l2_only:
        cols = [x for x in cols if x[0] not in ("goodput_total_bps", "after_warmup.timeouts")]
    cols += [(f"port[{p}].{c}", f"{p} {h}", k, f) for p in ports[:HEADLINE_PORTS] for c, h, k, f in PORT_HEADLINE
             if f"port[{p}].{c}" in ok.columns]
    if l2_only:
        cols = [(c, h.replace(" pkt", " frames"), k, f) for c, h, k, f in cols]
    return cols
