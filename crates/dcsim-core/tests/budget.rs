//! Metrics with a budget (issue 12, section 3): automatic sampling intervals are lengthened just
//! enough to fit `metrics.max_memory`, never below the preferred resolution when that fits; a
//! budget that cannot hold even the port series is refused by name; `results()` moves the columns
//! out once and says so on a second call.

mod common;

use common::*;
use dcsim_core::metrics::Column;
use dcsim_core::scenario::*;
use dcsim_core::sim::{fit_sampling, MIN_AUTO_SAMPLES, PACKET_HELD_BYTES, QUEUE_SHARE};
use dcsim_core::Sim;

fn auto_all() -> Vec<String> {
    ["metrics.queue_interval", "metrics.throughput_interval", "metrics.cwnd_interval"].map(String::from).to_vec()
}

fn dctcp_dumbbell(n: u32, duration_ps: u64) -> Spec {
    dumbbell(
        n,
        10 * GBPS,
        10 * GBPS,
        100 * US,
        1000,
        AqmSpec::threshold(Amount::Packets(65)),
        dctcp(1.0 / 16.0),
        duration_ps,
        0,
    )
}

#[test]
fn preferred_intervals_are_kept_when_they_fit() {
    // 10 flows for 200 ms: queue 20 001 rows, window 200 010 rows: a few tens of MB << 1 GB.
    let mut s = dctcp_dumbbell(10, 200 * MS);
    let before = (s.metrics.queue_interval_ps, s.metrics.throughput_interval_ps, s.metrics.cwnd_interval_ps);
    fit_sampling(&mut s, &auto_all()).unwrap();
    assert_eq!((s.metrics.queue_interval_ps, s.metrics.throughput_interval_ps, s.metrics.cwnd_interval_ps), before);
}

#[test]
fn five_thousand_flows_for_one_second_fit_the_default_budget() {
    // 5 000 flows, the first 100 traced (the front end's default, metrics.trace_flows): at 10 us
    // for 1 s the window series alone would be 10^7 rows x 200 B = 2 GB; the window and goodput
    // intervals grow until every series fits in 1 GB, and the run is accepted.
    let mut s = dctcp_dumbbell(5000, 1_000 * MS);
    s.metrics.trace_flows = Some((0..100).collect());
    assert!(s.check().is_err(), "the preferred sampling alone overflows 1 GB");
    fit_sampling(&mut s, &auto_all()).unwrap();
    s.check().unwrap();
    let m = &s.metrics;
    assert_eq!(m.queue_interval_ps, 10 * US, "one monitored port at 10 us (100 001 rows) fits its share");
    assert!(m.cwnd_interval_ps > 10 * US, "{}", m.cwnd_interval_ps);
    // Each series keeps at least MIN_AUTO_SAMPLES rows per flow: the interval is at most d / 1000.
    assert!(m.cwnd_interval_ps as u128 <= 1_000 * MS as u128 / MIN_AUTO_SAMPLES * 11 / 10, "{}", m.cwnd_interval_ps);
    // And not coarser than needed: twice as fine would not fit (it rounds up to 2 significant digits).
    let mut finer = s.clone();
    finer.metrics.cwnd_interval_ps /= 2;
    assert!(finer.check().is_err(), "the window interval {} ps was lengthened more than needed", m.cwnd_interval_ps);
}

