"""Issue 13: the per-flow-group TCP profile ("ns2" | "linux") and its named options.

Plumbing: defaults per profile, errors that name the field and list the valid names, and
combinations the transport cannot honour refused before anything runs, naming both fields.
"""

import pytest

import dcsim
from dcsim.scenario import ScenarioError

BASE = """
[network]
topology = "dumbbell"
senders = 2
bottleneck = "1Gbps"
access = "10Gbps"
rtt = "250us"
buffer = "250pkt"
aqm = {{ kind = "threshold", K = "65pkt" }}
[[flows]]
count = 2
{flow}
[run]
duration = "5ms"
seed = 1
"""


def sc(flow: str):
    return dcsim.Scenario.from_toml_str(BASE.format(flow=flow))


def err(flow: str) -> str:
    with pytest.raises((ScenarioError, ValueError)) as e:
        sc(flow)
    return str(e.value)


def test_ns2_is_the_default_and_sets_the_papers_transport():
    f = sc('protocol = "dctcp"').flows[0]
    assert f.profile == "ns2"
    assert f.tcp_engine() == {"profile": "ns2", "ecn_response": "immediate", "cwr_freeze": False, "sack": False,
                              "abc": False, "ce_quickack": False, "dctcp_fixed_point": False, "ect_acks": False}
    assert f.min_rto == pytest.approx(0.01) and f.delayed_ack is None and f.min_cwnd.value == 2


def test_linux_profile_sets_linux_defaults_and_each_option_can_be_flipped():
    f = sc('protocol = "dctcp"\nprofile = "linux"').flows[0]
    assert f.tcp_engine() == {"profile": "linux", "ecn_response": "prr", "cwr_freeze": True, "sack": True,
                              "abc": True, "ce_quickack": True, "dctcp_fixed_point": True, "ect_acks": True}
    assert f.min_rto == pytest.approx(0.2)
    assert f.delayed_ack.segments == 2 and f.delayed_ack.timeout == pytest.approx(0.04)
    assert f.min_cwnd.value == 1 and f.init_cwnd.value == 10
    # One option at a time, either way.
    f = sc('protocol = "dctcp"\nprofile = "linux"\nsack = false\nmin_rto = "1ms"\ndelayed_ack = false').flows[0]
    assert (f.sack, f.ecn_response, f.min_rto, f.delayed_ack) == (False, "prr", pytest.approx(0.001), None)
    # The profile's ce_quickack default stays quietly on (and unused) when delayed ACKs are turned off.
    f = sc('protocol = "dctcp"\nprofile = "linux"\ndelayed_ack = false').flows[0]
    assert (f.ce_quickack, f.delayed_ack) == (True, None)
    assert sc('protocol = "dctcp"\nce_quickack = true\ndelayed_ack = true').flows[0].ce_quickack is True
    f = sc('protocol = "dctcp"\nsack = true').flows[0]
    assert (f.profile, f.sack, f.ecn_response) == ("ns2", True, "immediate")
    # A NewReno without ECN has no ECN reaction to choose: the Linux profile leaves it "immediate".
    assert sc('protocol = "newreno"\nprofile = "linux"').flows[0].ecn_response == "immediate"
    assert sc('protocol = "newreno"\necn = true\nprofile = "linux"').flows[0].ecn_response == "prr"
    # Linux keeps ECT on ACKs only for a congestion control that needs ECN (DCTCP): tcp_ecn_send.
    assert sc('protocol = "newreno"\necn = true\nprofile = "linux"').flows[0].ect_acks is False
    assert sc('protocol = "dctcp-improved-fairness"\nprofile = "linux"').flows[0].ect_acks is True
    spec = sc('protocol = "dctcp"\nprofile = "linux"').to_engine_spec()["flows"][0]
    assert spec["tcp"]["profile"] == "linux" and spec["min_rto_ps"] == 200_000_000_000
    assert spec["delayed_ack"] == {"segments": 2, "timeout_ps": 40_000_000_000}


def test_unknown_profile_or_option_lists_the_valid_names():
    e = err('protocol = "dctcp"\nprofile = "bsd"')
    assert "flows[0].profile" in e and "ns2" in e and "linux" in e
    e = err('protocol = "dctcp"\necn_response = "fast"')
    assert "flows[0].ecn_response" in e and "immediate" in e and "prr" in e
    e = err('protocol = "dctcp"\nsak = true')
    assert "flows[0].sak" in e and "did you mean 'sack'" in e
    for name in ("profile", "ecn_response", "cwr_freeze", "sack", "abc", "ce_quickack", "dctcp_fixed_point", "ect_acks"):
        assert name in e


@pytest.mark.parametrize("flow, fields", [
    ('protocol = "dx"\necn_response = "prr"', ("flows[0].ecn_response", "protocol = dx never reduces its window on ECN")),
    ('protocol = "newreno"\necn_response = "prr"', ("flows[0].ecn_response", "newreno with ecn = false never sees ECN-Echo")),
    ('protocol = "dctcp-improved-fairness"\necn_response = "prr"', ("flows[0].ecn_response", "every marked ACK (eq. 36)")),
    ('protocol = "dctcp"\necn_response = "prr"\ncwr_freeze = false', ("flows[0].cwr_freeze", "ecn_response")),
    ('protocol = "dctcp"\nprofile = "linux"\ng = 0.1', ("flows[0].g", "dctcp_fixed_point")),
    ('protocol = "newreno"\ndctcp_fixed_point = true', ("flows[0].dctcp_fixed_point", "protocol = newreno")),
    ('protocol = "newreno"\nect_acks = true', ("flows[0].ect_acks", "protocol = newreno with ecn = false")),
    ('protocol = "dx"\nect_acks = true', ("flows[0].ect_acks", "protocol = dx")),
    # A CE change can only cut short a delayed ACK there is: none under ns2's default or when turned off.
    ('protocol = "dctcp"\nce_quickack = true', ("flows[0].ce_quickack", 'delayed_ack not given (profile = "ns2"')),
    ('protocol = "dctcp"\nprofile = "linux"\ndelayed_ack = false\nce_quickack = true',
     ("flows[0].ce_quickack", "delayed_ack = false")),
])
def test_impossible_combinations_name_both_fields(flow, fields):
    e = err(flow)
    for f in fields:
        assert f in e, e


def test_workload_classes_take_the_profile_too():
    t = BASE.format(flow='protocol = "dctcp"') + """
[[workloads]]
kind = "poisson"
load = 0.2
sizes = { kind = "fixed", size = "10KB" }
mix = [{ protocol = "dctcp", share = 0.5, profile = "linux", delayed_ack = false },
       { protocol = "newreno", share = 0.5 }]
"""
    w = dcsim.Scenario.from_toml_str(t).to_engine_spec()["workloads"][0]
    assert w["classes"][0]["tcp"]["profile"] == "linux" and w["classes"][0]["delayed_ack"] is None
    assert w["classes"][0]["min_rto_ps"] == 200_000_000_000
    assert w["classes"][1]["tcp"]["profile"] == "ns2"
    bad = t.replace('profile = "linux"', 'profile = "linux", ecn_response = "prr"').replace(
        '{ protocol = "newreno", share = 0.5 }', '{ protocol = "newreno", share = 0.5, ecn_response = "prr" }')
    with pytest.raises((ScenarioError, ValueError)) as e:
        dcsim.Scenario.from_toml_str(bad)
    assert "mix[1].ecn_response" in str(e.value) and "protocol" in str(e.value)
