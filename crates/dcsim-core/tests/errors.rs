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
    assert!(e.contains("network.bottleneck") && e.contains("positive"), "{e}");
    let e = err(&spec(10_000_000_000, 200, 100, "dctcp", true)).to_string();
    assert!(e.contains("network.buffer.aqm.K") && e.contains("larger than the buffer"), "{e}");
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