#[test]
fn automatic_intervals_leave_the_queues_room_for_their_buffers() {
    // 4 flows for 5 s with 10^5-packet buffers: the preferred series (10 us) overflow 256 MB, so
    // the intervals are lengthened. They used to fill the budget to the byte, leaving the queues
    // only the in-flight floor (a run like this stopped at 274 ms holding 22 854 packets). Now the
    // queues keep room for every switch buffer full (5 ports x 10^5 packets), up to an eighth of
    // what the series could have taken.
    let mut s = dumbbell(4, GBPS, 10 * GBPS, 100 * US, 100_000, AqmSpec::drop_tail(), dctcp(1.0 / 16.0), 5_000 * MS, 0);
    s.metrics.max_memory_bytes = 256_000_000;
    let before = s.metrics.cwnd_interval_ps;
    fit_sampling(&mut s, &auto_all()).unwrap();
    assert!(s.metrics.cwnd_interval_ps > before, "the series were lengthened: {}", s.metrics.cwnd_interval_ps);
    let full = 5 * 100_000 * PACKET_HELD_BYTES;
    let want = full.min(256_000_000 / QUEUE_SHARE) * 9 / 10; // the eighth is of what is left, a little less
    let room = Sim::new(s).unwrap().queue_allowance_bytes();
    assert!(room >= want, "queues may take {room} B, want >= {want} B");
    // A budget that fits the buffers' room keeps it whole.
    let mut s = dumbbell(4, GBPS, 10 * GBPS, 100 * US, 10_000, AqmSpec::drop_tail(), dctcp(1.0 / 16.0), 5_000 * MS, 0);
    s.metrics.max_memory_bytes = 256_000_000;
    fit_sampling(&mut s, &auto_all()).unwrap();
    assert!(Sim::new(s).unwrap().queue_allowance_bytes() >= 5 * 10_000 * PACKET_HELD_BYTES);
}

#[test]
fn tracing_every_one_of_5000_flows_names_trace_flows() {
    // Every flow traced: even 1 001 window rows per flow (5 000 x 1 001 x 200 B = 1 GB) do not fit.
    let mut s = dctcp_dumbbell(5000, 1_000 * MS);
    let e = fit_sampling(&mut s, &auto_all()).unwrap_err().to_string();
    assert!(e.starts_with("metrics.max_memory:") && e.contains("5000 traced flows"), "{e}");
    assert!(e.contains("sampled series") && e.contains("metrics.trace_flows"), "{e}");
}

#[test]
fn a_long_run_lengthens_the_queue_interval_instead_of_failing() {
    // 60 s of 10 us queue samples with 10 flows: 6 x 10^6 rows x 192 B = 1.15 GB > 1 GB at the
    // preferred interval; fitted, it is accepted with a somewhat longer interval.
    let mut s = dctcp_dumbbell(10, 60_000 * MS);
    s.metrics.cwnd_interval_ps = 1_000 * US;
    assert!(s.check().is_err());
    fit_sampling(&mut s, &["metrics.queue_interval".to_string()]).unwrap();
    s.check().unwrap();
    assert!(s.metrics.queue_interval_ps > 10 * US && s.metrics.queue_interval_ps < 100 * US, "{:?}", s.metrics);
}

#[test]
fn a_chosen_interval_that_overflows_is_still_refused_by_name() {
    let mut s = dctcp_dumbbell(10, 60_000 * MS);
    s.metrics.cwnd_interval_ps = US;
    let e = fit_sampling(&mut s, &["metrics.queue_interval".to_string()]).unwrap_err().to_string();
    assert!(e.starts_with("metrics.cwnd_interval:") && e.contains("lengthen metrics.cwnd_interval"), "{e}");
}

#[test]
fn a_budget_too_small_for_the_sampled_series_names_each_series_field() {
    // 100 traced flows: the goodput and the window series sample the same flows; the message must
    // tell them apart. At the coarsest automatic sampling each needs 100 x 1 001 rows, far more
    // than the 0.7 MB that 2 MB leaves beside the network and the 100 flows' state (1.3 MB, their
    // result rows counted).
    let mut s = dctcp_dumbbell(100, 1_000 * MS);
    s.metrics.max_memory_bytes = 2_000_000;
    s.validate().unwrap();
    let e = fit_sampling(&mut s, &auto_all()).unwrap_err().to_string();
    assert!(e.starts_with("metrics.max_memory:") && e.contains("too small to hold even the sampled series"), "{e}");
    for field in ["metrics.queue_interval", "metrics.throughput_interval", "metrics.cwnd_interval"] {
        assert!(e.contains(&format!(" MB, {field})")), "{field} not named: {e}");
    }
}

