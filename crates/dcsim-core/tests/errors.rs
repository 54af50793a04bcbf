//! Every invalid scenario is an Err naming the field, never a panic.

use dcsim_core::{Error, Sim};

fn spec(rate: u64, k: u64, buffer: u64, protocol: &str, flows: bool) -> String {
    let flows =
        if flows { format!(r#"[{{"src":"s0","dst":"r","protocol":{{"kind":"{protocol}"}}}}]"#) } else { "[]".into() };
    format!(
        r#"{{"seed":1,"duration_ps":1000000000,"topology":{{"kind":"dumbbell","senders":1,"bottleneck_bps":{rate},
        "access_bps":10000000000,"rtt_ps":[100000000],"bottleneck_queue":{{"capacity":{{"packets":{buffer}}},
        "aqm":{{"kind":"threshold","k":{{"packets":{k}}}}}}}}},"flows":{flows}}}"#
    )
}

fn err(json: &str) -> Error {
    match Sim::from_json(json) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => e,
    }
}

#[test]
fn valid_spec_builds() {
    assert!(Sim::from_json(&spec(10_000_000_000, 65, 100, "dctcp", true)).is_ok());
}

#[test]
fn each_invalid_input_names_its_field() {
    let e = err(&spec(0, 65, 100, "dctcp", true)).to_string();
    assert!(e.contains("network.bottleneck") && e.contains("1000 ..= 10000000000000 bit/s"), "{e}");
    let e = err(&spec(10_000_000_000, 200, 100, "dctcp", true)).to_string();
    assert!(e.contains("network.buffer.aqm.K") && e.contains("not below the buffer"), "{e}");
    // K at the buffer: an admitted arrival finds at most buffer - 1 waiting, so it never marks.
    let e = err(&spec(10_000_000_000, 100, 100, "dctcp", true)).to_string();
    assert!(e.contains("network.buffer.aqm.K") && e.contains("0 < K < buffer"), "{e}");
    assert!(Sim::from_json(&spec(10_000_000_000, 99, 100, "dctcp", true)).is_ok());
    let e = err(&spec(10_000_000_000, 65, 100, "dctpc", true)).to_string();
    assert!(e.contains("dctpc") && e.contains("dctcp") && e.contains("newreno"), "{e}");
    let e = err(&spec(10_000_000_000, 65, 100, "dctcp", false)).to_string();
    assert!(e.contains("flows") && e.contains("no flows"), "{e}");
    let bad_field = spec(10_000_000_000, 65, 100, "dctcp", true).replace("\"seed\"", "\"sead\"");
    assert!(matches!(err(&bad_field), Error::Parse(_)));
    let bad_g = spec(10_000_000_000, 65, 100, "dctcp", true).replace(r#""kind":"dctcp""#, r#""kind":"dctcp","g":1.5"#);
    let e = err(&bad_g).to_string();
    assert!(e.contains("flows[0].g") && e.contains("(0, 1]"), "{e}");
    let unknown_node = spec(10_000_000_000, 65, 100, "dctcp", true).replace(r#""src":"s0""#, r#""src":"s7""#);
    assert!(err(&unknown_node).to_string().contains("flows[0].src"));
}

#[test]
fn running_backwards_is_an_error_not_a_panic() {
    let mut sim = Sim::from_json(&spec(10_000_000_000, 65, 100, "dctcp", true)).unwrap();
    sim.run_until(dcsim_core::units::Time(500_000_000)).unwrap();
    assert!(sim.run_until(dcsim_core::units::Time(1000)).is_err());
}

/// The base spec with `from` replaced by `to` (which must occur).
fn with(from: &str, to: &str) -> String {
    let s = spec(10_000_000_000, 65, 100, "dctcp", true);
    assert!(s.contains(from), "{from} not in the spec");
    s.replace(from, to)
}

#[test]
fn times_sizes_and_rates_are_range_checked_where_they_enter() {
    // Each case: (replace, by, field the error must name, maximum it must state).
    let cases = [
        // 18446744 s is the u64-ps wrap-around point (issue 6): named and bounded, not wrapped.
        (
            r#""protocol":{"kind":"dctcp"}"#,
            r#""protocol":{"kind":"dctcp"},"min_rto_ps":18446744000000000000"#,
            "flows[0].min_rto",
            "1000000000000000000 ps",
        ),
        (
            r#""protocol":{"kind":"dctcp"}"#,
            r#""protocol":{"kind":"dctcp"},"delayed_ack":{"timeout_ps":18446744000000000000}"#,
            "flows[0].delayed_ack.timeout",
            "1000000000000000000 ps",
        ),
        (r#""rtt_ps":[100000000]"#, r#""rtt_ps":[18446744073709551615]"#, "network.rtt", "1000000000000000000 ps"),
        (
            r#""duration_ps":1000000000"#,
            r#""duration_ps":18446744073709551615"#,
            "run.duration",
            "1000000000000000000 ps",
        ),
        (
            r#""protocol":{"kind":"dctcp"}"#,
            r#""protocol":{"kind":"dctcp"},"size_bytes":18446744073709551615"#,
            "flows[0].size",
            "1000000000000000 bytes",
        ),
        (
            r#""protocol":{"kind":"dctcp"}"#,
            r#""protocol":{"kind":"dctcp"},"init_cwnd_pkt":1e300"#,
            "flows[0].init_cwnd",
            "10000000 packets",
        ),
        (
            r#""access_bps":10000000000"#,
            r#""access_bps":18446744073709551615"#,
            "network.access",
            "10000000000000 bit/s",
        ),
        (
            r#""capacity":{"packets":100}"#,
            r#""capacity":{"packets":18446744073709551615}"#,
            "network.buffer.capacity",
            "1000000000 packets",
        ),
        (r#""senders":1"#, r#""senders":4294967295"#, "network.senders", "199998"),
        // Above the RTO's 60 s cap a min_rto was the first timeout only (then 60 s): refused.
        (
            r#""protocol":{"kind":"dctcp"}"#,
            r#""protocol":{"kind":"dctcp"},"min_rto_ps":100000000000000"#,
            "flows[0].min_rto",
            "60000000000000 ps",
        ),
    ];
    for (from, to, field, max) in cases {
        let e = err(&with(from, to)).to_string();
        assert!(e.contains(field) && e.contains(max), "{to}: {e}");
    }
}

#[test]
fn parse_errors_name_the_field_path() {
    // A float where an integer belongs (issue 6: "expected u64" named no field).
    let e = err(&with(r#""senders":1"#, r#""senders":1e21"#)).to_string();
    // serde buffers internally tagged enums, so the path stops at the enum: still named.
    assert!(e.contains("topology") && e.contains("expected u32"), "{e}");
    let e = err(&with(r#""seed":1"#, r#""seed":true"#)).to_string();
    assert!(e.contains("seed"), "{e}");
}

#[test]
fn memory_is_bounded_in_bytes_with_the_interval_to_lengthen() {
    // cwnd sampled every 1 ns over 1 ms: 10^6 rows x (40 B + 160 B of front-end copies): 200 MB > a 10 MB bound.
    let s = with(r#""flows":["#, r#""metrics":{"cwnd_interval_ps":1000,"max_memory_bytes":10000000},"flows":["#);
    let e = err(&s).to_string();
    assert!(e.starts_with("metrics.cwnd_interval:") && e.contains("lengthen metrics.cwnd_interval"), "{e}");
    // Every 100 ns: 10^4 rows x 200 B = 2 MB, plus the rest, fits in 10 MB.
    let s = with(r#""flows":["#, r#""metrics":{"cwnd_interval_ps":100000,"max_memory_bytes":10000000},"flows":["#);
    assert!(Sim::from_json(&s).is_ok());
    // Row arithmetic that would wrap in u64: 2^59 ps x 32 monitored ports is checked, not wrapped.
    let mon = (0..32).map(|_| r#"{"from":"sw","to":"r"}"#).collect::<Vec<_>>().join(",");
    let s = with(r#""flows":["#, &format!(r#""metrics":{{"queue_interval_ps":1,"monitor":[{mon}]}},"flows":["#));
    let e = err(&s).to_string();
    assert!(e.contains("metrics.monitor[1]") && e.contains("already monitored"), "{e}");
}

#[test]
fn a_finished_flow_never_waits_for_its_nic() {
    // Issue 6 reproducer: 1 sender, 10 Gbps bottleneck, 40 Mbps access, 800 us RTT, 100-pkt buffer;
    // a 1000 B NewReno flow with min_rto = 1 us and a 5-packet one; 5 ms. It used to loop forever
    // at one instant (the wake-up of the finished flow re-armed itself).
    let json = r#"{"seed":1,"duration_ps":5000000000,"topology":{"kind":"dumbbell","senders":1,
        "bottleneck_bps":10000000000,"access_bps":40000000,"rtt_ps":[800000000],
        "bottleneck_queue":{"capacity":{"packets":100},"aqm":{"kind":"drop_tail"}}},
        "flows":[{"src":"s0","dst":"r","protocol":{"kind":"newreno"},"size_bytes":1000,"min_rto_ps":1000000},
                 {"src":"s0","dst":"r","protocol":{"kind":"newreno"},"size_bytes":7300}]}"#;
    let mut sim = Sim::from_json(json).unwrap();
    sim.run().expect("the run ends");
    sim.check_invariants().unwrap();
    let t = sim.results().unwrap();
    let flows = t.iter().find(|t| t.name == "flows").unwrap();
    // Both finish: the 5-packet flow needs ~ 5 x 300 us serialisation + 800 us RTT < 5 ms.
    assert!(flows.f64("fct_s").iter().all(|x| x.is_finite()), "{:?}", flows.f64("fct_s"));
}

#[test]
fn dx_inputs_name_their_field() {
    assert!(Sim::from_json(&with(r#""kind":"dctcp""#, r#""kind":"dx""#)).is_ok());
    assert!(Sim::from_json(&with(r#""kind":"dctcp""#, r#""kind":"dx","r0":"path""#)).is_ok());
    assert!(Sim::from_json(&with(r#""kind":"dctcp""#, r#""kind":"dctcp_improved_fairness","g":0.1"#)).is_ok());
    // R0 <= 0
    let e = err(&with(r#""kind":"dctcp""#, r#""kind":"dx","r0":{"fixed_ps":0}"#)).to_string();
    assert!(e.contains("flows[0].R0") && e.contains("positive"), "{e}");
    // a DX window floor below one segment
    let e =
        err(&with(r#""protocol""#, r#""min_cwnd_pkt":0.5,"protocol""#).replace(r#""kind":"dctcp""#, r#""kind":"dx""#))
            .to_string();
    assert!(e.contains("flows[0].min_cwnd") && e.contains("allowed 1"), "{e}");
    // DX's R0 is not a DCTCP parameter; unknown R0 modes are parse errors naming the path
    assert!(matches!(err(&with(r#""kind":"dctcp""#, r#""kind":"dctcp","r0":"path""#)), Error::Parse(_)));
    let e = err(&with(r#""kind":"dctcp""#, r#""kind":"dx","r0":"fastest""#)).to_string();
    assert!(e.contains("flows[0].protocol.r0") || e.contains("flows[0].protocol"), "{e}");
    // improved-fairness g out of range
    let e = err(&with(r#""kind":"dctcp""#, r#""kind":"dctcp_improved_fairness","g":0"#)).to_string();
    assert!(e.contains("flows[0].g"), "{e}");
}

#[test]
fn memory_bound_has_a_documented_range() {
    // metrics.max_memory: 1 MB ..= 1 TB, both ends allowed, the error names the field and range.
    for (bytes, ok) in [
        (0u64, false),
        (999_999, false),
        (1_000_000, true),
        (1_000_000_000_000, true),
        (1_000_000_000_001, false),
        (u64::MAX, false),
    ] {
        let s = with(r#""flows":["#, &format!(r#""metrics":{{"max_memory_bytes":{bytes}}},"flows":["#));
        match dcsim_core::Spec::from_json(&s).and_then(|sp| sp.check()) {
            Ok(()) => assert!(ok, "{bytes} B accepted"),
            Err(e) => {
                let e = e.to_string();
                assert!(!ok, "{bytes} B refused: {e}");
                assert!(e.starts_with("metrics.max_memory:") && e.contains("allowed 1MB .. 1TB"), "{e}");
            }
        }
    }
}

#[test]
fn tcp_profile_and_options_are_checked_by_name() {
    // An unknown profile or option: a parse error that lists the valid names.
    let e = err(&with(r#""protocol":{"kind":"dctcp"}"#, r#""protocol":{"kind":"dctcp"},"tcp":{"profile":"bsd"}"#))
        .to_string();
    assert!(e.contains("bsd") && e.contains("ns2") && e.contains("linux"), "{e}");
    let e =
        err(&with(r#""protocol":{"kind":"dctcp"}"#, r#""protocol":{"kind":"dctcp"},"tcp":{"sak":true}"#)).to_string();
    assert!(e.contains("sak") && e.contains("sack") && e.contains("ecn_response") && e.contains("profile"), "{e}");
    // PRR for a controller that never cuts on ECN: both fields named.
    let e = err(&with(r#""protocol":{"kind":"dctcp"}"#, r#""protocol":{"kind":"dx"},"tcp":{"ecn_response":"prr"}"#))
        .to_string();
    assert!(e.contains("flows[0].ecn_response") && e.contains("flows[0].protocol = dx"), "{e}");
    let e = err(&with(
        r#""protocol":{"kind":"dctcp"}"#,
        r#""protocol":{"kind":"dctcp"},"tcp":{"ecn_response":"prr","cwr_freeze":false}"#,
    ))
    .to_string();
    assert!(e.contains("flows[0].cwr_freeze") && e.contains("flows[0].ecn_response"), "{e}");
    let e = err(&with(
        r#""protocol":{"kind":"dctcp"}"#,
        r#""protocol":{"kind":"dctcp","g":0.1},"tcp":{"profile":"linux"}"#,
    ))
    .to_string();
    assert!(e.contains("flows[0].g") && e.contains("flows[0].dctcp_fixed_point"), "{e}");
    // ECT on the ACKs of a connection whose data is not ECN-capable.
    let e = err(&with(
        r#""protocol":{"kind":"dctcp"}"#,
        r#""protocol":{"kind":"newreno","ecn":false},"tcp":{"ect_acks":true}"#,
    ))
    .to_string();
    assert!(e.contains("flows[0].ect_acks") && e.contains("flows[0].protocol = newreno with ecn = false"), "{e}");
}
