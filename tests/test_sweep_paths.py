"""dcsim.paths: dotted paths into TOML-shaped dicts (the sweep's axes, later Scenario.replace)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsim.paths import PathError, format_path, get_path, has_path, model_path_error, parse_path, set_path, set_paths
from dcsim.scenario import Scenario, load_scenario

ROOT = Path(__file__).resolve().parent.parent

DOC = {
    "network": {"rtt": ["100us", "200us"], "aqm": {"kind": "threshold", "K": "65pkt"}},
    "flows": [{"count": 2, "protocol": "dctcp"}, {"count": 1, "protocol": "newreno"}],
    "run": {"duration": "10ms"},
}

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
parts_st = st.tuples(names).flatmap(
    lambda first: st.lists(st.one_of(names, st.integers(0, 50)), max_size=6).map(lambda rest: first + tuple(rest))
)


@settings(deadline=None)  # a loaded CI machine must not turn a slow example into a failure
@given(parts_st)
def test_parse_is_the_inverse_of_format(parts):
    assert parse_path(format_path(parts)) == parts


def test_parse_examples():
    assert parse_path("network.aqm.K") == ("network", "aqm", "K")
    assert parse_path("flows[1].protocol") == ("flows", 1, "protocol")
    assert parse_path("network.links[0].aqm.K") == ("network", "links", 0, "aqm", "K")
    assert parse_path("a[1][2]") == ("a", 1, 2)
    assert format_path(("flows", 1, "protocol")) == "flows[1].protocol"


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "1a", "a[x]", "a[-1]", "a[1", "a]1[", "a b"])
def test_malformed_paths_are_errors_naming_the_path(bad):
    with pytest.raises(PathError) as e:
        parse_path(bad)
    assert str(e.value).startswith(repr(bad) if bad == "" else bad)


def test_get():
    assert get_path(DOC, "network.aqm.K") == "65pkt"
    assert get_path(DOC, "flows[1].protocol") == "newreno"
    assert get_path(DOC, "network.rtt[1]") == "200us"
    assert get_path(DOC, "flows") is DOC["flows"]
    assert has_path(DOC, "flows[0].count") and not has_path(DOC, "flows[2].count")


@pytest.mark.parametrize(
    "path, message",
    [
        ("network.aqm.KK", "network.aqm.KK: no such key; did you mean 'K'? keys there: kind, K"),
        ("flows[2].protocol", "flows[2]: index out of range; flows has 2 entries; allowed flows[0] .. flows[1]"),
        # In a scenario file's words: it had said "is str '65pkt'" (a probe).
        ("network.aqm.K.x", "network.aqm.K.x: network.aqm.K is the text '65pkt', not a table"),
        ("flows.count", "flows.count: flows is a list of 2, not a table"),
        ("run[0]", "run[0]: run is a table, not a list"),
    ],
)
def test_get_errors_name_the_path(path, message):
    with pytest.raises(PathError) as e:
        get_path(DOC, path)
    assert str(e.value) == message
    assert e.value.path == message.split(":")[0]


def test_set_returns_a_copy_and_leaves_the_input_alone():
    before = copy.deepcopy(DOC)
    new = set_path(DOC, "flows[1].protocol", "dctcp")
    assert DOC == before
    assert new["flows"][1]["protocol"] == "dctcp"
    assert new["flows"][0] == DOC["flows"][0]
    new2 = set_paths(DOC, {"network.aqm.K": "20pkt", "run.seed": 7, "metrics.queue_interval": "1us"})
    assert (new2["network"]["aqm"]["K"], new2["run"]["seed"], new2["metrics"]) == ("20pkt", 7, {"queue_interval": "1us"})
    assert DOC == before


def test_set_never_creates_list_entries_or_goes_through_values():
    with pytest.raises(PathError, match=r"^flows\[5\]: index out of range"):
        set_path(DOC, "flows[5].g", 0.1)
    with pytest.raises(PathError, match=r"^network.links\[0\]: network.links is not in the document"):
        set_path(DOC, "network.links[0].rate", "1Gbps")
    with pytest.raises(PathError, match=r"^run.duration.x: run.duration is the text"):
        set_path(DOC, "run.duration.x", 1)
    with pytest.raises(PathError, match="no such key"):
        set_path(DOC, "run.seed", 1, create=False)


def _leaves(d, prefix=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from _leaves(v, prefix + (i,))
    else:
        yield prefix, d


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_set_then_get_gives_the_value_and_nothing_else_changes(data):
    leaves = list(_leaves(DOC))
    path, _ = data.draw(st.sampled_from(leaves))
    value = data.draw(st.one_of(st.integers(), st.text(max_size=5), st.booleans()))
    new = set_path(DOC, format_path(path), value)
    assert get_path(new, path) == value
    for other, v in leaves:
        if other != path:
            assert get_path(new, other) == v


@pytest.mark.parametrize("example", sorted(p for p in (ROOT / "examples").glob("*.toml") if not p.name.startswith("sweep")))
def test_every_field_of_a_real_scenario_is_a_model_path(example):
    d = load_scenario(example).to_dict()
    for path, _ in _leaves(d):
        assert model_path_error(Scenario, path) is None, format_path(path)


@pytest.mark.parametrize(
    "path, expect",
    [
        ("network.aqm.KK", "network.aqm.KK: 'KK' is not a field of network.aqm; did you mean 'K'?"),
        ("netwrk.aqm.K", "netwrk: 'netwrk' is not a field of the top level; did you mean 'network'?"),
        ("flows[0].protocl", "flows[0].protocl: 'protocl' is not a field of flows[0]; did you mean 'protocol'?"),
        ("run.duration.x", "run.duration.x: run.duration is a value, not a table"),
        ("flows.g", "flows.g: flows is a value, not a table"),
        ("run[0]", "run[0]: run is not a list"),
    ],
)
def test_model_path_errors(path, expect):
    err = model_path_error(Scenario, path)
    assert err is not None and err.startswith(expect)


def test_model_paths_through_optional_union_and_lists():
    for path in ("network.aqm.K", "network.links[3].aqm.min_th", "flows[7].delayed_ack.segments", "network.rtt[2]", "metrics.monitor[0]"):
        assert model_path_error(Scenario, path) is None, path