#[test]
fn a_budget_too_small_for_the_port_series_is_refused_naming_max_memory() {
    // 256 monitored ports (every switch port of a 256-host tree would be more): even at the
    // coarsest automatic sampling (1 001 rows each) the queue series needs 256 x 1 001 x 192 B =
    // 49 MB, more than a 10 MB budget.
    let mut s = dctcp_dumbbell(256, 1_000 * MS);
    s.metrics.monitor = Some((0..256).map(|i| PortRef { from: format!("s{i}"), to: "sw".into() }).collect());
    s.metrics.trace_flows = Some(vec![]);
    s.metrics.max_memory_bytes = 10_000_000;
    s.validate().unwrap();
    let e = fit_sampling(&mut s, &auto_all()).unwrap_err().to_string();
    assert!(e.starts_with("metrics.max_memory:"), "{e}");
    assert!(e.contains("too small to hold even the port series") && e.contains("256 monitored ports"), "{e}");
    // The size it names suffices (rounded to 0.1 MB: add one).
    let need: f64 = e.split("allowed >= ").nth(1).unwrap().split(" MB").next().unwrap().parse().unwrap();
    s.metrics.max_memory_bytes = ((need + 0.1) * 1e6) as u64;
    fit_sampling(&mut s, &auto_all()).unwrap();
    s.check().unwrap();
}

/// 10 racks of 10 hosts: 120 switch ports monitored by default (each ToR's 10 host ports and its
/// two ports to and from the root), one flow across two racks, 10 ms under a 10 MB budget. At the
/// coarsest automatic sampling (10 us: 1 001 rows a port of 32 + 160 B) the port series alone
/// need 120 x 1 001 x 192 B = 23 MB.
fn tree_of_120_ports() -> Spec {
    let mut s = dctcp_dumbbell(1, 10 * MS);
    s.topology = TopologySpec::Tree {
        racks: vec![10; 10],
        host_bps: 10 * GBPS,
        core_bps: 10 * GBPS,
        bottleneck_bps: None,
        bottleneck_hosts: vec![],
        rtt_ps: 20 * US,
        queue: QueueSpec { capacity: Amount::Packets(100), aqm: AqmSpec::drop_tail() },
    };
    (s.flows[0].src, s.flows[0].dst) = ("h0".into(), "h99".into());
    s.metrics.max_memory_bytes = 10_000_000;
    s
}

#[test]
fn default_ports_beyond_the_budget_are_sampled_as_many_as_fit_the_rest_keep_their_rows() {
    let mut s = tree_of_120_ports();
    s.validate().unwrap();
    // Without the default ports among the automatic fields: refused, as before.
    let e = fit_sampling(&mut s.clone(), &auto_all()).unwrap_err().to_string();
    assert!(e.contains("too small to hold even the port series") && e.contains("120 monitored ports"), "{e}");
    let mut auto = auto_all();
    auto.push("metrics.monitor".into());
    fit_sampling(&mut s, &auto).unwrap();
    s.check().unwrap();
    let n = s.metrics.monitor_first.expect("the default ports cut short");
    // At most what the 10 MB hold at 1 001 rows a port, whatever else the run keeps.
    assert!((1..=(10_000_000 / (1001 * 192)) as u64).contains(&n), "{n}");
    let (_, t) = run(s.clone());
    let ports = table(&t, "ports");
    let monitored: Vec<bool> = ports.bool("monitored").to_vec();
    assert_eq!(monitored.iter().filter(|&&m| m).count() as u64, n);
    let sampled: std::collections::HashSet<u64> = table(&t, "queue").u64("port").iter().copied().collect();
    let marked: std::collections::HashSet<u64> =
        ports.u64("port").iter().zip(&monitored).filter(|(_, &m)| m).map(|(&p, _)| p).collect();
    assert_eq!(sampled, marked);
    // Every port keeps its row in the ports table.
    assert_eq!(monitored.len(), 2 * (100 + 10), "both directions of 100 host links and 10 ToR links");
    // The ports listed instead of cut: the same n are accepted, all 120 are refused.
    let mut listed = s.clone();
    listed.metrics.monitor_first = None;
    listed.metrics.monitor = Some(
        strs(ports, "src")
            .iter()
            .zip(strs(ports, "dst"))
            .zip(&monitored)
            .filter(|(_, &m)| m)
            .map(|((a, b), _)| PortRef { from: a.to_string(), to: b.into() })
            .collect(),
    );
    listed.check().unwrap();
    // A cut is for the default ports only, and keeps at least one.
    let mut both = s.clone();
    both.metrics.monitor = listed.metrics.monitor.clone();
    assert!(both.validate().unwrap_err().to_string().starts_with("metrics.monitor_first: applies to the default"));
    s.metrics.monitor_first = Some(0);
    assert!(s.validate().unwrap_err().to_string().starts_with("metrics.monitor_first: 0 is out of range"));
}

#[test]
fn results_are_moved_out_once_and_a_second_call_says_so() {
    let mut sim = Sim::new(dctcp_dumbbell(2, 2 * MS)).unwrap();
    sim.run_until(dcsim_core::units::Time(MS)).unwrap();
    let t = sim.results().unwrap();
    assert!(table(&t, "queue").rows() > 50);
    let e = sim.results().unwrap_err().to_string();
    assert!(e.contains("already taken"), "{e}");
    // Running on after the results were taken is refused too (the series are gone).
    let e = sim.run().unwrap_err().to_string();
    assert!(e.contains("already taken"), "{e}");
}

#[test]
fn a_run_the_queue_memory_stops_names_the_packets_in_flight_then() {
    // Ten NewReno flows fill a 10^7-packet drop-tail buffer at 1 Gbps until the queues outgrow
    // what 6 MB leaves them. The packets the error names are those in the network at the stop:
    // by conservation, sent - delivered - dropped. (It had counted each port's unsent packets as
    // of its last sync, which depends on which handlers read the port: 26 279 or 26 283 packets
    // for this stop, 26 256 in the network; a review.)
    let mut s = dumbbell(
        10,
        GBPS,
        40 * GBPS,
        100 * US,
        10_000_000,
        AqmSpec::drop_tail(),
        ProtocolSpec::newreno(false),
        2_000 * MS,
        50 * MS,
    );
    s.metrics.queue_interval_ps = 1_000 * MS;
    s.metrics.throughput_interval_ps = 100 * MS;
    s.metrics.cwnd_interval_ps = 100 * MS;
    s.metrics.max_memory_bytes = 6_000_000;
    let mut sim = Sim::new(s).expect("the plan fits 6 MB");
    let e = sim.run().expect_err("the queues outgrow their share").to_string();
    assert!(e.starts_with("metrics.max_memory: the run stopped at t = "), "{e}");
    let held: u64 =
        e.split("the network holds ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).expect(&e);
    let c = sim.counters();
    assert_eq!(held, c.sent_pkts - c.delivered_pkts - c.dropped_pkts, "{e}");
    assert!(held > 10_000, "{e}");
    // The stop ends at an instant's end: the results are the run of 0 .. now, the packets the
    // network holds then counted in flight, the queue's mean within what the buffer reached.
    assert!(sim.stop_keeps_run(), "{e}");
    let now_s = sim.now().secs_f64();
    let tables = sim.results().expect("the run of 0 .. now");
    let col = |table: &str, name: &str| -> Vec<f64> {
        let t = tables.iter().find(|t| t.name == table).expect(table);
        match t.get(name).expect(name) {
            Column::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Column::F64(v) => v.clone(),
            _ => panic!("{name}: not a number column"),
        }
    };
    assert_eq!(col("counters", "in_flight_pkts"), vec![held as f64]);
    assert_eq!(col("counters", "now_s"), vec![now_s]);
    let (q_max, q_mean) = (col("ports", "q_max_pkt"), col("ports", "q_mean_pkt"));
    let top = q_max.iter().cloned().fold(0.0, f64::max);
    assert!(top > 10_000.0 && top <= held as f64, "{top} of {held}");
    assert!(q_mean.iter().all(|m| m.is_nan() || *m <= top), "{q_mean:?}");
}
