"""The public scenario model: what a user writes (TOML or Python), validated before anything runs.

A scenario file looks like this (``examples/dctcp_dumbbell.toml``)::

    [network]
    topology = "dumbbell"          # or "graph" with [[network.nodes]] and [[network.links]]
    senders = 10                   # default: the number of flows
    bottleneck = "10Gbps"
    access = "10Gbps"              # default: same as bottleneck
    rtt = "100us"                  # base round-trip propagation delay; or a list, one per sender
    buffer = "1000pkt"
    aqm = { kind = "threshold", K = "65pkt" }

    [[flows]]
    count = 10
    protocol = "dctcp"
    g = 0.0625

    [run]
    duration = "1s"
    warmup = "50ms"
    seed = 1

Quantities carry units at the edge ("10Gbps", "100us", "65pkt", "256KB"; parsed by
:mod:`dcsim.units`); inside the model they are SI floats (bit/s, s) or :class:`~dcsim.units.Size`.
:meth:`Scenario.to_engine_spec` turns the model into the engine's JSON (integer picoseconds
``_ps``, bit/s ``_bps``; ``crates/dcsim-core/src/scenario.rs`` is the contract).

Every invalid input raises :class:`ScenarioError` with one plain line per problem,
``field: what is wrong; allowed ...``, where ``field`` is the path in the file
(``flows[0].protocol``, ``network.aqm.K``).
"""

# No `from __future__ import annotations` here: the models' annotations are then objects when each
# class is made, which pydantic uses as they are, instead of strings it must evaluate (~220 of them):
# `import dcsim.scenario` 129 -> 121 ms (benchmarks/MEASUREMENTS.md, command latency). Annotations
# must therefore run on Python 3.9: Optional[...] / Union[...], no `X | Y`.

import contextlib
import contextvars
import functools
import gc
import json
import math
import numbers
import os
import re
import sys
from array import array
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, ClassVar, Iterable, Iterator, Optional, Union

from pydantic import (
    BaseModel,
    PrivateAttr,
    ConfigDict,
    Field,
    ValidationError,
    WrapValidator,
    create_model,
    field_serializer,
    model_serializer,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema

from dcsim import _core
from dcsim.units import BYTE_FORMS, NotFiniteError, Size, UnitError, count_shown, did_you_mean, exact_num, fmt_bytes, fmt_rate, fmt_time, fmt_wall, parse_rate, parse_size, parse_time, shown, to_ps

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = [
    "ScenarioError",
    "ScenarioWarning",
    "Scenario",
    "Network",
    "Aqm",
    "Node",
    "Link",
    "Tier",
    "FlowGroup",
    "DelayedAck",
    "Run",
    "Metrics",
    "FlowInfo",
    "Workload",
    "Sizes",
    "FlowClass",
    "read_cdf",
    "CDF_NAMES",
    "load_scenario",
    "PROTOCOLS",
    "PROTOCOL_TABLE",
    "AQM_KINDS",
    "TOPOLOGIES",
]

#: The engine's defaults (crates/dcsim-core/src/scenario.rs), read from the engine so that each
#: default lives in one place.
ENGINE_DEFAULTS: dict = json.loads(_core.engine_defaults())
#: The L2 schemes' target queues when not given (the engine's defaults: DSM q0, QCN Qeq).
ENGINE_L2_DEFAULTS = {"q0_bytes": ENGINE_DEFAULTS["l2_dsm_q0_bytes"], "qcn_qeq_bytes": ENGINE_DEFAULTS["l2_qcn_qeq_bytes"]}


def _s(key: str) -> float:
    """An engine default in picoseconds, in seconds."""
    return ENGINE_DEFAULTS[key] / 1e12


#: The window congestion controllers as the engine describes them (crates/dcsim-core/src/cc/mod.rs,
#: protocols_table), by name: for each, its engine ``kind``, its parameters (name, engine field,
#: unit, default), its window floor ``min_cwnd_pkt`` and the facts of its defaults. A protocol
#: added to the engine needs no change here.
PROTOCOL_TABLE: dict[str, dict] = {p["name"]: p for p in ENGINE_DEFAULTS["protocols"]}
PROTOCOLS = tuple(PROTOCOL_TABLE)
#: Each protocol's parameters (names in scenarios) -> the engine's field.
PROTOCOL_PARAMS: dict[str, dict[str, str]] = {
    n: {p["name"]: p["field"] for p in t["params"]} for n, t in PROTOCOL_TABLE.items()}


@functools.lru_cache(maxsize=2048)
def _engine_answer(question: str, *args: Any) -> str:
    """The engine's answer, as JSON, to ``_core.<question>(*args)``: the facts or the range check of
    a protocol (``protocol_facts``, ``protocol_check``) or a queue (``queue_facts``,
    ``queue_check``), asked with its engine table as JSON (keys sorted); cached, as a scenario asks
    the same question of many flows and queues."""
    return getattr(_core, question)(*args)


def _refusal(answer: str) -> Optional[tuple[str, str]]:
    """(parameter, message) of an engine check that refused, else None."""
    found = json.loads(answer)
    return None if found is None else (found["field"], found["message"])


def _protocol_facts(protocol_engine: dict) -> dict[str, Any]:
    """What the engine's controller says of a protocol (``ProtocolSpec::facts``), given the engine's
    ``protocol`` table of a flow (:meth:`FlowGroup.protocol_engine`): ``ect`` (its data packets are
    ECN-capable), ``cuts_on_ecn`` (it cuts once per window on ECN-Echo, so the ECN reaction can be
    chosen), ``dctcp_alpha`` (it keeps DCTCP's alpha: Linux's DCTCP arithmetic and ECT ACKs under
    the linux profile), ``delay_based`` (it reads RTT samples against a base RTT as queueing delay,
    as DX does), and for errors ``no_window_cut_why`` (why it never cuts once per window on ECN)
    and ``not_ect_as`` (how a flow of it that is not ECN-capable is written: NewReno's " with ecn =
    false"). Asked of the engine so that each controller states them in one place."""
    return json.loads(_engine_answer("protocol_facts", json.dumps(protocol_engine, sort_keys=True)))


def _ect_advice(flow: "FlowGroup") -> str:
    """The fix a not-ECN-capable flow's warning suggests: "set ecn = true" when its protocol has a
    parameter ``ecn`` and the engine's facts say that setting it makes the flow's packets ECN-capable
    (NewReno's ECN option); nothing otherwise. Asked of the table, not of a protocol's name."""
    field = PROTOCOL_PARAMS[flow.protocol].get("ecn")
    if field is None:
        return ""
    return "; set ecn = true to mark them" if _protocol_facts({**flow.protocol_engine(), field: True})["ect"] else ""


#: Which TCP the transport imitates (crates/dcsim-core/src/scenario.rs `Profile`; README "Which TCP?").
TCP_PROFILES = ("ns2", "linux")
#: ECN reactions of a controller that cuts once per window (NewReno-ECN, DCTCP).
ECN_RESPONSES = ("immediate", "prr")
#: The transport options a profile sets the defaults of (each can be given on its own).
TCP_OPTIONS = ("ecn_response", "cwr_freeze", "sack", "abc", "ce_quickack", "dctcp_fixed_point", "ect_acks")
#: DX's R0 (base RTT): the minimum RTT sample seen, or the path's exact base RTT, or a time.
DX_R0_MODES = ("min", "path")
#: The queue disciplines' names in scenarios (``AQM_TABLE``: the engine's).
AQM_KINDS = tuple(q["name"] for q in ENGINE_DEFAULTS["queues"])
TOPOLOGIES = ("dumbbell", "graph", "tree", "parking_lot", "leaf_spine", "fat_tree")
#: Data-center fabrics (built with ECMP), and the tiers of links each has ([network.tiers.NAME]).
FABRIC_TIERS = {"leaf_spine": ("host", "leaf_spine"), "fat_tree": ("host", "edge_agg", "agg_core")}
#: The node levels of a leaf-spine or fat-tree from the hosts up, as their names' prefixes (a node
#: is named prefix + number); a link of tier FABRIC_TIERS[t][i] joins levels i and i + 1.
FABRIC_LEVELS = {"leaf_spine": ("h", "leaf", "spine"), "fat_tree": ("h", "edge", "agg", "core")}
#: One-way propagation delay of every fabric link when neither network.delay nor a tier gives one, s.
DEFAULT_FABRIC_DELAY_S = 1e-6
NODE_KINDS = ("host", "switch")

#: The engine's documented maxima (crates/dcsim-core/src/scenario.rs), checked here first so that
#: nothing is expanded or allocated for an impossible scenario.
LIMITS: dict = ENGINE_DEFAULTS["limits"]
#: Longest time any field may hold (the run, delays, timers), s: 10^6 s. The engine's u64
#: picosecond clock reaches 1.8e7 s, so sums of a few such times never wrap.
#: A receiver's inbound load on the wire at least this many times the receivers' average (link =
#: "hosts") is said: receivers are drawn uniformly whatever their link rates.
RECEIVER_SKEW = 1.5
MAX_TIME_S = LIMITS["max_time_ps"] / 1e12
MAX_DURATION_S = MAX_TIME_S
#: Most parts a run may be split into (run.partitions).
MAX_PARTITIONS = LIMITS["max_partitions"]
MIN_RATE_BPS = float(LIMITS["min_rate_bps"])
#: Flows whose time series are kept by default (every paper experiment has at most 100).
DEFAULT_TRACE_FLOWS = 100
#: The "auto" window interval keeps the window series of the listed flows to at most this many rows
#: per simulated second (40 MB per simulated second at 40 B a row): 10 flows every 10 us, 100 every
#: 100 us. Writing rows costs memory traffic, not events: 100 flows every 22 us (4.5 M rows per
#: simulated second) took ~20 % of a 5 000-flow run. Little detail is lost: a flow's window
#: changes only when one of its ACKs arrives, and k flows sharing a 10 Gbps bottleneck (1 500 B
#: packets: 1.2 us each) get an ACK every ~1.2 k us each (faster links: write the interval out).
WINDOW_ROWS_PER_S = 1_000_000
MAX_RATE_BPS = float(LIMITS["max_rate_bps"])


#: :meth:`Scenario.warnings` says a flow's first RTO is likely spurious from a propagation RTT of
#: this fraction of it (the first ACK also waits for serialisation and queueing).
INITIAL_RTO_WARN_FRACTION = 0.8


class ScenarioWarning(UserWarning):
    """A plausible but suspicious setting (see :meth:`Scenario.warnings`); the run goes ahead."""


class ScenarioError(ValueError):
    """An invalid scenario. ``str(err)`` is one ``field: problem; allowed ...`` line per problem."""


class RunLimitError(ScenarioError):
    """A run stopped by one of the scenario's bounds while it ran (metrics.max_memory: the packets
    its queues held, or its generated flows running at once, outgrew what the bound left for them;
    run.max_wall: it took longer than that wall-clock time). ``str(err)`` names the field.
    ``partial``: past the warm-up, the :class:`~dcsim.Result` of the time simulated (see
    :func:`dcsim.simulate`); None before it, for a partitioned run stopped by metrics.max_memory
    (its worlds stop at different times), or for a stop inside an instant (the message says so).
    ``field``: the bound, "metrics.max_memory" or "run.max_wall"; ``engine_spec``: the engine spec
    of the run asked for (its whole duration; a sweep keys the run by it); ``partial_lost``: True
    when the run was past its warm-up but its results could not be built (a MemoryError, said in
    the message): this machine's limit, not the run's (a sweep tries such a run again)."""

    partial: Any = None
    field: Optional[str] = None
    engine_spec: Optional[dict] = None
    partial_lost: bool = False


# --------------------------------------------------------------------------------------------
# Errors: every check raises _err(field, msg); _format turns pydantic's errors into plain lines.


def _err(field: Union[str, tuple], msg: str) -> PydanticCustomError:
    """An error about ``field`` (relative to the model being validated): a dotted path such as
    "links[2].rate", or a tuple of path parts (for keys that are not identifiers)."""
    # pydantic fills "{name}" placeholders of the template from the context (it does not unescape
    # "{{"), so the message goes in as a context value, shown as is: braces in it stay single.
    return PydanticCustomError("dcsim", "{msg}", {"field": field, "msg": msg})


_MISSING_HINTS = {
    "protocol": "; allowed: " + ", ".join(PROTOCOLS),
    "duration": '; e.g. duration = "1s"',
    "network": "; give a [network] table (topology, bottleneck, rtt, buffer, aqm)",
    "run": '; give a [run] table with duration, e.g. duration = "1s"',
    "rate": '; e.g. rate = "10Gbps"',
    "delay": '; the one-way propagation delay, e.g. delay = "10us"',
}


#: pydantic's own type errors in the words of the rest of the scenario's errors.
_TYPE_WORDING = {
    "list_type": "expected a list: an array [...] or repeated [[tables]]",
    "string_type": "expected a string",
    "dict_type": "expected a table of keys and values",
    "model_type": "expected a table of keys and values",
    "int_type": "expected a whole number",
    "float_type": "expected a number",
    "bool_type": "expected true or false",
}


_shown = shown  # a user's value in an error (dcsim.units.shown)


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _quote(text: str) -> str:
    """A key as a quoted TOML key, with non-printable characters escaped (one line, always)."""
    body = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text.replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{body}"'


def _loc_path(loc: tuple) -> str:
    """("flows", 0, "g") -> "flows[0].g"; a key that is not an identifier is quoted as in TOML."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part != "":
            text = str(part)
            out += ("." if out else "") + (text if _IDENT.match(text) else _quote(text))
    return out


def _format_error(e: dict) -> str:
    loc = tuple(e.get("loc", ()))
    ctx = e.get("ctx") or {}
    if e.get("type") == "dcsim" and ctx.get("field"):
        field = ctx["field"]
        loc = loc + (tuple(field) if isinstance(field, (tuple, list)) else tuple(_split_field(field)))
    msg = e.get("msg", "")
    if e.get("type") == "extra_forbidden":
        msg = "unknown key; " + _allowed_keys_hint(loc)
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    if e.get("type") == "missing":
        msg = "required but missing" + _MISSING_HINTS.get(str(loc[-1]) if loc else "", "")
    if e.get("type") in _TYPE_WORDING:
        msg = f"{_TYPE_WORDING[e['type']]}, got {_shown(e.get('input'))}"
    if len(loc) >= 2 and loc[-1] == "[key]":  # pydantic's mark of a table's key that is wrong itself
        msg = f"key {loc[-2]!r}: {msg}"
        loc = loc[:-2]
    path = _loc_path(loc) or "scenario"
    return f"{path}: {msg}"


def _model_at(loc: tuple) -> Optional[type]:
    """The scenario table (model class) that holds the key at ``loc``, by walking the field types."""
    import typing

    cls: Any = Scenario
    keyed = False  # the last field was a table of tables: the next part is one of its keys
    for part in loc[:-1]:
        if isinstance(part, int) or keyed:
            keyed = False
            continue
        field = getattr(cls, "model_fields", {}).get(part)
        if field is None:
            return None
        todo, found = [field.annotation], None
        while todo:
            t = todo.pop()
            # typing.get_origin first: on Python 3.9 `list[FlowGroup]` passes isinstance(.., type),
            # and issubclass then raises TypeError (an unknown key gave an internal error there)
            if typing.get_origin(t) is None and isinstance(t, type) and issubclass(t, BaseModel):
                found = t
                break
            keyed = keyed or typing.get_origin(t) is dict
            todo.extend(typing.get_args(t))
        if found is None:
            return None
        cls = found
    return cls


def _allowed_keys_hint(loc: tuple) -> str:
    cls = _model_at(loc)
    if cls is None or not loc:
        return "see the scenario format in the README"
    allowed = list(cls.model_fields)
    return f"{did_you_mean(str(loc[-1]), allowed)}allowed keys: {', '.join(allowed)}"


def _split_field(field: str) -> list:
    """"links[2].rate" -> ["links", 2, "rate"] so that paths join uniformly."""
    parts: list = []
    for piece in field.split("."):
        while "[" in piece:
            name, rest = piece.split("[", 1)
            idx, piece = rest.split("]", 1)
            if name:
                parts.append(name)
            parts.append(int(idx))
        if piece:
            parts.append(piece)
    return parts


#: The problems one ScenarioError lists; the rest are counted ("... and N more"). 30 000 unknown
#: keys had made 30 000 lines of 270 characters in 17 s, most of it in naming the allowed keys of
#: each (a fuzz run).
MAX_ERROR_LINES = 20


def _scenario_error(exc: ValidationError) -> ScenarioError:
    lines: list[str] = []
    errors = exc.errors()
    for k, e in enumerate(errors):
        if len(lines) == MAX_ERROR_LINES:
            rest = len(errors) - k
            lines.append(f"... and {count_shown(rest, 'more problem')} (the first {MAX_ERROR_LINES} are shown)")
            break
        line = _format_error(e)
        if line not in lines:
            lines.append(line)
    return ScenarioError("\n".join(lines))


# --------------------------------------------------------------------------------------------
# Quantity fields: parsed with dcsim.units, serialised back to an exact string with a unit.


def _strip_what(e: UnitError) -> str:
    msg = str(e)
    return msg.split(": ", 1)[1] if msg.startswith("\0: ") else msg


def _exact(x: float, units: list[tuple[str, float]], parse, mul: bool) -> str:
    """Shortest string with a unit that parses back to exactly ``x``."""
    if x == 0:
        return "0" + units[-1][0]
    for unit, scale in units:
        v = x / scale if mul else x * scale
        if abs(v) >= 1 or unit == units[-1][0]:
            for digits in (6, 9, 12, 15, 17):
                s = f"{v:.{digits}g}"
                if "e" not in s and parse(s + unit, "x") == x:
                    return s + unit
    return repr(x) + units[-1][0]


_RATE_FMT = [("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0)]
_BYTES_FMT = [("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0)]
_TIME_FMT = [("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9), ("ps", 1e12)]


def rate_str(bps: float) -> str:
    """bit/s -> "10Gbps" (exact: parses back to the same float)."""
    return _exact(bps, _RATE_FMT, parse_rate, mul=True)


def time_str(s: float) -> str:
    """seconds -> "100us" (exact: parses back to the same float)."""
    if s == 0:
        return "0s"
    for unit, div in _TIME_FMT:
        v = s * div
        if abs(v) >= 1 or unit == "ps":
            for digits in (6, 9, 12, 15, 17):
                txt = f"{v:.{digits}g}"
                if "e" not in txt and parse_time(txt + unit, "x") == s:
                    return txt + unit
    return f"{s!r}s"  # exact: float repr round-trips


def size_shown(sz: Size) -> str:
    """Size -> "1MB" / "65pkt": like size_str, but bytes in the largest decimal unit that keeps
    the value exact (for descriptions; size_str's plain bytes, "1000000B", stay for TOML)."""
    if sz.unit == "pkt":
        return size_str(sz)
    return _exact(float(sz.value), _BYTES_FMT, lambda t, what: float(parse_size(t, what).value), mul=True)


def size_str(sz: Size) -> str:
    """Size -> "65pkt" / "256000B" (exact)."""
    v = sz.value
    num = str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(float(v))
    return num + ("pkt" if sz.unit == "pkt" else "B")


def _not_a_number(v: Any) -> str:
    """"not a number, so " for a NaN (TOML's nan, float("nan")), whose "out of range" alone read as
    if one end of the range had been crossed (a review); else ""."""
    return "not a number, so " if isinstance(v, float) and math.isnan(v) else ""


def _rate_v(v: Any) -> float:
    try:
        return parse_rate(v, "\0")
    except NotFiniteError:  # "1e400Gbps": said with the range every rate is within
        raise ValueError(f"{v!r} is {_not_a_number(v)}out of range; allowed 1Kbps .. 10Tbps, e.g. \"10Gbps\"") from None
    except UnitError as e:
        raise ValueError(_strip_what(e)) from None


def _check_time_range(x: float, v: Any) -> float:
    if abs(x) > MAX_TIME_S:
        raise ValueError(f"{v!r} is out of range; allowed at most {MAX_TIME_S:g} s (10^6 s)")
    if x != 0 and to_ps(abs(x)) == 0:  # it would reach the engine as 0 ps ("must be positive" of 1e-300 s: a probe)
        # (not "allowed 0": of the times, only some take 0, and a field that must be positive said so)
        raise ValueError(f"{v!r} is below the engine's time resolution of 1 ps (it would be 0); give at least 1ps")
    return x


def _time_v(v: Any) -> float:
    try:
        x = parse_time(v, "\0")
    except NotFiniteError:  # "1e400s": said with the range every time is within
        raise ValueError(f"{v!r} is {_not_a_number(v)}out of range; allowed at most {MAX_TIME_S:g} s (10^6 s)") from None
    except UnitError as e:
        raise ValueError(_strip_what(e)) from None
    return _check_time_range(x, v)


#: Tables and lists nest at most this deep in a scenario (its deepest field is ~6 levels down).
MAX_NESTING = 32


def _check_shape(data: dict) -> None:
    """Raise ScenarioError unless ``data``'s tables have string keys and nest at most MAX_NESTING
    levels (a table that holds itself, from Python, nests without end)."""
    todo: list[tuple[Any, int, str]] = [(data, 1, "")]
    while todo:
        obj, depth, at = todo.pop()
        if depth > MAX_NESTING:
            raise ScenarioError(f"{(at or 'scenario')[:100]}: nested too deeply (allowed at most {MAX_NESTING} levels of "
                                "tables and lists; a table that holds itself never ends)")
        if isinstance(obj, dict):
            for k, v in obj.items():
                if not isinstance(k, str):
                    raise ScenarioError(f"{at or 'scenario'}: key {k!r}: expected a string, got {k!r}")
                if isinstance(v, (dict, list, tuple)):
                    todo.append((v, depth + 1, f"{at}.{k}" if at else k))
        else:
            todo.extend((v, depth + 1, f"{at}[{i}]") for i, v in enumerate(obj) if isinstance(v, (dict, list, tuple)))


def plain(obj: Any) -> Any:
    """``obj`` with NumPy scalars and arrays as Python's own numbers and lists, and paths
    (``pathlib.Path``) as text, in tables and lists at any depth (values from Python callers: a
    sweep axis from np.arange, a number read from a DataFrame, a file named by a Path), so that they
    validate and serialise as what they are."""
    if isinstance(obj, os.PathLike):  # "expected a string, got PosixPath(...)" before (an API probe)
        return os.fspath(obj)
    if type(obj).__module__.split(".")[0] == "numpy" and hasattr(obj, "tolist"):  # numpy, numpy.ma.core
        v = obj.tolist()
        if type(v).__module__.split(".")[0] == "numpy":  # longdouble, clongdouble: no Python twin
            return float(v) if isinstance(v, numbers.Real) else v
        return plain(v)
    if isinstance(obj, dict):
        return {plain(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(plain(v) for v in obj)
    return obj


def _int_v(v: Any) -> int:
    """A whole number: TOML/JSON integers, or NumPy's from Python (no true/false, no 2.0, no "2").
    Its range is the field's: every integer field checks its own (none is wider than 64 bits), so
    that 10^20 senders is told "allowed 1 .. 199998", not a width."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ValueError(f"expected a whole number, got {_shown(v)}")
    v = int(v)
    return v if -(2**63) <= v < 2**64 else _WideInt(v)


class _WideInt(int):
    """An integer wider than 64 bits, which no field takes: kept for the field's own range check,
    whose message shows it short (:func:`_int_str`: "an integer of 100001 digits")."""

    def __str__(self) -> str:
        return _int_str(int(self))

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else int(self).__format__(spec)


def _int_str(v: int) -> str:
    """An integer for a message: its digits, or how many there are if that is many."""
    n = len(str(abs(v))) if v.bit_length() < 10_000 else int(v.bit_length() * math.log10(2)) + 1
    return str(v) if n <= 30 else f"an integer of {n} digits"


def _float_v(v: Any) -> float:
    """A real number: integers and floats, NumPy's too (no true/false, no strings)."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):  # NumPy's bool is not a numbers.Real
        v = int(v) if isinstance(v, numbers.Integral) else float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {_shown(v)}")
    try:
        x = float(v)
    except OverflowError:  # an integer beyond a double's range
        raise ValueError(f"{_int_str(v)} is out of range; allowed at most ~1.8e308") from None
    if not math.isfinite(x):
        raise ValueError(f"{v!r} is not finite")
    return x


def _bool_v(v: Any) -> bool:
    """true or false only (no 1/0, no "yes")."""
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {_shown(v)}")
    return v


class _Plain:
    """A scenario value's own validation and, optionally, how it is written back: the core schema
    pydantic would make of ``Annotated[T, PlainValidator(validate), PlainSerializer(serialize,
    return_type=str)]``, made directly (the same schema but for its JSON-schema hints). Pydantic
    would build that schema again, inspecting both functions' signatures, for each of the ~200
    fields that use these types when it first builds the scenario's validator: the first load of
    the demo 77 -> 60 ms (benchmarks/MEASUREMENTS.md, command latency)."""

    __slots__ = ("validate", "serialize", "returns_str")

    def __init__(self, validate: Callable[[Any], Any], serialize: Optional[Callable[[Any], Any]] = None,
                 returns_str: bool = False) -> None:
        self.validate, self.serialize, self.returns_str = validate, serialize, returns_str

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> dict:
        if self.serialize is not None:
            ser = core_schema.plain_serializer_function_ser_schema(
                self.serialize, info_arg=False, return_schema=core_schema.str_schema() if self.returns_str else None)
        else:  # written back as the annotated type (int, float, bool), as PlainValidator does
            base = handler(source)
            ser = core_schema.wrap_serializer_function_ser_schema(_as_is, schema=base, return_schema=base)
        return core_schema.no_info_plain_validator_function(self.validate, serialization=ser)


def _as_is(value: Any, serialize: Callable[[Any], Any]) -> Any:
    return serialize(value)


Int = Annotated[int, _Plain(_int_v)]
"""A whole number, strictly (TOML integer)."""
Float = Annotated[float, _Plain(_float_v)]
"""A finite real number, strictly (TOML integer or float, never a boolean or a string)."""
Bool = Annotated[bool, _Plain(_bool_v)]
"""true or false, strictly."""


def _size_v(v: Any) -> Size:
    try:
        return parse_size(v, "\0")
    except UnitError as e:
        raise ValueError(_strip_what(e)) from None


def _bytes_v(v: Any) -> Size:
    """A size counted in bytes only: its messages show byte forms ("1GB"), not "65pkt"."""
    try:
        size = parse_size(v, "\0", forms=BYTE_FORMS)
    except UnitError as e:
        raise ValueError(_strip_what(e)) from None
    # A bare 0 (the one number allowed without a unit) is 0 bytes here, not "0pkt" (a probe's
    # max_memory = 0 was told about "0pkt")
    return Size(0.0, "B") if size.value == 0 else size


def _window_v(v: Any) -> Size:
    """A window: packets, written "2pkt" or plainly 2 (windows are counted in packets)."""
    try:
        return parse_size(v, "\0", bare="pkt")
    except UnitError as e:
        raise ValueError(_strip_what(e)) from None


Rate = Annotated[float, _Plain(_rate_v, rate_str, returns_str=True)]
"""A rate in bit/s; written "10Gbps"."""
Time = Annotated[float, _Plain(_time_v, time_str, returns_str=True)]
"""A time in seconds; written "100us"."""
def _time_or_list_v(v: Any) -> Union[float, list[float]]:
    if isinstance(v, (list, tuple)):
        out = []
        for i, x in enumerate(v):
            try:
                out.append(_check_time_range(parse_time(x, "\0"), x))
            except UnitError as e:
                raise _err(f"[{i}]", _strip_what(e)) from None
            except ValueError as e:
                raise _err(f"[{i}]", str(e)) from None
        return out
    return _time_v(v)


def _time_or_list_s(v: Union[float, list[float]]) -> Union[str, list[str]]:
    return [time_str(x) for x in v] if isinstance(v, list) else time_str(v)


TimeOrList = Annotated[Union[float, list[float]], _Plain(_time_or_list_v, _time_or_list_s)]
"""One time or a list of times, s; written "100us" or ["100us", "200us"]."""
SizeQ = Annotated[Size, _Plain(_size_v, size_str, returns_str=True)]
"""A size in packets or bytes; written "65pkt" or "256KB"."""
BytesQ = Annotated[Size, _Plain(_bytes_v, size_str, returns_str=True)]
"""A size counted in bytes (a memory bound, an L2 frame); written "1GB", "1500B" or 0."""
WindowQ = Annotated[Size, _Plain(_window_v, size_str, returns_str=True)]
"""A window in packets; written "2pkt" or 2."""


def _r0_v(v: Any) -> Union[str, float]:
    """DX's R0: "min", "path", or a time ("80us")."""
    if isinstance(v, str) and v.strip() in DX_R0_MODES:
        return v.strip()
    allowed = (f"allowed \"min\" (the minimum RTT seen), \"path\" (the path's exact base RTT) or a time > 0 and "
               f"at most {MAX_TIME_S:g} s, e.g. \"80us\"")
    try:
        x = parse_time(v, "\0")
    except UnitError as e:
        raise ValueError(f"{_strip_what(e)}; {allowed}") from None
    if abs(x) > MAX_TIME_S:
        raise ValueError(f"{v!r} is out of range; {allowed}")
    return _check_time_range(x, v)


def _r0_s(v: Union[str, float]) -> str:
    return v if isinstance(v, str) else time_str(v)


BaseRttQ = Annotated[Union[str, float], _Plain(_r0_v, _r0_s, returns_str=True)]
"""DX's base RTT R0: "min", "path" or a time in seconds; written "min" or "80us"."""


def _freq_v(v: Any) -> float:
    """A frequency, Hz: a number (Hz) or a string such as "20kHz", "20000Hz". Its range is the
    parameter's, which the engine checks with both ends (every frequency is an L2 gain in
    ``L2_ENGINE_RANGED``: "H_a = 0 is out of range; allowed in (0, 1e15)"); here only finiteness,
    which JSON cannot carry otherwise."""
    if isinstance(v, str):
        m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(Hz|kHz|MHz)\s*", v)
        if not m:
            raise ValueError(f"{v!r} is not a frequency; write a number in Hz or e.g. \"20kHz\"")
        try:
            x = float(m.group(1)) * {"Hz": 1.0, "kHz": 1e3, "MHz": 1e6}[m.group(2)]
        except ValueError:
            raise ValueError(f"{v!r} is not a frequency; write a number in Hz or e.g. \"20kHz\"") from None
    else:
        x = _float_v(v)
    if not math.isfinite(x):
        raise ValueError(f"{v!r} is not a finite frequency; write a number in Hz or e.g. \"20kHz\"")
    return x


Freq = Annotated[float, _Plain(_freq_v)]


def _one_of(value: str, allowed: tuple[str, ...]) -> str:
    return f"{value!r} is not one of {', '.join(allowed)}"


def _rate_shown(bps: float) -> str:
    """A rate a message shows, out of range too: "0bps", "-1Gbps" (not -1000000000.0), "1e+39bps"
    beyond the largest unit (not the exact "1.0000000000000001e+39bps"), "nan"."""
    shown = rate_str(bps) if math.isfinite(bps) else repr(bps)
    return f"{bps:.6g}bps" if "e" in shown else shown


def _positive_rate(field: str, bps: float) -> None:
    if not (MIN_RATE_BPS <= bps <= MAX_RATE_BPS):  # also catches NaN
        raise _err(field, f"{_rate_shown(bps)} is out of range; allowed 1Kbps .. 10Tbps, e.g. \"10Gbps\"")


# Parameters the engine describes (window controllers, L2 schemes; crates/dcsim-core/src/params.rs):
# each has a name in scenarios, an engine field and a unit, from which the scenario's field type, its
# range check, its engine value and the scenario form of its default follow.

#: Scenario types of the engine's parameter units.
_PARAM_TYPES = {"bytes": BytesQ, "ps": Time, "bps": Rate, "hz": Freq, "per_second": Float, "count": Int,
                "probability": Float, "number": Float, "weight": Float, "flag": Bool, "gain": Float,
                "fraction": Float, "base_rtt": BaseRttQ, "amount": SizeQ, "packets": SizeQ, "choice": str}


def _param_units(table: dict[str, dict], family: str) -> dict[str, str]:
    """Each parameter's unit across a family's entries (``PROTOCOL_TABLE``, ``L2_SCHEME_TABLE``):
    one name has one unit, for which the scenario has a type."""
    units: dict[str, str] = {}
    for entry in table.values():
        for p in entry["params"]:
            if units.setdefault(p["name"], p["unit"]) != p["unit"]:  # pragma: no cover - engine bug
                raise RuntimeError(f"dcsim: {family} parameter {p['name']!r} has two units: {units[p['name']]}, {p['unit']}")
            if p["unit"] not in _PARAM_TYPES:  # pragma: no cover - a unit added to the engine only
                raise RuntimeError(f"dcsim: {family} parameter {p['name']!r} has unit {p['unit']!r}, which has no "
                                   "scenario type (scenario.py _PARAM_TYPES)")
    return units


#: The whole-number L2 parameters' whole ranges, as the engine takes them: QCN's FR_TH at least one
#: cycle (l2::qcn, a u32), DSM's delay bound m at most l2::dsm::MAX_M. Before, a value outside
#: 0 .. 2^32 was told "allowed 0 <= m < 2^32 (and its own bound, checked by the engine)" and one
#: inside it the engine's true range: two ranges for one field, neither always right (fr_th = -3
#: was told 0 is allowed, fr_th = 0 then "must be >= 1 cycle" without its upper end).
L2_COUNT_RANGES = {"fr_th": (1, 2**32 - 1, " cycles"), "m": (0, LIMITS["max_dsm_m"], " sampling periods")}


def _check_param(name: str, unit: str, v: Any, choices: Optional[list[str]] = None) -> None:
    """Range check of a given parameter by its unit (the engine checks every field again, with its
    own bounds); errors name the parameter and the allowed range (``choices``: a choice's words)."""
    if unit == "probability" and not (0 < v <= 1):
        raise _err(name, f"{v!r} is out of range; allowed 0 < {name} <= 1")
    if unit == "choice" and v not in (choices or ()):
        raise _err(name, _one_of(str(v), tuple(choices or ())))
    if unit == "amount":
        _amount(name, v)
    if unit == "packets" and not (math.isfinite(v.value) and v.value >= 0):
        raise _err(name, f"{size_str(v)} is out of range; allowed >= 0 packets")
    if unit == "gain" and not (0 < v <= 1):
        raise _err(name, f"{v!r} is out of range; allowed 0 < {name} <= 1")
    if unit == "fraction" and not (0 <= v <= 1):
        raise _err(name, f"{v!r} is out of range; allowed [0, 1]")
    if unit == "base_rtt" and not isinstance(v, str) and not (v > 0 and to_ps(v) >= 1):
        raise _err(name, f"{time_str(v)} is not positive; allowed \"min\", \"path\" or a time > 0, e.g. \"80us\"")
    if unit == "bytes" and (v.unit == "pkt" or not v.value >= 1 or not float(v.value).is_integer()):
        raise _err(name, f"{size_str(v)}: give a whole number of bytes, at least 1, e.g. \"64KB\"")
    if unit == "ps" and not v > 0:
        raise _err(name, f"{time_str(v)} is not positive; allowed > 0 s")
    if unit == "weight" and not v >= 0:  # QCN's w: 0 leaves the position term alone
        raise _err(name, f"{v!r} is out of range; allowed >= 0")
    if unit in ("number", "per_second") and not v > 0:
        raise _err(name, f"{v!r} is out of range; allowed > 0")
    if unit == "count" and not 0 <= v < 2**32:
        raise _err(name, f"{v} is out of range; allowed 0 <= {name} < 2^32 (and its own bound, checked by the engine)")
    if unit == "bps":
        _positive_rate(name, v)


def _param_engine(unit: str, v: Any, packet_bytes: int = 0) -> Any:
    """A parameter's value in the engine's unit and form (a queue length in packets converted
    with ``packet_bytes``)."""
    if unit == "amount":
        return _amount(unit, v)  # (checked by _check_param: no error here)
    if unit == "packets":
        return float(v.packets(packet_bytes))
    if unit == "choice":
        return str(v)
    if unit == "ps":
        return to_ps(v)
    if unit == "bytes":
        return int(v.value)
    if unit == "bps":
        return int(round(v))
    if unit == "count":
        return int(v)
    if unit == "flag":
        return bool(v)
    if unit == "base_rtt":  # the engine's BaseRttSpec: "min", "path" or {"fixed_ps": n}
        return v if isinstance(v, str) else {"fixed_ps": to_ps(v)}
    return float(v)


def _param_default(unit: str, engine_default: Any) -> Any:
    """The engine's default of a parameter in the scenario's form (seconds, a size, ...)."""
    if unit == "ps":
        return engine_default / 1e12
    if unit == "bytes":
        return Size(float(engine_default), "B")
    if unit == "amount":  # {"packets": n} or {"bytes": n}
        (what, n), = engine_default.items()
        return Size(float(n), "pkt" if what == "packets" else "B")
    if unit == "packets":
        return Size(float(engine_default), "pkt")
    if unit == "base_rtt" and isinstance(engine_default, dict):
        return engine_default["fixed_ps"] / 1e12
    if unit == "flag":
        return bool(engine_default)
    return engine_default


#: Each protocol parameter's unit (one per name across the protocols), in the engine's order.
PROTOCOL_UNITS: dict[str, str] = _param_units(PROTOCOL_TABLE, "protocol")


def _with_protocol_params(head: type) -> type:
    """``head`` (a table's fields up to ``protocol``) followed by every protocol's parameters as
    optional fields, typed by unit: the base of the tables that give a transport ([[flows]],
    [[workloads]] and their mix classes)."""
    return create_model(f"{head.__name__}Params", __base__=head, __module__=__name__,
                        **{name: (Optional[_PARAM_TYPES[unit]], None) for name, unit in PROTOCOL_UNITS.items()})


def _amount(field: str, sz: Size) -> dict:
    """Size -> the engine's Amount ({"packets": n} or {"bytes": n}); must be a positive whole number."""
    if not sz.value > 0:
        raise _err(field, f"{size_str(sz)} must be positive; allowed > 0 packets or bytes, e.g. \"100pkt\"")
    what = "packets" if sz.unit == "pkt" else "bytes"
    if not float(sz.value).is_integer():
        raise _err(field, f"{size_str(sz)} is not a whole number of {what}")
    top = LIMITS["max_buffer_pkt"] if sz.unit == "pkt" else LIMITS["max_buffer_bytes"]
    if sz.value > top:
        raise _err(field, f"{size_str(sz)} is out of range; allowed at most {top} {what}")
    return {"packets": int(sz.value)} if sz.unit == "pkt" else {"bytes": int(sz.value)}


def _buffer(field: str, sz: Size, packet_bytes: int) -> dict:
    """A queue's capacity as the engine's Amount (:func:`_amount`): at least one packet."""
    if sz.unit != "pkt" and 0 < sz.value < packet_bytes:
        raise _err(field, f"{size_str(sz)} holds no packet (network.packet_bytes = {packet_bytes}): every data packet "
                          f"would be dropped; allowed at least {packet_bytes} B, or \"1pkt\" (a network of L2 frames only: "
                          "set network.packet_bytes to l2.frame)")
    return _amount(field, sz)


def _check_flow_size(size: Size) -> None:
    """A flow's ``size`` (of a [[flows]] entry, or a permutation's flows): positive, whole bytes or
    at least one packet (a smaller flow is given in bytes); omitted, the flow is long-lived. Its
    upper bound needs the packet size: :func:`_check_flow_bytes`."""
    if not size.value > 0:
        raise _err("size", f"{size_str(size)} must be positive, or omit size for a long-lived flow")
    if size.unit == "B" and not float(size.value).is_integer():
        raise _err("size", f"{size_str(size)} is not a whole number of bytes")
    if size.unit == "pkt" and not size.value >= 1:
        raise _err("size", f"{size_str(size)} is less than one packet; give a smaller flow in bytes, e.g. \"100B\"")


def _check_flow_bytes(field: str, size: Optional[Size], packet_bytes: int, header_bytes: int) -> None:
    """A flow's payload (``size`` in bytes, or in packets of packet_bytes - header_bytes) is at most
    LIMITS max_flow_bytes."""
    top = LIMITS["max_flow_bytes"]
    if size is not None and payload_bytes(size, packet_bytes, header_bytes) > top:
        raise _err(field, f"{size_str(size)} is out of range; allowed at most {top} bytes (1 PB) of payload")


def _whole_packets(field: str, sz: Size) -> float:
    """A window given in packets ("2pkt" or 2); bytes are refused (cwnd is counted in packets)."""
    if sz.unit != "pkt":
        raise _err(field, f"{size_str(sz)}: give packets, e.g. \"2pkt\"")
    return float(sz.value)


_READ_ONLY_HINT = 'make a validated copy with changes instead, e.g. sc = sc.replace({"network.aqm.K": "40pkt"})'


class _ReadOnly:
    """What :class:`FrozenList` and :class:`FrozenDict` share: the field path they hold (for the
    error), the refusal of every in-place change, and copies / pickles built whole."""

    __slots__ = ()
    _what = ""  # "a list" | "a table"
    _example = ""  # the replace() call to suggest, with {w} for the field path
    _plain: type = object  # the builtin it extends (list | dict)

    def __init__(self, items=(), where: str = "") -> None:
        self._plain.__init__(self, items)
        self._where = where  # a slot of each subclass (a list or dict base cannot share one)

    def _refuse(self, *args: Any, **kw: Any):
        raise TypeError(f"{self._where}: {self._what} of a validated scenario cannot be changed in place; make a "
                        f"validated copy with changes instead, e.g. sc = sc.replace({self._example.format(w=self._where)})")

    def __reduce__(self):  # pickling builds it whole (the default would add item by item, refused)
        return (type(self), (self._plain(self), self._where))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        import copy

        return type(self)(copy.deepcopy(self._plain(self), memo), self._where)


class FrozenList(_ReadOnly, list):
    """A list field of a validated scenario: reads like a list (``isinstance(x, list)``, indexing,
    equality, serialisation), but every in-place change raises a TypeError pointing to
    :meth:`Scenario.replace`, so that nothing unvalidated reaches a run."""

    __slots__ = ("_where",)
    _what = "a list"
    _plain = list
    _example = '{{"{w}": [...]}}) or sc.replace({{"{w}[0]": ...}}'

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _ReadOnly._refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _ReadOnly._refuse


class FrozenDict(_ReadOnly, dict):
    """A table field (``attach``) of a validated scenario: like :class:`FrozenList`, read-only."""

    __slots__ = ("_where",)
    _what = "a table"
    _plain = dict
    _example = '{{"{w}": {{...}}}}'

    __setitem__ = __delitem__ = __ior__ = _ReadOnly._refuse
    pop = popitem = clear = update = setdefault = _ReadOnly._refuse


def _gc_paused(fn: Callable) -> Callable:
    """``fn`` run with Python's cyclic garbage collector paused (and resumed after, if it ran
    before). Reading a large trace builds 10^5-10^7 small tables, none of them cyclic, and the
    collector's passes over them took a third of the time (100 000 flows: 3.0 -> 1.9 s to load)."""

    @functools.wraps(fn)
    def paused(*args: Any, **kw: Any) -> Any:
        if not gc.isenabled():
            return fn(*args, **kw)
        gc.disable()
        try:
            return fn(*args, **kw)
        finally:
            gc.enable()

    return paused


def _freeze(value: Any, where: str) -> Any:
    """Lists and dicts inside a validated scenario, recursively, as FrozenList / FrozenDict."""
    if isinstance(value, TraceFlows):
        value._where = where  # read-only already; its flows are tables made when read
        return value
    if isinstance(value, BaseModel):
        for name, v in list(value.__dict__.items()):
            value.__dict__[name] = _freeze(v, f"{where}.{name}" if where else name)
        return value
    if isinstance(value, list):
        return FrozenList([_freeze(v, f"{where}[{i}]") if isinstance(v, _NESTED) else v for i, v in enumerate(value)],
                          where)
    if isinstance(value, dict):
        for v in value.values():
            if isinstance(v, _NESTED):
                return FrozenDict({k: _freeze(v, f"{where}.{k}") if isinstance(v, _NESTED) else v
                                   for k, v in value.items()}, where)
        return FrozenDict(value, where)  # a flat table (a trace's flow): copied as it is
    return value


#: What :func:`_freeze` descends into (the rest is kept as it is, with no path formatted for each
#: leaf: a CDF's points are up to 10^5 pairs).
_NESTED = (BaseModel, list, dict)


class _Model(BaseModel):
    """Base of every scenario table.

    * Unknown keys are errors (they are usually typos), reported together with every other error
      of the table, with a did-you-mean hint (see :func:`_format_error`).
    * A validated model is read-only: assigning an attribute raises a TypeError that points to
      :meth:`Scenario.replace`, which returns a validated copy with changes. (Validators fill in
      defaults with :meth:`_fill`.) A validated :class:`Scenario` holds its lists and tables as
      :class:`FrozenList` / :class:`FrozenDict`, so in-place edits (``sc.flows.append(...)``,
      ``sc.network.rtt[0] = ...``) raise the same TypeError.
    """

    # defer_build: a table's validator is built when first used, not when its class is defined.
    # A scenario builds them all as one tree then; building each table's own as well cost time in
    # `import dcsim.scenario` + the first load of the demo (11 alternated runs: min 168 -> 135 ms,
    # median 177 -> 170 ms). The whole `dcsim run` measured no gain (benchmarks/MEASUREMENTS.md, command latency).
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _a_table(cls, data: Any) -> Any:
        if isinstance(data, BaseModel):
            return data
        if not isinstance(data, dict):
            raise PydanticCustomError("dcsim", "expected a table of keys and values, got {got}", {"got": repr(data), "field": ""})
        return data

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            return super().__setattr__(name, value)
        raise TypeError(f"{type(self).__name__}.{name}: a validated scenario is read-only; {_READ_ONLY_HINT}")

    def _fill(self, name: str, value: Any, *, given: bool = False) -> None:
        """Set a field from a validator: a default (not written back by to_dict) or, with
        ``given``, a normalised form of what the user wrote (written back)."""
        self.__dict__[name] = value
        if given:
            self.__pydantic_fields_set__.add(name)
        else:
            self.__pydantic_fields_set__.discard(name)


def _natural_key(name: str) -> tuple:
    """A name's sort key with its runs of digits as numbers, S2 before S10; names equal as numbers
    (S1, S01) by their text, so that the order is total."""
    return tuple((0, int(x), "") if x.isdecimal() else (1, 0, x) for x in re.split(r"(\d+)", name) if x), name


def _one_of_validator(field: str, allowed: tuple[str, ...]):
    """A field validator that checks a name against ``allowed`` (so that it is reported together
    with the table's other errors, such as unknown keys)."""

    def check(cls, v: Any) -> Any:
        if isinstance(v, str) and v not in allowed:
            raise ValueError(_one_of(v, allowed))
        return v

    return field_validator(field)(check)


# --------------------------------------------------------------------------------------------
# The model


#: The queue disciplines the engine offers (crates/dcsim-core/src/aqm/, queues_table), by name: for
#: each, its engine ``kind``, its parameters (name, engine field, unit, default or example; the
#: words of a choice), the ``required`` ones and the ``facts`` of its defaults. A discipline added
#: to the engine needs no change here.
AQM_TABLE: dict[str, dict] = {q["name"]: q for q in ENGINE_DEFAULTS["queues"]}
#: Each discipline's parameters (names in scenarios) -> the engine's field.
AQM_PARAMS: dict[str, dict[str, str]] = {n: {p["name"]: p["field"] for p in t["params"]} for n, t in AQM_TABLE.items()}
#: Each discipline parameter's unit (one per name across the disciplines), in the engine's order.
AQM_UNITS: dict[str, str] = _param_units(AQM_TABLE, "queue")


def _param_text(unit: str, v: Any) -> str:
    """A parameter's value (scenario form) as a scenario writes it: "65pkt", "30KB", "15us", 0.1."""
    if isinstance(v, Size):
        return size_shown(v)
    if unit in ("ps", "base_rtt") and not isinstance(v, str):
        return time_str(v)
    if unit == "bps":
        return rate_str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _param_shown(unit: str, engine_value: Any) -> str:
    """An engine value as TOML writes it, for an "e.g." in errors: K = "65pkt", max_p = 0.1."""
    v = _param_default(unit, engine_value)
    text = _param_text(unit, v)
    return f'"{text}"' if isinstance(v, (Size, str)) or unit in ("ps", "bps", "base_rtt") else text


class _AqmHead(_Model):
    """An aqm table's ``kind``, which the disciplines' parameters follow (:class:`Aqm`)."""

    kind: str = "droptail"


class Aqm(create_model("_AqmParams", __base__=_AqmHead, __module__=__name__,
                       **{name: (Optional[_PARAM_TYPES[unit]], None) for name, unit in AQM_UNITS.items()})):
    """Queue discipline of an egress port; the disciplines, their parameters (with units,
    defaults and which are required), their range checks against the buffer and their facts are
    the engine's (``AQM_TABLE``, crates/dcsim-core/src/aqm/).

    * ``droptail``: no marking; drop when the buffer is full.
    * ``threshold``: DCTCP marking: CE on enqueue when the instantaneous queue is at least ``K``
      (DCTCP analysis paper, eq. (8): p(t) = 1{q(t) > K}; the engine marks at q >= K).
    * ``red``: RED with ECN (Floyd & Jacobson 1993; ns-2 ``red.cc``): EWMA of the queue with weight
      ``w_q``, marking probability rising linearly from 0 at ``min_th`` to ``max_p`` at ``max_th``
      (coexistence paper, eq. (2)); thresholds in packets.
    * ``choke``: CHOKe (Pan, Prabhakar, Psounis 2000) on RED: when q_avg > ``min_th`` an arrival
      is compared with ``m`` packets drawn at random from the queue (default 1); if they match
      (``match = "all"``: every drawn packet is of the arrival's flow; ``"any"``: one is), the
      arrival and the matching queued packets are CE-marked (ECN-capable, ``ecn`` on) or dropped;
      otherwise RED decides. RED parameters as for ``red``.
    * ``modified_choke``: the coexistence paper's modified CHOKe (Section IV-E): ``choke`` with
      ``m = 7`` and ``match = "all"`` by default.
    """

    _kind_ok = _one_of_validator("kind", AQM_KINDS)

    @model_validator(mode="before")
    @classmethod
    def _unknown_keys(cls, data: Any) -> Any:
        """An unknown key is named with the keys of the table's kind (not every discipline's
        parameters, which the generic hint would list: a probe)."""
        kind = data.get("kind", "droptail") if isinstance(data, dict) else None
        if isinstance(kind, str) and kind in AQM_PARAMS:  # (else the kind's own error, and pydantic's for the key)
            own = ["kind", *AQM_PARAMS[kind]]
            for key in data:
                if key not in cls.model_fields:
                    raise _err((key,), f"unknown key; {did_you_mean(str(key), own)}allowed keys: {', '.join(own)}")
        return data

    @model_validator(mode="after")
    def _check(self) -> "Aqm":
        if self.kind not in AQM_KINDS:
            raise _err("kind", _one_of(self.kind, AQM_KINDS))
        entry, own = AQM_TABLE[self.kind], AQM_PARAMS[self.kind]
        for name in AQM_UNITS:
            if getattr(self, name) is not None and name not in own:
                allowed = ", ".join(own) if own else "no parameters"
                raise _err(name, f"not a parameter of aqm kind {self.kind!r}; allowed: {allowed}")
        # The engine's defaults where not given (a required parameter has none), else range
        # checks by unit; the checks against the buffer are the engine's (check_against_buffer).
        for p in entry["params"]:
            name = p["name"]
            if getattr(self, name) is None:
                if name in entry["required"]:
                    raise _err(name, f'required for aqm kind "{self.kind}" (it needs {", ".join(entry["required"])}), '
                                     f'e.g. {name} = {_param_shown(p["unit"], p["default"])}')
                self._fill(name, _param_default(p["unit"], p["default"]))
            else:
                v = getattr(self, name)
                # CHOKe's draws m (both kinds'), which the engine bounds by the buffer: one range on
                # either side of a u32 (another count keeps _check_param's words)
                if p["unit"] == "count" and name == "m" and not 1 <= v < 2**32:
                    raise _err(name, f"{v} is out of range; allowed 1 <= {name} <= buffer (in packets)")
                _check_param(name, p["unit"], v, p.get("choices"))
        return self

    def facts(self) -> dict[str, Any]:
        """What the engine says of this discipline (``AqmSpec::facts``): ``marks_ect`` (it CE-marks
        ECN-capable packets, and so drops those that are not where it would mark them),
        ``keeps_average`` (RED's average queue: it sees every arrival, and its thresholds apply
        to the average), ``reaches_into_queue`` (it drops packets already queued: CHOKe) and
        ``not_ect_fate`` (what it does with packets that are not ECN-capable, for warnings). None
        depends on the packet size."""
        return json.loads(_engine_answer("queue_facts", json.dumps(self.to_engine(ENGINE_DEFAULTS["packet_bytes"]),
                                                                   sort_keys=True)))

    @property
    def keeps_average(self) -> bool:
        """Does it keep RED's average queue (RED, CHOKe)?"""
        return self.facts()["keeps_average"]

    @property
    def marks_ect(self) -> bool:
        """Does it CE-mark ECN-capable packets (and so drop, where it would mark, the packets of
        flows that are not ECN-capable)? Threshold marking, and RED or CHOKe with ``ecn``."""
        return self.facts()["marks_ect"]

    def shown(self) -> str:
        """The kind with its required parameters and those given away from their defaults, for
        one-line descriptions ("threshold K=65pkt", "choke min_th=5pkt max_th=15pkt max_p=0.1 m=3")."""
        entry = AQM_TABLE[self.kind]
        shown = [p["name"] for p in entry["params"] if p["name"] in entry["required"] or (
            p["name"] in self.model_fields_set and getattr(self, p["name"]) != _param_default(p["unit"], p["default"]))]
        return " ".join([self.kind] + [f"{n}={_param_text(AQM_UNITS[n], getattr(self, n))}" for n in shown])

    def check_against_buffer(self, buffer: Size, packet_bytes: int, field: str) -> None:
        """The engine's checks of this discipline against the port's buffer (``QueueKind::check``:
        K below the buffer, RED's thresholds within it, CHOKe's m at most a buffer of packets);
        ``field`` = path of this aqm. A buffer that is no valid amount is its own field's error."""
        try:
            capacity = _amount("buffer", buffer)
        except PydanticCustomError:
            return
        queue = json.dumps({"capacity": capacity, "aqm": self.to_engine(packet_bytes)}, sort_keys=True)
        refused = _refusal(_engine_answer("queue_check", queue, packet_bytes))
        if refused is not None:
            raise _err(f"{field}.{refused[0]}", refused[1])

    def to_engine(self, packet_bytes: int) -> dict:
        """The engine's ``aqm`` table: the discipline's kind and its parameters in the engine's units."""
        entry = AQM_TABLE.get(self.kind)
        if entry is None:  # only a model built without validation can hold another kind
            raise RuntimeError(f"dcsim: aqm kind {self.kind!r} is not one the engine offers ({', '.join(AQM_KINDS)})")
        return {"kind": entry["kind"], **{p["field"]: _param_engine(p["unit"], getattr(self, p["name"]), packet_bytes)
                                          for p in entry["params"]}}


def _queue_engine(buffer: Size, aqm: Aqm, packet_bytes: int, field: str) -> dict:
    aqm.check_against_buffer(buffer, packet_bytes, f"{field}.aqm")
    return {"capacity": _buffer(f"{field}.buffer", buffer, packet_bytes), "aqm": aqm.to_engine(packet_bytes)}


class Node(_Model):
    """A node of an explicit graph: a ``host`` (ends flows) or a ``switch`` (forwards)."""

    name: str
    kind: str = "host"

    _kind_ok = _one_of_validator("kind", NODE_KINDS)

    @model_validator(mode="after")
    def _check(self) -> "Node":
        if self.kind not in NODE_KINDS:
            raise _err("kind", _one_of(self.kind, NODE_KINDS))
        bad = _bad_node_name(self.name)
        if bad:
            raise _err("name", bad)
        return self


def _bad_node_name(name: str) -> Optional[str]:
    """Why ``name`` cannot name a node (a graph's, a parking lot's host), or None. A port is
    labelled "a->b", so no name holds "->"."""
    if not name.strip() or "->" in name or not name.isprintable() or len(name) > 64:
        return f"{name[:80]!r} is not a valid node name; allowed: 1 to 64 printable characters, not blank, without '->'"
    return None


class Link(_Model):
    """A full-duplex link: one egress port (queue) at each end; ``delay`` is one-way propagation."""

    a: str
    b: str
    rate: Rate
    delay: Time
    buffer: Optional[SizeQ] = None
    aqm: Optional[Aqm] = None

    @model_validator(mode="after")
    def _check(self) -> "Link":
        _positive_rate("rate", self.rate)
        if not self.delay >= 0:
            raise _err("delay", f"{time_str(self.delay)} is negative; allowed >= 0 s")
        if self.aqm is not None and self.buffer is None:
            raise _err("buffer", "required when aqm is given (the queue needs a capacity)")
        return self


class Tier(_Model):
    """One tier of a fabric's links ([network.tiers.host], [network.tiers.leaf_spine], ...): any of
    ``rate``, ``delay`` (one-way propagation), ``buffer`` and ``aqm`` of the switch egress ports of
    its links, each overriding the network-wide value (``host_link`` / the derived leaf-spine rate,
    ``delay``, ``buffer``, ``aqm``)."""

    rate: Optional[Rate] = None
    delay: Optional[Time] = None
    buffer: Optional[SizeQ] = None
    aqm: Optional[Aqm] = None


def _hosts_v(v: Any) -> Union[int, list[int]]:
    """Hosts per rack: one whole number for every rack, or a list with one per rack."""
    if isinstance(v, (list, tuple)):
        out = []
        for i, x in enumerate(v):
            try:
                out.append(_int_v(x))
            except ValueError as e:
                raise _err(f"[{i}]", str(e)) from None
        return out
    return _int_v(v)


HostsQ = Annotated[Union[int, list[int]], _Plain(_hosts_v)]


class Network(_Model):
    """Topology. ``dumbbell``: senders s0..s{N-1}, each on its own access link to switch ``sw``,
    and one bottleneck link sw -> ``r`` (the receiver). ``graph``: explicit nodes and links with
    shortest-path (hop count) routing. ``tree``: the coexistence paper's single-rooted tree:
    hosts ``h0..`` rack by rack (``hosts`` per rack, ``racks`` racks), each rack on a top-of-rack
    switch ``tor{i}``, the ToRs on one switch ``root`` (no root with one rack); ``host_link`` and
    ``core_link`` rates, ``bottleneck`` the rate of the links of ``bottleneck_hosts`` (default: the
    last host); ``rtt`` the round-trip propagation between hosts of different racks (of any two
    hosts with one rack; hosts of one rack see half of it); ``buffer`` and ``aqm`` on every switch
    port. ``parking_lot``: the DSM paper's chain of switches ``C1 .. C{switches}`` (Fig. 4; with two
    switches its Fig. 3 dumbbell), each linked to the next at ``link`` with ``delay`` of propagation
    per hop; ``attach = {S1 = "C1", R1 = "C3"}`` hangs each host on its own ``host_link`` (default
    ``link``, propagation ``host_delay``, default 1 us) off a switch; ``buffer`` (default 128 KB,
    the DSM paper's) and ``aqm`` on every switch port; the monitored queues are the chain's
    forward ports C1->C2, C2->C3, ...

    ``leaf_spine``: ``leaves`` leaf switches ``leaf0..``, ``spines`` spine switches ``spine0..``,
    each leaf linked to every spine, ``hosts_per_leaf`` hosts ``h0..`` leaf by leaf (host i on leaf
    i // hosts_per_leaf) on ``host_link``; the leaf-spine links run at hosts_per_leaf x the hosts'
    rate (``tiers.host.rate`` if given, else ``host_link``) / (spines x ``oversubscription``)
    (default 1: full bisection), or at ``tiers.leaf_spine.rate``.
    ``fat_tree``: the k-ary fat-tree (Al-Fares et al. 2008; ``k`` even >= 2): k pods of k/2 edge
    switches ``edge{e}`` and k/2 aggregation switches ``agg{a}`` (numbered pod by pod), (k/2)^2 core
    switches ``core{c}``, k^3/4 hosts ``h0..`` (k/2 per edge switch, edge by edge); every link at
    ``host_link`` unless a tier says otherwise. In both, every link has ``delay`` of one-way
    propagation (default 1 us), every switch port ``buffer`` and ``aqm``; ``[network.tiers.NAME]``
    (leaf_spine: ``host``, ``leaf_spine``; fat_tree: ``host``, ``edge_agg``, ``agg_core``) overrides
    ``rate``, ``delay``, ``buffer`` and ``aqm`` for the links of one tier. Switches spread flows over
    equal-cost next hops by a seeded 5-tuple hash (ECMP): ``ecmp_seed`` (an integer; default the
    run's seed). A ``graph`` uses ECMP only when ``ecmp_seed`` is given (else the first shortest
    path found, as before)."""

    topology: str = "dumbbell"
    # dumbbell (and tree: bottleneck, rtt, buffer, aqm)
    senders: Optional[Int] = None
    bottleneck: Optional[Rate] = None
    access: Optional[Rate] = None
    rtt: Optional[TimeOrList] = None
    rtts: Optional[list[Time]] = None
    buffer: Optional[SizeQ] = None
    aqm: Optional[Aqm] = None
    # graph
    nodes: Optional[list[Node]] = None
    links: Optional[list[Link]] = None
    # tree
    racks: Optional[Int] = None
    hosts: Optional[HostsQ] = None
    host_link: Optional[Rate] = None
    core_link: Optional[Rate] = None
    bottleneck_hosts: Optional[list[str]] = None
    # parking_lot (and host_link, buffer, aqm)
    switches: Optional[Int] = None
    link: Optional[Rate] = None
    delay: Optional[Time] = None
    host_delay: Optional[Time] = None
    attach: Optional[dict[str, str]] = None
    # leaf_spine / fat_tree (and host_link, delay, buffer, aqm)
    leaves: Optional[Int] = None
    spines: Optional[Int] = None
    hosts_per_leaf: Optional[Int] = None
    oversubscription: Optional[Float] = None
    k: Optional[Int] = None
    tiers: Optional[dict[str, Tier]] = None
    # graph, leaf_spine, fat_tree
    ecmp_seed: Optional[Int] = None
    # all
    packet_bytes: Int = ENGINE_DEFAULTS["packet_bytes"]
    header_bytes: Int = ENGINE_DEFAULTS["header_bytes"]
    #: Each data packet (and L2 data frame) a host sends is released to its NIC a random time
    #: later, uniform in [0, host_jitter] after it is handed over or after the previous one's
    #: release (chained, one at a time), from the NIC's own random stream (default 0: none). As
    #: ns-2's TCP ``overhead_``, it breaks the phase effects of a deterministic packet network
    #: (Floyd & Jacobson 1992: flows whose packets reach a queue in a fixed pattern lock onto its
    #: marking or drop instants); a bottleneck packet time (1.2 us at 10 Gbps) is enough. The
    #: delays run beside the transmissions, but a host hands its NIC at most 2 packets at a time
    #: (those awaiting release included): one flow on a 10 Gbps host link keeps its 9.73 Gbps up
    #: to host_jitter = one packet time, 9.71 at 1.5, 9.23 at 1.8. ACKs draw no delay (they may
    #: queue behind a data packet awaiting its release: the NIC stays FIFO); DX's NIC timestamp is
    #: the packet's real start. Allowed 0 .. 1 s.
    host_jitter: Time = 0.0

    _topology_ok = _one_of_validator("topology", TOPOLOGIES)

    _DUMBBELL: ClassVar[tuple[str, ...]] = ("senders", "bottleneck", "access", "rtt", "rtts", "buffer", "aqm")
    _GRAPH: ClassVar[tuple[str, ...]] = ("nodes", "links")
    _TREE: ClassVar[tuple[str, ...]] = (
        "racks", "hosts", "host_link", "core_link", "bottleneck", "bottleneck_hosts", "rtt", "buffer", "aqm",
    )
    _PARKING: ClassVar[tuple[str, ...]] = ("switches", "link", "delay", "host_link", "host_delay", "attach", "buffer", "aqm")
    _FABRIC: ClassVar[dict[str, tuple[str, ...]]] = {
        "leaf_spine": ("leaves", "spines", "hosts_per_leaf", "oversubscription", "host_link", "delay", "buffer", "aqm",
                       "tiers", "ecmp_seed"),
        "fat_tree": ("k", "host_link", "delay", "buffer", "aqm", "tiers", "ecmp_seed"),
    }
    _FABRIC_ONLY: ClassVar[tuple[str, ...]] = ("leaves", "spines", "hosts_per_leaf", "oversubscription", "k", "tiers")
    _EVERY: ClassVar[tuple[str, ...]] = ("topology", "packet_bytes", "header_bytes")

    @classmethod
    def _takes(cls, own: tuple[str, ...]) -> str:
        """The keys a topology's [network] table takes: its own and those of every topology."""
        return ", ".join(own + cls._EVERY)

    @model_validator(mode="after")
    def _check(self) -> "Network":
        if self.topology not in TOPOLOGIES:
            raise _err("topology", _one_of(self.topology, TOPOLOGIES))
        top = LIMITS["max_packet_bytes"]
        if not (1 <= self.header_bytes < self.packet_bytes <= top):
            raise _err(
                "packet_bytes",
                f"{self.packet_bytes} (header_bytes {self.header_bytes}) is out of range; "
                f"allowed 1 <= header_bytes < packet_bytes <= {top}",
            )
        top_jitter = ENGINE_DEFAULTS["max_host_jitter_ps"] / 1e12
        # judged in the engine's picoseconds, as it gets it ("1.0000000000004s" is 10^12 ps: a review)
        if not (self.host_jitter >= 0 and to_ps(self.host_jitter) <= ENGINE_DEFAULTS["max_host_jitter_ps"]):
            raise _err("host_jitter", f"{time_str(self.host_jitter)} is out of range; allowed 0 .. {top_jitter:g} s")
        if self.topology in FABRIC_TIERS:
            self._check_fabric()
            return self
        for name in self._FABRIC_ONLY:
            if getattr(self, name) is not None:
                raise _err(name, 'only for topology = "leaf_spine" or "fat_tree"')
        if self.ecmp_seed is not None:
            if self.topology != "graph":
                raise _err("ecmp_seed", f'not for topology = "{self.topology}" (it has one path between any two hosts); '
                                        'allowed with "graph", "leaf_spine" and "fat_tree"')
            self._check_ecmp_seed()
        if self.topology == "parking_lot":
            self._check_parking_lot()
            return self
        for name in [n for n in self._PARKING if n not in self._DUMBBELL + self._TREE]:
            if getattr(self, name) is not None:
                raise _err(name, 'only for topology = "parking_lot"')
        if self.topology != "tree":
            for name in [n for n in self._TREE if n not in self._DUMBBELL]:
                if getattr(self, name) is not None:
                    raise _err(name, 'only for topology = "tree"')
        if self.topology == "tree":
            self._check_tree()
        elif self.topology == "dumbbell":
            for name in self._GRAPH:
                if getattr(self, name) is not None:
                    raise _err(name, 'only for topology = "graph"')
            top = LIMITS["max_nodes"] - 2
            if self.senders is not None and not (1 <= self.senders <= top):
                raise _err("senders", f"{self.senders} is out of range; allowed 1 .. {top}")
            if self.bottleneck is None:
                raise _err("bottleneck", 'required for a dumbbell, e.g. bottleneck = "10Gbps"')
            _positive_rate("bottleneck", self.bottleneck)
            if self.access is None:
                self._fill("access", self.bottleneck)
            _positive_rate("access", self.access)
            if self.rtt is not None and self.rtts is not None:
                raise _err("rtts", "give either rtt or rtts, not both")
            if self.rtts is not None:
                self._fill("rtt", list(self.rtts), given=True)
                self._fill("rtts", None)
            if self.rtt is None:
                raise _err("rtt", 'required for a dumbbell: the base round-trip propagation delay, e.g. rtt = "100us"')
            rtts = self.rtt if isinstance(self.rtt, list) else [self.rtt]
            if not rtts:
                raise _err("rtt", "empty list; give one RTT or one per sender")
            for i, r in enumerate(rtts):
                if not r > 0:
                    f = f"rtt[{i}]" if isinstance(self.rtt, list) else "rtt"
                    raise _err(f, f"{time_str(r)} is not positive; allowed > 0 s, e.g. \"100us\"")
            if self.buffer is None:
                raise _err("buffer", 'required for a dumbbell: the bottleneck buffer, e.g. buffer = "1000pkt"')
            _buffer("buffer", self.buffer, self.packet_bytes)
            if self.aqm is None:
                self._fill("aqm", Aqm(kind="droptail"))
            self.aqm.check_against_buffer(self.buffer, self.packet_bytes, "aqm")
        else:
            for name in self._DUMBBELL:
                if getattr(self, name) is not None:
                    raise _err(name, 'only for topology = "dumbbell"; give [[network.links]] with rate, delay, buffer, aqm')
            if not self.nodes:
                raise _err("nodes", "a graph needs [[network.nodes]] entries {name, kind}")
            if len(self.nodes) > LIMITS["max_nodes"]:
                raise _err("nodes", f"{len(self.nodes)} nodes is out of range; allowed at most {LIMITS['max_nodes']}")
            if self.links is not None and len(self.links) > LIMITS["max_links"]:
                raise _err("links", f"{len(self.links)} links is out of range; allowed at most {LIMITS['max_links']}")
            seen: set[str] = set()
            for i, n in enumerate(self.nodes):
                if n.name in seen:
                    raise _err(f"nodes[{i}].name", f"node name {n.name!r} appears twice; names must be unique")
                seen.add(n.name)
            if not self.links:
                raise _err("links", "a graph needs [[network.links]] entries {a, b, rate, delay}")
            pairs: set[frozenset] = set()
            for i, link in enumerate(self.links):
                for end in ("a", "b"):
                    name = getattr(link, end)
                    if name not in seen:
                        raise _err(f"links[{i}].{end}", f"unknown node {name!r}; allowed: {', '.join(n.name for n in self.nodes)}")
                if link.a == link.b:
                    raise _err(f"links[{i}].b", "a link needs two different nodes")
                pair = frozenset((link.a, link.b))
                if pair in pairs:
                    raise _err(f"links[{i}]", f"a second link between {link.a!r} and {link.b!r}; allowed: one link per pair")
                pairs.add(pair)
                if link.buffer is not None:
                    _buffer(f"links[{i}].buffer", link.buffer, self.packet_bytes)
                    (link.aqm or Aqm()).check_against_buffer(link.buffer, self.packet_bytes, f"links[{i}].aqm")
        return self

    def _check_tree(self) -> None:
        for name in [n for n in self._DUMBBELL + self._GRAPH if n not in self._TREE]:
            if getattr(self, name) is not None:
                raise _err(name, 'not for topology = "tree"; a tree takes ' + self._takes(self._TREE))
        if self.hosts is None:
            raise _err("hosts", "required for a tree: hosts per rack, e.g. hosts = 3 or hosts = [2, 1]")
        if isinstance(self.hosts, list):
            if not self.hosts:
                raise _err("hosts", "empty list; give hosts per rack, e.g. hosts = [2, 1], or one number for every rack")
            if self.racks is None:
                self._fill("racks", len(self.hosts))
            elif self.racks != len(self.hosts):
                raise _err("hosts", f"{len(self.hosts)} values for racks = {self.racks}; give one per rack, or one number")
        elif self.racks is None:
            self._fill("racks", 1)
        top = LIMITS["max_nodes"]
        if not (1 <= self.racks <= top):
            raise _err("racks", f"{self.racks} is out of range; allowed 1 .. {top}")
        per_rack = self.rack_sizes()
        for i, n in enumerate(per_rack):
            if not (0 <= n <= top):
                f = f"hosts[{i}]" if isinstance(self.hosts, list) else "hosts"
                raise _err(f, f"{n} is out of range; allowed 0 .. {top} hosts per rack")
        total = sum(per_rack)
        if total == 0:
            raise _err("hosts", "a tree with no hosts; allowed at least one host in some rack")
        if total + self.racks + 1 > top:
            raise _err("hosts", f"{total} hosts and {self.racks} racks is out of range; allowed at most {top} nodes")
        if self.host_link is None:
            raise _err("host_link", 'required for a tree: the host <-> ToR rate, e.g. host_link = "10Gbps"')
        _positive_rate("host_link", self.host_link)
        if self.core_link is None:
            self._fill("core_link", self.host_link)
        _positive_rate("core_link", self.core_link)
        if self.bottleneck is not None:
            _positive_rate("bottleneck", self.bottleneck)
            if self.bottleneck_hosts is None:
                self._fill("bottleneck_hosts", [f"h{total - 1}"])
        elif self.bottleneck_hosts is not None:
            raise _err("bottleneck", "required with bottleneck_hosts: the rate of their links, e.g. \"1Gbps\"")
        if self.bottleneck_hosts is not None and not self.bottleneck_hosts:
            raise _err("bottleneck_hosts", "empty list: bottleneck would set no link's rate; allowed at least one "
                       "host, e.g. [\"h0\"], or leave out bottleneck_hosts (the last host) or bottleneck (none slower)")
        names = set(self.hosts_list())
        seen: set[str] = set()
        for i, h in enumerate(self.bottleneck_hosts or []):
            if h not in names:
                raise _err(f"bottleneck_hosts[{i}]", f"{h!r} is not a host of the tree; allowed h0 .. h{total - 1}")
            if h in seen:
                raise _err(f"bottleneck_hosts[{i}]", f"{h!r} appears twice")
            seen.add(h)
        if self.rtt is None:
            raise _err("rtt", 'required for a tree: round-trip propagation between racks, e.g. rtt = "250us"')
        if isinstance(self.rtt, list):
            raise _err("rtt", "a tree takes one RTT (all paths across the root have it)")
        if not self.rtt > 0:
            raise _err("rtt", f"{time_str(self.rtt)} is not positive; allowed > 0 s, e.g. \"250us\"")
        if self.buffer is None:
            raise _err("buffer", 'required for a tree: every switch port\'s buffer, e.g. buffer = "250pkt"')
        _buffer("buffer", self.buffer, self.packet_bytes)
        if self.aqm is None:
            self._fill("aqm", Aqm(kind="droptail"))
        self.aqm.check_against_buffer(self.buffer, self.packet_bytes, "aqm")

    def _check_parking_lot(self) -> None:
        for name in [n for n in self._DUMBBELL + self._GRAPH + self._TREE if n not in self._PARKING]:
            if getattr(self, name) is not None:
                raise _err(name, 'not for topology = "parking_lot"; a parking lot takes ' + self._takes(self._PARKING))
        if self.switches is None:
            raise _err("switches", "required for a parking lot: the switches of the chain, e.g. switches = 3")
        top = LIMITS["max_nodes"]
        if not (1 <= self.switches <= top):
            raise _err("switches", f"{self.switches} is out of range; allowed 1 .. {top}")
        if self.link is None:
            raise _err("link", 'required for a parking lot: the rate of the links between switches, e.g. "10Gbps"')
        _positive_rate("link", self.link)
        if self.host_link is None:
            self._fill("host_link", self.link)
        _positive_rate("host_link", self.host_link)
        if self.delay is None:
            raise _err("delay", 'required for a parking lot: propagation per hop between switches, e.g. "50us"')
        if self.host_delay is None:
            self._fill("host_delay", 1e-6)
        for name in ("delay", "host_delay"):
            if not getattr(self, name) >= 0:
                raise _err(name, f"{time_str(getattr(self, name))} is negative; allowed >= 0 s")
        if not self.attach:
            raise _err("attach", 'required for a parking lot: each host and its switch, e.g. attach = {S1 = "C1", R1 = "C3"}')
        switches = self.switch_names()
        if len(self.attach) + self.switches > top:
            raise _err("attach", f"{len(self.attach)} hosts is out of range; allowed at most {top} nodes")
        for h, at in self.attach.items():
            bad = _bad_node_name(h)
            if bad:
                raise _err("attach", f"host {bad}")
            if not isinstance(at, str) or at not in switches:
                raise _err(f"attach.{h}", f"{at!r} is not a switch of the chain; allowed C1 .. C{self.switches}")
            if h in switches:
                raise _err(f"attach.{h}", f"{h!r} is the name of a switch; name hosts otherwise (e.g. S1, R1)")
        # A TOML table has no order, but the engine numbers the hosts' ports in this order and
        # keys each port's random stream by its number: the hosts go in one order whatever the
        # order of the keys (by switch along the chain, then by name, digits as numbers).
        order = {sw: i for i, sw in enumerate(switches)}
        self._fill("attach", dict(sorted(self.attach.items(), key=lambda ha: (order[ha[1]], _natural_key(ha[0])))),
                   given=True)
        if self.buffer is None:  # the DSM paper's 128 KB (the engine's default)
            self._fill("buffer", Size(ENGINE_DEFAULTS["parking_lot_buffer_bytes"], "B"))
        _buffer("buffer", self.buffer, self.packet_bytes)
        if self.aqm is None:
            self._fill("aqm", Aqm(kind="droptail"))
        self.aqm.check_against_buffer(self.buffer, self.packet_bytes, "aqm")

    def _check_ecmp_seed(self) -> None:
        if self.ecmp_seed is not None and not (0 <= self.ecmp_seed < 2**64):
            raise _err("ecmp_seed", f"{self.ecmp_seed} is out of range; allowed 0 .. 2^64-1")

    def _check_fabric(self) -> None:
        """leaf_spine / fat_tree: sizes, rates (the derived leaf-spine rate too), delays, queues."""
        own = self._FABRIC[self.topology]
        known = set(self._DUMBBELL + self._GRAPH + self._TREE + self._PARKING + self._FABRIC_ONLY)
        for name in sorted(known - set(own)):
            if getattr(self, name) is not None:
                raise _err(name, f'not for topology = "{self.topology}"; it takes ' + self._takes(own))
        self._check_ecmp_seed()
        top_nodes, top_links = LIMITS["max_nodes"], LIMITS["max_links"]
        if self.topology == "leaf_spine":
            for name in ("leaves", "spines", "hosts_per_leaf"):
                v = getattr(self, name)
                if v is None:
                    raise _err(name, f"required for a leaf-spine, e.g. {name} = 4")
                if not (1 <= v <= top_nodes):
                    raise _err(name, f"{v} is out of range; allowed 1 .. {top_nodes}")
            nodes = self.leaves * self.hosts_per_leaf + self.leaves + self.spines
            links = self.leaves * self.hosts_per_leaf + self.leaves * self.spines
            if nodes > top_nodes or links > top_links:
                # named by the largest of the three (leaves = 100 000 had been told as hosts_per_leaf's)
                largest = max(("hosts_per_leaf", "leaves", "spines"), key=lambda n: getattr(self, n))
                raise _err(largest, f"{self.leaves} leaves x {self.hosts_per_leaf} hosts and {self.spines} spines "
                                    f"make {nodes} nodes and {links} links; allowed at most {top_nodes} nodes "
                                    f"and {top_links} links")
        else:
            kmax = LIMITS["max_fat_tree_k"]
            if self.k is None:
                raise _err("k", "required for a fat-tree: the switch port count, an even number, e.g. k = 4")
            if not (2 <= self.k <= kmax) or self.k % 2:
                raise _err("k", f"{self.k} is out of range; allowed an even k in 2 .. {kmax} (k pods of k/2 edge and "
                                f"k/2 aggregation switches, k^3/4 hosts)")
        if self.host_link is None:
            raise _err("host_link", 'required for a fabric: the host link rate, e.g. host_link = "10Gbps"')
        _positive_rate("host_link", self.host_link)
        if self.delay is None:
            self._fill("delay", DEFAULT_FABRIC_DELAY_S)
        if not self.delay >= 0:
            raise _err("delay", f"{time_str(self.delay)} is negative; allowed >= 0 s")
        if self.buffer is None:
            raise _err("buffer", 'required for a fabric: every switch port\'s buffer, e.g. buffer = "200pkt" '
                                 '(a tier may override it)')
        _buffer("buffer", self.buffer, self.packet_bytes)
        if self.aqm is None:
            self._fill("aqm", Aqm(kind="droptail"))
        self.aqm.check_against_buffer(self.buffer, self.packet_bytes, "aqm")
        allowed = FABRIC_TIERS[self.topology]
        tiers = self.tiers or {}
        for name, t in tiers.items():
            if name not in allowed:
                raise _err(f"tiers.{name}", f"{name!r} is not a tier of a {self.topology}; allowed: {', '.join(allowed)}")
            f = f"tiers.{name}"
            if t.rate is not None:
                _positive_rate(f"{f}.rate", t.rate)
            if t.delay is not None and not t.delay >= 0:
                raise _err(f"{f}.delay", f"{time_str(t.delay)} is negative; allowed >= 0 s")
            if t.buffer is not None:
                _buffer(f"{f}.buffer", t.buffer, self.packet_bytes)
            if t.aqm is not None:
                t.aqm.check_against_buffer(t.buffer or self.buffer, self.packet_bytes, f"{f}.aqm")
            elif t.buffer is not None:  # the tier inherits network.aqm: the tier's buffer is what the user set
                try:
                    self.aqm.check_against_buffer(t.buffer, self.packet_bytes, "aqm")
                except PydanticCustomError as e:
                    inherited = e.context["field"]
                    raise _err(f"{f}.buffer", f"{size_str(t.buffer)} cannot hold network.{inherited}, which this tier "
                                              f"inherits ({e.context['msg']}); give the tier a larger buffer or its own aqm")
        if self.topology == "leaf_spine":
            fixed = tiers.get("leaf_spine") is not None and tiers["leaf_spine"].rate is not None
            if fixed and self.oversubscription is not None:
                raise _err("oversubscription", "give either oversubscription or tiers.leaf_spine.rate, not both (the "
                                               "ratio sets the leaf-spine rate)")
            if self.oversubscription is None:
                self._fill("oversubscription", 1.0)
            o = self.oversubscription
            if not o > 0:
                raise _err("oversubscription", f"{o!r} is out of range; allowed > 0 (hosts_per_leaf x the hosts' rate / "
                                               "(spines x leaf-spine rate), e.g. 1 for full bisection, 3 for 3:1)")
            if not fixed:
                rate = self.tier_rate("leaf_spine")
                if not (MIN_RATE_BPS <= rate <= MAX_RATE_BPS):
                    shown = _rate_shown(rate) if rate >= 1 else f"{rate:.3g} bit/s"
                    raise _err("oversubscription", f"{o:g} leaves the leaf-spine links at {shown} (= {self.hosts_per_leaf} "
                                                   f"x {rate_str(self.tier_rate('host'))} / ({self.spines} x {o:g})); allowed a "
                                                   f"ratio that keeps them in 1Kbps .. 10Tbps")

    def tier(self, name: str) -> "Tier":
        """The given overrides of fabric tier ``name`` (an empty Tier if none)."""
        return (self.tiers or {}).get(name) or Tier()

    def tier_rate(self, name: str) -> float:
        """Rate of fabric tier ``name``, bit/s: its override, else the leaf-spine rule, else host_link."""
        t = self.tier(name)
        if t.rate is not None:
            return t.rate
        if name == "leaf_spine":  # the hosts' rate as it is (tiers.host.rate, if given)
            return self.hosts_per_leaf * self.tier_rate("host") / (self.spines * (self.oversubscription or 1.0))
        return self.host_link

    def tier_delay(self, name: str) -> float:
        t = self.tier(name)
        return t.delay if t.delay is not None else self.delay

    def tier_queue(self, name: str) -> tuple[Size, "Aqm"]:
        t = self.tier(name)
        return (t.buffer or self.buffer, t.aqm or self.aqm)

    def port_buffer(self, a: str, b: str) -> Optional[Size]:
        """The buffer of port a -> b as the engine builds it: a graph link's, a fabric tier's (by
        the levels of the names), else the network's (None: the engine's default)."""
        if self.topology == "graph":
            return next((link.buffer for link in self.links if {link.a, link.b} == {a, b}), None)
        if self.topology in FABRIC_TIERS:
            levels = FABRIC_LEVELS[self.topology]
            level = {n: next((i for i, pre in reversed(list(enumerate(levels)))
                              if n.startswith(pre) and n[len(pre):].isdigit()), None) for n in (a, b)}
            if None not in level.values() and abs(level[a] - level[b]) == 1:
                return self.tier_queue(FABRIC_TIERS[self.topology][min(level.values())])[0]
        return self.buffer

    def fabric_hosts(self) -> int:
        if self.topology == "leaf_spine":
            return int(self.leaves) * int(self.hosts_per_leaf)
        return int(self.k) ** 3 // 4

    def fabric_hops(self, a: str, b: str) -> Optional[list[str]]:
        """The tiers of the links on a shortest path between fabric hosts a and b (None: not hosts)."""
        try:
            i, j = int(a[1:]), int(b[1:])
        except ValueError:
            return None
        if self.topology == "leaf_spine":
            same = i // self.hosts_per_leaf == j // self.hosts_per_leaf
            return ["host", "host"] if same else ["host", "leaf_spine", "leaf_spine", "host"]
        half = self.k // 2
        if i // half == j // half:
            return ["host", "host"]
        if i // (half * half) == j // (half * half):
            return ["host", "edge_agg", "edge_agg", "host"]
        return ["host", "edge_agg", "agg_core", "agg_core", "edge_agg", "host"]

    def switch_names(self) -> list[str]:
        """Parking lot: C1 .. Cn."""
        return [f"C{i + 1}" for i in range(int(self.switches or 0))]

    def rack_sizes(self) -> list[int]:
        """Hosts per rack (tree)."""
        if isinstance(self.hosts, list):
            return list(self.hosts)
        return [int(self.hosts or 0)] * int(self.racks or 0)

    def hosts_list(self) -> list[str]:
        """Host names of a tree, rack by rack."""
        return [f"h{i}" for i in range(sum(self.rack_sizes()))]

    def rack_of(self) -> dict[str, int]:
        """Tree: host name -> rack index."""
        out, k = {}, 0
        for r, n in enumerate(self.rack_sizes()):
            for _ in range(n):
                out[f"h{k}"] = r
                k += 1
        return out

    def link_rate(self, a: str, b: str) -> Optional[float]:
        """Rate of the link between nodes a and b, bit/s (None: no such link)."""
        if b not in self.adjacency().get(a, []):
            return None
        return self._rate_rule(a, b)

    def _rate_rule(self, a: str, b: str, switches: Optional[set] = None) -> Optional[float]:
        """The rate of link a-b by the topology's rule, bit/s (the link is taken to exist);
        ``switches``: a parking lot's switch names, when known."""
        if self.topology == "dumbbell":
            return self.bottleneck if "r" in (a, b) else self.access
        if self.topology == "tree":
            host = a if a.startswith("h") else b if b.startswith("h") else None
            if host is None:
                return self.core_link
            return self.bottleneck if host in (self.bottleneck_hosts or []) and self.bottleneck else self.host_link
        if self.topology == "parking_lot":
            switches = set(self.switch_names()) if switches is None else switches
            return self.link if a in switches and b in switches else self.host_link
        if self.topology in FABRIC_TIERS:
            tier = next(t for x, y, t in self.fabric_links() if {x, y} == {a, b})
            return self.tier_rate(tier)
        return next((link.rate for link in self.links if {link.a, link.b} == {a, b}), None)

    def link_rates(self) -> dict[tuple[str, str], float]:
        """Every link's rate, both ways, bit/s: :meth:`link_rate` of every pair in one pass."""
        if self.topology in FABRIC_TIERS:
            out = {}
            for a, b, tier in self.fabric_links():
                out[(a, b)] = out[(b, a)] = self.tier_rate(tier)
            return out
        if self.topology == "graph":
            return {pair: link.rate for link in self.links for pair in ((link.a, link.b), (link.b, link.a))}
        # one adjacency, one rule per pair (link_rate rebuilt the adjacency for every pair: a
        # 2 000-sender dumbbell's warnings took 2.9 s, an 8 000-sender one's 189 s: a review)
        adj = self.adjacency()
        switches = set(self.switch_names()) if self.topology == "parking_lot" else None
        return {(a, b): self._rate_rule(a, b, switches) for a in adj for b in adj[a]}

    def host_rates(self, rates: Optional[dict] = None) -> dict[str, float]:
        """Every host's summed link rate, bit/s (all its links: the engine's load base for
        ``link = "hosts"``, `load_capacity_bps`), from ``rates`` (:meth:`link_rates`) if the caller
        has them already."""
        rates = self.link_rates() if rates is None else rates
        out = {h: 0.0 for h in self.host_names()}
        for (a, _), r in rates.items():
            if a in out:
                out[a] += r
        return out

    def default_monitored_ports(self) -> list[tuple[str, str]]:
        """The ports the engine monitors without metrics.ports, as (from, to), in its order (the
        engine's `net::topology::build`; `tests/test_l2_scenario.py` compares the two): the
        dumbbell's sw->r; every switch port of a graph; a tree's ports towards its bottleneck hosts,
        without any every switch port; a parking lot's C_k -> C_k+1; a fabric's first host's
        downlink and its first switches' uplinks."""
        t = self.topology
        if t == "dumbbell":
            return [("sw", "r")]
        if t == "graph":
            switch = {n.name for n in self.nodes or [] if n.kind == "switch"}
            return [p for link in self.links or [] for p in ((link.a, link.b), (link.b, link.a)) if p[0] in switch]
        if t == "parking_lot":
            return [(f"C{k}", f"C{k + 1}") for k in range(1, int(self.switches or 0))]
        if t == "leaf_spine":
            return [("leaf0", "h0")] + [("leaf0", f"spine{j}") for j in range(int(self.spines))]
        if t == "fat_tree":
            half = int(self.k) // 2
            return [("edge0", "h0")] + [("edge0", f"agg{a}") for a in range(half)] + [("agg0", f"core{c}") for c in range(half)]
        # tree
        sizes, slow, ports, k = self.rack_sizes(), set(self.bottleneck_hosts or []), [], 0
        toward_slow = []
        for r, n in enumerate(sizes):
            if len(sizes) > 1:
                ports += [(f"tor{r}", "root"), ("root", f"tor{r}")]
            for _ in range(n):
                ports.append((f"tor{r}", f"h{k}"))
                if f"h{k}" in slow:
                    toward_slow.append((f"tor{r}", f"h{k}"))
                k += 1
        return toward_slow or ports

    def default_bottleneck_port(self) -> Optional[str]:
        """The queue the papers watch: dumbbell sw->r; tree: ToR -> the first bottleneck host."""
        if self.topology == "dumbbell":
            return "sw->r"
        if self.topology == "tree" and self.bottleneck_hosts:
            h = self.bottleneck_hosts[0]
            return f"tor{self.rack_of()[h]}->{h}"
        if self.topology == "parking_lot" and (self.switches or 0) > 1:
            return "C1->C2"
        return None

    # -- derived
    @property
    def rtt_list(self) -> list[float]:
        """Base RTT per sender, s (dumbbell)."""
        return list(self.rtt) if isinstance(self.rtt, list) else [self.rtt]

    def fabric_switches(self) -> list[str]:
        """Switch names of a leaf-spine or fat-tree, in the engine's order."""
        if self.topology == "leaf_spine":
            return [f"leaf{i}" for i in range(self.leaves)] + [f"spine{j}" for j in range(self.spines)]
        e, c = self.k * self.k // 2, (self.k // 2) ** 2
        return [f"edge{i}" for i in range(e)] + [f"agg{i}" for i in range(e)] + [f"core{i}" for i in range(c)]

    def fabric_links(self) -> list[tuple[str, str, str]]:
        """The links of a leaf-spine or fat-tree as (a, b, tier), in the engine's order."""
        out = []
        if self.topology == "leaf_spine":
            h = self.hosts_per_leaf
            out += [(f"h{i}", f"leaf{i // h}", "host") for i in range(self.fabric_hosts())]
            out += [(f"leaf{i}", f"spine{j}", "leaf_spine") for i in range(self.leaves) for j in range(self.spines)]
            return out
        half = self.k // 2
        out += [(f"h{i}", f"edge{i // half}", "host") for i in range(self.fabric_hosts())]
        out += [(f"edge{e}", f"agg{(e // half) * half + j}", "edge_agg") for e in range(self.k * half) for j in range(half)]
        out += [(f"agg{a}", f"core{(a % half) * half + j}", "agg_core") for a in range(self.k * half) for j in range(half)]
        return out

    def fabric_port_tiers(self, src: Sequence[str], dst: Sequence[str]) -> "np.ndarray":
        """The tier and direction of each port ``src[i] -> dst[i]`` of a leaf-spine or fat-tree, as
        an index into :meth:`fabric_tier_order` (int8; -1: no port of the fabric). A link of tier
        t joins levels i and i + 1 of FABRIC_LEVELS; its port up (towards the spines or cores) is
        "<t> up", the other "<t> down". By the levels of the distinct names, not a table of every
        port (a k = 64 fat-tree has 393 216)."""
        import numpy as np

        levels = {p: i for i, p in enumerate(FABRIC_LEVELS[self.topology])}

        def level(name: str) -> int:
            prefix = name.rstrip("0123456789")
            return levels.get(prefix, -9) if prefix != name else -9  # -9: no level (two apart from any)

        of = {n: level(n) for n in {*src, *dst}}
        ls = np.fromiter(map(of.__getitem__, src), dtype=np.int8, count=len(src))
        ld = np.fromiter(map(of.__getitem__, dst), dtype=np.int8, count=len(dst))
        down = 2 * len(FABRIC_TIERS[self.topology]) - 1
        return np.where(ld == ls + 1, ls, np.where((ls == ld + 1) & (ld >= 0), down - ld, -1)).astype(np.int8)

    def fabric_tier_order(self) -> list[str]:
        """The tiers and directions of :meth:`fabric_port_tiers` in the order a packet between
        two pods (leaves) crosses them: "host up", ..., "host down"."""
        tiers = FABRIC_TIERS[self.topology]
        return [f"{t} up" for t in tiers] + [f"{t} down" for t in reversed(tiers)]

    def node_names(self) -> list[str]:
        if self.topology in FABRIC_TIERS:
            return [f"h{i}" for i in range(self.fabric_hosts())] + self.fabric_switches()
        if self.topology == "dumbbell":
            return [f"s{i}" for i in range(self.senders or 0)] + ["sw", "r"]
        if self.topology == "tree":
            return (["root"] if (self.racks or 0) > 1 else []) + [f"tor{i}" for i in range(self.racks or 0)] + self.hosts_list()
        if self.topology == "parking_lot":
            return self.switch_names() + list(self.attach or {})
        return [n.name for n in self.nodes]

    def host_names(self) -> list[str]:
        if self.topology in FABRIC_TIERS:
            return [f"h{i}" for i in range(self.fabric_hosts())]
        if self.topology == "dumbbell":
            return [f"s{i}" for i in range(self.senders or 0)] + ["r"]
        if self.topology == "tree":
            return self.hosts_list()
        if self.topology == "parking_lot":
            return list(self.attach or {})
        return [n.name for n in self.nodes if n.kind == "host"]

    def adjacency(self) -> dict[str, list[str]]:
        if self.topology in FABRIC_TIERS:
            adj = {n: [] for n in self.node_names()}
            for a, b, _ in self.fabric_links():
                adj[a].append(b)
                adj[b].append(a)
            return adj
        if self.topology == "tree":
            adj: dict[str, list[str]] = {n: [] for n in self.node_names()}
            for h, r in self.rack_of().items():
                adj[h].append(f"tor{r}")
                adj[f"tor{r}"].append(h)
            if (self.racks or 0) > 1:
                for r in range(self.racks):
                    adj[f"tor{r}"].append("root")
                    adj["root"].append(f"tor{r}")
            return adj
        if self.topology == "parking_lot":
            sw = self.switch_names()
            adj = {n: [] for n in self.node_names()}
            for a, b in zip(sw, sw[1:]):
                adj[a].append(b)
                adj[b].append(a)
            for h, at in (self.attach or {}).items():
                adj[h].append(at)
                adj[at].append(h)
            return adj
        if self.topology == "dumbbell":
            adj = {f"s{i}": ["sw"] for i in range(self.senders or 0)}
            adj["sw"] = [f"s{i}" for i in range(self.senders or 0)] + ["r"]
            adj["r"] = ["sw"]
            return adj
        adj = {n.name: [] for n in self.nodes}
        for link in self.links:
            adj[link.a].append(link.b)
            adj[link.b].append(link.a)
        return adj

    def to_engine(self) -> dict:
        pb = self.packet_bytes
        if self.topology in FABRIC_TIERS:
            def tier(name: str) -> dict:
                buf, aqm = self.tier_queue(name)
                return {"rate_bps": int(round(self.tier_rate(name))), "delay_ps": to_ps(self.tier_delay(name)),
                        "queue": _queue_engine(buf, aqm, pb, f"network.tiers.{name}")}
            out: dict = {"kind": self.topology}
            if self.topology == "leaf_spine":
                out.update(leaves=int(self.leaves), spines=int(self.spines), hosts_per_leaf=int(self.hosts_per_leaf))
            else:
                out["k"] = int(self.k)
            out.update({name: tier(name) for name in FABRIC_TIERS[self.topology]})
            out["ecmp_seed"] = None if self.ecmp_seed is None else int(self.ecmp_seed)
            return out
        if self.topology == "dumbbell":
            return {
                "kind": "dumbbell",
                "senders": int(self.senders),
                "bottleneck_bps": int(round(self.bottleneck)),
                "access_bps": int(round(self.access)),
                "rtt_ps": [to_ps(r) for r in self.rtt_list],
                "bottleneck_queue": _queue_engine(self.buffer, self.aqm, pb, "network"),
            }
        if self.topology == "parking_lot":
            return {
                "kind": "parking_lot",
                "switches": int(self.switches),
                "rate_bps": int(round(self.link)),
                "delay_ps": to_ps(self.delay),
                "host_rate_bps": int(round(self.host_link)),
                "host_delay_ps": to_ps(self.host_delay),
                "hosts": [{"name": h, "at": at} for h, at in self.attach.items()],
                "queue": _queue_engine(self.buffer, self.aqm, pb, "network"),
            }
        if self.topology == "tree":
            return {
                "kind": "tree",
                "racks": self.rack_sizes(),
                "host_bps": int(round(self.host_link)),
                "core_bps": int(round(self.core_link)),
                "bottleneck_bps": None if self.bottleneck is None else int(round(self.bottleneck)),
                "bottleneck_hosts": list(self.bottleneck_hosts or []),
                "rtt_ps": to_ps(self.rtt),
                "queue": _queue_engine(self.buffer, self.aqm, pb, "network"),
            }
        if self.topology != "graph":  # a topology without its table here: never a silent graph
            raise RuntimeError(f"dcsim: topology {self.topology!r} has no engine table in Network.to_engine")
        links = []
        for i, link in enumerate(self.links):
            d = {"a": link.a, "b": link.b, "rate_bps": int(round(link.rate)), "delay_ps": to_ps(link.delay)}
            if link.buffer is not None:
                d["queue"] = _queue_engine(link.buffer, link.aqm or Aqm(), pb, f"network.links[{i}]")
            links.append(d)
        out = {"kind": "graph", "nodes": [{"name": n.name, "kind": n.kind} for n in self.nodes], "links": links}
        if self.ecmp_seed is not None:
            out["ecmp_seed"] = int(self.ecmp_seed)
        return out


class DelayedAck(_Model):
    """Receiver delayed ACK (RFC 8257 §3.2 CE state machine): ACK every ``segments`` packets or after ``timeout``."""

    segments: Int = ENGINE_DEFAULTS["delack_segments"]
    timeout: Time = _s("delack_timeout_ps")

    @model_validator(mode="after")
    def _check(self) -> "DelayedAck":
        if not (1 <= self.segments <= LIMITS["max_count"]):
            raise _err("segments", f"{self.segments} is out of range; allowed 1 .. {LIMITS['max_count']}")
        if not self.timeout > 0:
            raise _err("timeout", f"{time_str(self.timeout)} is not positive; allowed > 0 s")
        return self


class _KeepsDelayedAckOff:
    """Writes ``delayed_ack = false`` back when it was given (under the linux profile it turns the
    profile's delayed ACKs off, so it must survive ``to_dict``, which leaves out None)."""

    @model_serializer(mode="wrap")
    def _keep_off(self, handler):
        d = handler(self)
        if isinstance(d, dict) and "delayed_ack" in self.model_fields_set and self.delayed_ack is None:
            d["delayed_ack"] = False
        return d


def _delayed_ack_form(v: Any) -> Any:
    if v is True:
        return {}
    if v is False or v is None:
        return None
    if isinstance(v, (dict, DelayedAck)):
        return v
    raise ValueError(f"expected true, false or a table {{segments, timeout}}, got {_shown(v)}")


def _transport_as_written(m: Any) -> dict:
    """The transport options ``m`` (a workload or a mix class) was given, as written (units as
    strings), for the FlowGroup that checks and defaults them: ``delayed_ack = false`` kept as
    explicitly off, and of a delayed-ACK table only the keys given (``true`` is the profile's
    delayed ACK, linux: 40 ms, not the defaults' 1 ms)."""
    opts = m.model_dump(mode="json", include=set(m._TRANSPORT), exclude_none=True)
    if "delayed_ack" in m.model_fields_set and m.delayed_ack is None:
        opts["delayed_ack"] = False
    elif m.delayed_ack is not None:
        opts["delayed_ack"] = m.delayed_ack.model_dump(mode="json", exclude_unset=True)
    return opts


class _FlowGroupHead(_Model):
    count: Int = 1
    protocol: str


class FlowGroup(_KeepsDelayedAckOff, _with_protocol_params(_FlowGroupHead)):
    """``count`` identical flows (TCP connections). Flow i of the group starts at ``start + i*stagger``.

    Protocols: ``dctcp``, ``newreno``, ``dctcp-improved-fairness`` (the DCTCP analysis paper's
    Section 5.2, eq. 36: DCTCP's alpha, W <- W + 1/W - alpha/2 per marked ACK) and ``dx`` (the DX
    analysis paper's eqs. 1-2: once per RTT W + 1 if the queueing delay Q = 0, else
    W (1 - Q/U), U = R0 W/(W - 1); see ``crates/dcsim-core/src/cc/dx.rs``).

    ``g`` is DCTCP's EWMA gain of eq. (3) of the DCTCP analysis paper, alpha <- (1-g) alpha + g F;
    the paper requires g in (0, 1), we also allow g = 1 (alpha = F of the last window).
    ``R0`` (DX only) is DX's base RTT: ``"min"`` (default: the minimum RTT sample seen so far),
    ``"path"`` (the exact base RTT of the flow's path, as a host that knows its topology) or a
    time. ``min_cwnd`` defaults to the protocol's floor: 1 segment for DX, 2 for the others (1
    under the linux profile).

    The protocols, their parameters (a field each, typed by its unit), defaults and window floors
    are the engine's (``PROTOCOL_TABLE``); a parameter of another protocol is an error naming it.
    """

    start: Time = 0.0
    stagger: Time = 0.0
    #: Each flow starts a uniformly random time in [0, start_jitter) later (drawn by the engine from
    #: the flow's RNG stream, so a seed gives the same starts): the papers' "randomized start times".
    start_jitter: Time = 0.0
    size: Optional[SizeQ] = None
    min_cwnd: Optional[WindowQ] = None
    init_cwnd: WindowQ = Size(ENGINE_DEFAULTS["init_cwnd_pkt"], "pkt")
    #: The profile's default when not given: 10 ms (ns2), 200 ms (linux).
    min_rto: Optional[Time] = None
    #: None: every packet is ACKed at once (the papers' ns-2 setting); ``true`` in a file means
    #: the defaults (a table {segments, timeout}). Not given: the profile's (ns2: off; linux: every
    #: 2 segments or 40 ms).
    delayed_ack: Optional[DelayedAck] = None
    #: Which TCP the transport imitates: "ns2" (default) or "linux"; it sets the defaults of the
    #: options below (README "Which TCP?").
    profile: str = "ns2"
    ecn_response: Optional[str] = None
    cwr_freeze: Optional[Bool] = None
    sack: Optional[Bool] = None
    abc: Optional[Bool] = None
    ce_quickack: Optional[Bool] = None
    dctcp_fixed_point: Optional[Bool] = None
    ect_acks: Optional[Bool] = None
    senders: Optional[list[Int]] = None
    src: Optional[str] = None
    dst: Optional[str] = None

    _protocol_ok = _one_of_validator("protocol", PROTOCOLS)
    _profile_ok = _one_of_validator("profile", TCP_PROFILES)
    _ecn_response_ok = _one_of_validator("ecn_response", ECN_RESPONSES)

    @field_validator("delayed_ack", mode="before")
    @classmethod
    def _delayed_ack_form(cls, v: Any) -> Any:
        return _delayed_ack_form(v)

    def ecn_capable(self) -> bool:
        """Are the group's data packets ECN-capable (ECT)? (The engine's ``ProtocolSpec::ecn_capable``.)"""
        return _protocol_facts(self.protocol_engine())["ect"]

    def _tcp_defaults(self) -> None:
        """Fill the transport options the user left out from the profile (as the engine's
        ``FlowSpec::tcp_options`` does), then refuse combinations the transport cannot honour,
        naming both fields."""
        linux = self.profile == "linux"
        facts = _protocol_facts(self.protocol_engine())
        prof = ENGINE_DEFAULTS["profiles"][self.profile]
        if self.ecn_response is None:
            self._fill("ecn_response", "prr" if linux and facts["cuts_on_ecn"] else "immediate")
        if self.cwr_freeze is None:
            self._fill("cwr_freeze", linux or self.ecn_response == "prr")
        for name in ("sack", "abc", "ce_quickack"):
            if getattr(self, name) is None:
                self._fill(name, bool(prof[name]))
        dctcp_alpha = facts["dctcp_alpha"]
        if self.dctcp_fixed_point is None:
            self._fill("dctcp_fixed_point", linux and dctcp_alpha)
        if self.ect_acks is None:
            self._fill("ect_acks", linux and dctcp_alpha)
        if self.min_rto is None:
            self._fill("min_rto", prof["min_rto_ps"] / 1e12)
        # The profile's delayed ACK for what was not written: all of it, or what `delayed_ack = true`
        # or a table without some keys leaves out (linux: 40 ms, not the ns2 default's 1 ms).
        d, given = prof["delayed_ack"], "delayed_ack" in self.model_fields_set
        if d is not None and (self.delayed_ack is not None or not given):
            da = self.delayed_ack.model_copy() if given else DelayedAck()
            for key, value in (("segments", d["segments"]), ("timeout", d["timeout_ps"] / 1e12)):
                if key not in da.model_fields_set:
                    da._fill(key, value)
            self._fill("delayed_ack", da, given=given)
        if self.ecn_response == "prr" and not facts["cuts_on_ecn"]:
            why = facts["no_window_cut_why"]
            raise _err("ecn_response", f'"prr" cannot be combined with protocol = {self.protocol}: {why}; '
                                       f'allowed here: "immediate"')
        if self.ecn_response == "prr" and not self.cwr_freeze:
            raise _err("cwr_freeze", 'false cannot be combined with ecn_response = "prr": PRR sets the window on every '
                                     'ACK of the CWR round trip, so it never grows there (Linux tcp_cong_control); '
                                     'use ecn_response = "immediate" for growth on unmarked ACKs')
        if self.ce_quickack and "ce_quickack" in self.model_fields_set and self.delayed_ack is None:
            how = "delayed_ack = false" if "delayed_ack" in self.model_fields_set else \
                f'delayed_ack not given (profile = "{self.profile}" has none)'
            raise _err("ce_quickack", f"true cannot be combined with {how}: the receiver already ACKs every packet "
                                      "at once, so there is no delayed ACK for a CE change to cut short; give "
                                      "delayed_ack = {segments, timeout} (or true) or leave ce_quickack out")
        if self.ect_acks and not facts["ect"]:
            what = facts["not_ect_as"]
            raise _err("ect_acks", f"true cannot be combined with protocol = {self.protocol}{what}: its data is not "
                                   "ECN-capable, so neither are its ACKs (Linux sets ECT only on a connection that "
                                   "negotiated ECN); use ect_acks = false")
        if self.dctcp_fixed_point:
            if not dctcp_alpha:
                raise _err("dctcp_fixed_point", f"true cannot be combined with protocol = {self.protocol}: "
                                                "only DCTCP has an alpha")
            if not any(self.g == 2.0 ** -k for k in range(11)):
                src = "dctcp_fixed_point = true" if "dctcp_fixed_point" in self.model_fields_set else \
                    'dctcp_fixed_point = true (the default of profile = "linux")'
                raise _err("g", f"{self.g} cannot be combined with {src}: Linux keeps g as a shift, g = 2^-k with "
                                "k = 0 .. 10 (e.g. 0.0625 = 2^-4); set dctcp_fixed_point = false for another g")

    def tcp_engine(self) -> dict:
        """The engine's ``tcp`` table: the profile and every option, resolved."""
        return {"profile": self.profile, **{n: getattr(self, n) for n in TCP_OPTIONS}}

    @model_validator(mode="after")
    def _check(self) -> "FlowGroup":
        if not (1 <= self.count <= LIMITS["max_flows"]):
            raise _err("count", f"{self.count} is out of range; allowed 1 .. {LIMITS['max_flows']}")
        if self.protocol not in PROTOCOLS:
            raise _err("protocol", _one_of(self.protocol, PROTOCOLS))
        own = PROTOCOL_PARAMS[self.protocol]
        for name in PROTOCOL_UNITS:
            if getattr(self, name) is not None and name not in own:
                users = " or ".join(f'"{p}"' for p, ps in PROTOCOL_PARAMS.items() if name in ps)
                why = ""
                if name == "ecn":  # NewReno's switch to ECN; the others' ECN is their own (the engine's facts)
                    ect = PROTOCOL_TABLE[self.protocol]["facts"]["ect"]
                    why = f" ({self.protocol} is always ECN-capable)" if ect else f" ({self.protocol} uses no ECN)"
                raise _err(name, f"only for protocol = {users}{why}; "
                                 f"{self.protocol} takes: {', '.join(own) or 'no parameters'}")
        # The protocol's parameters: the engine's defaults where not given, else range checks by
        # unit, then the engine's own checks of the protocol (Protocol::check: a range narrower
        # than the unit's, such as (0, 1) for a fraction, is refused here, not first at run time).
        for p in PROTOCOL_TABLE[self.protocol]["params"]:
            if getattr(self, p["name"]) is None:
                self._fill(p["name"], _param_default(p["unit"], p["default"]))
            else:
                _check_param(p["name"], p["unit"], getattr(self, p["name"]))
        refused = _refusal(_engine_answer("protocol_check", json.dumps(self.protocol_engine(), sort_keys=True)))
        if refused is not None:
            raise _err(*refused)
        if self.profile not in TCP_PROFILES:
            raise _err("profile", _one_of(self.profile, TCP_PROFILES))
        if self.ecn_response is not None and self.ecn_response not in ECN_RESPONSES:
            raise _err("ecn_response", _one_of(self.ecn_response, ECN_RESPONSES))
        if self.min_cwnd is None:
            linux_floor = ENGINE_DEFAULTS["profiles"][self.profile]["min_cwnd_pkt"]
            self._fill("min_cwnd", Size(float(linux_floor or PROTOCOL_TABLE[self.protocol]["min_cwnd_pkt"]), "pkt"))
        self._tcp_defaults()
        if not self.start >= 0:
            raise _err("start", f"{time_str(self.start)} is negative; allowed >= 0 s")
        if not self.stagger >= 0:
            raise _err("stagger", f"{time_str(self.stagger)} is negative; allowed >= 0 s")
        if not self.start_jitter >= 0:
            raise _err("start_jitter", f"{time_str(self.start_jitter)} is negative; allowed >= 0 s")
        if self.size is not None:
            _check_flow_size(self.size)
        top = LIMITS["max_window_pkt"]
        for name in ("min_cwnd", "init_cwnd"):
            w = _whole_packets(name, getattr(self, name))
            if not (math.isfinite(w) and 1 <= w <= top):
                raise _err(name, f"{exact_num(w)} is out of range; allowed 1 .. {top:g} packets")
        max_rto_s = LIMITS["max_rto_ps"] / 1e12
        if not self.min_rto > 0:
            raise _err("min_rto", f"{time_str(self.min_rto)} is not positive; allowed > 0 s .. {time_str(max_rto_s)}, e.g. \"10ms\"")
        if not self.min_rto <= max_rto_s:
            raise _err("min_rto", f"{time_str(self.min_rto)} is out of range; allowed > 0 s .. {time_str(max_rto_s)} "
                                  "(the retransmission timer's cap, RFC 6298 (2.5))")
        return self

    def protocol_engine(self) -> dict:
        """The engine's ``protocol`` table: the protocol's kind and its parameters in the engine's units."""
        proto = PROTOCOL_TABLE[self.protocol]
        return {"kind": proto["kind"], **{p["field"]: _param_engine(p["unit"], getattr(self, p["name"])) for p in proto["params"]}}

    def size_bytes(self, packet_bytes: int, header_bytes: int) -> Optional[int]:
        """Payload bytes; a size in packets counts full packets of (packet_bytes - header_bytes) payload."""
        return None if self.size is None else payload_bytes(self.size, packet_bytes, header_bytes)


# --------------------------------------------------------------------------------------------
# Workloads: generated flows (crates/dcsim-core/src/workload.rs)

#: Flow-size CDFs shipped with dcsim (python/dcsim/data/<name>.cdf; protocols.md §6): the DCTCP
#: web-search distribution (S13, mean 1.71 MB) and the VL2 data-mining one (S7, mean 7.47 MB).
CDF_NAMES = ("web_search", "data_mining")
#: A Poisson workload's ``link`` that refers the load to the senders' host links.
HOST_LINKS = "hosts"
WORKLOAD_KINDS = ("poisson", "incast", "trace", "permutation")
SIZE_KINDS = ("fixed", "uniform", "cdf")
#: Most lines a CDF file may have.
MAX_CDF_POINTS = 100_000
#: Most flows a trace may list: each costs the scenario layer ~60 B, ~5 us to load and ~2 us to
#: its engine spec (a million flows: 58 MB, 4.3-5.4 s and 1.6-2.0 s; benchmarks/bench_fabric.py
#: --case d), so 10^7 is ~0.6 GB and over a minute; the engine's result rows take ~2 KB a flow.
#: The memory plan counts each listed flow at the engine's ``trace_arrival_bytes`` (720 B) at the
#: run's peak, started or not (:meth:`Scenario._check_trace_arrival_count`): 10^7 need a
#: metrics.max_memory of 7.2 GB and more.
MAX_TRACE_FLOWS = 10_000_000
#: Largest data file read (a CDF's or a trace's), bytes: it is read whole; 10^7 trace lines of
#: ~40 B fit.
MAX_DATA_FILE_BYTES = 1 << 30
#: Largest CDF file read, bytes: MAX_CDF_POINTS lines of up to ~670 B (a CDF pointed at /dev/zero
#: had been read to 1 GiB before it was refused: a probe).
MAX_CDF_FILE_BYTES = 64 << 20


def cdf_path(name: str) -> Path:
    """The file of a shipped CDF."""
    return Path(__file__).parent / "data" / f"{name}.cdf"


def check_cdf(points: list, where) -> list[tuple[float, float]]:
    """Validate CDF points (size_bytes, P(S <= size)): numbers, sizes >= 0, both non-decreasing,
    probabilities in [0, 1], the last one 1. ``where(i)`` names point i in an error (a field or a
    file line). Returns the points as float pairs."""
    out: list[tuple[float, float]] = []
    if not points:
        raise ValueError("an empirical CDF needs at least one point (size_bytes, probability)")
    top = float(LIMITS["max_flow_bytes"])
    for i, pt in enumerate(points):
        if not isinstance(pt, (list, tuple)) or len(pt) != 2:
            raise ValueError(f"{where(i)}: expected two numbers (size_bytes, cumulative probability), got {pt!r}")
        try:
            sz, pr = _float_v(pt[0]), _float_v(pt[1])
        except ValueError as e:
            raise ValueError(f"{where(i)}: {e}") from None
        if sz < 0:
            raise ValueError(f"{where(i)}: size {exact_num(sz)} is negative; allowed sizes >= 0 bytes")
        if sz > top:
            raise ValueError(f"{where(i)}: size {exact_num(sz)} is out of range; allowed at most {top:g} bytes")
        if not 0 <= pr <= 1:  # 1.0000000001, not "1"
            raise ValueError(f"{where(i)}: probability {exact_num(pr)} is out of range; allowed [0, 1] (not percent)")
        if out and (sz < out[-1][0] or pr < out[-1][1]):
            raise ValueError(
                f"{where(i)}: ({sz:g}, {pr:g}) after ({out[-1][0]:g}, {out[-1][1]:g}): the CDF is not monotone; "
                "sizes and probabilities must not decrease"
            )
        out.append((sz, pr))
    if abs(out[-1][1] - 1.0) > 1e-9:
        raise ValueError(f"{where(len(out) - 1)}: the CDF ends at {out[-1][1]:g}, not at 1")
    if all(sz < 0.5 for sz, _ in out):
        raise ValueError(f"{where(len(out) - 1)}: every size is below 1 byte")
    empty = next((i for i, (sz, pr) in enumerate(out) if pr >= 1.0 - 1e-9), len(out) - 1)
    if out[empty][0] < 0.5:
        raise ValueError(f"{where(empty)}: the whole probability is at sizes below 1 byte (mean size 0 B): every "
                         "flow would be empty")
    return out


#: What a file named in a scenario is kept as once read (a CDF's points, a trace's arrivals).
FILE_CONTENTS = ("points", "arrivals")


class DataFiles:
    """The data files that the scenarios validated in one scope read (:func:`reading_files`): a
    sweep's plan, which validates every combination of the same trace file, or a sweep's worker.

    ``given``: the content of a file by the path a scenario names it (absolute), read instead of
    the filesystem (a worker on a machine without the file). Each trace is parsed once per
    content (the same path and SHA-256), and the last :data:`TRACES_KEPT` stay held: their
    :class:`TraceFlows` are read-only, so the scenarios share them. ``digests``: the SHA-256 of
    each trace file as read last, by path; ``read_paths``: every data file read, in order."""

    def __init__(self, given: Optional[dict[str, bytes]] = None, keep: Optional[int] = None) -> None:
        import threading

        self.given = dict(given or {})
        self.keep = TRACES_KEPT if keep is None else keep
        self.traces: dict[tuple[str, str], tuple["TraceFlows", "array[int]"]] = {}  # oldest first
        self.digests: dict[str, str] = {}
        self.read_paths: dict[str, None] = {}  # (a dict: ordered, each once)
        self._lock = threading.Lock()  # the traces may be shared by threads (with_given)

    def with_given(self, given: Optional[dict[str, bytes]]) -> "DataFiles":
        """A scope for one scenario with the contents ``given``, sharing these parsed traces."""
        other = DataFiles(given, self.keep)
        other.traces, other._lock = self.traces, self._lock
        return other

    def read(self, path: Path, what: str) -> bytes:
        """The bytes of data file ``path`` (a ``what`` file): given, else read."""
        self.read_paths[str(path)] = None
        given = self.given.get(str(path))
        return given if given is not None else read_data_file(path, what)

    def trace(self, path: Path, data: bytes, parse: Callable[[], tuple["TraceFlows", "array[int]"]]):
        """The trace of ``data`` read from ``path``: parsed by ``parse()`` once per content."""
        import hashlib

        key = (str(path), hashlib.sha256(data).hexdigest())
        self.digests[key[0]] = key[1]
        with self._lock:
            hit = self.traces.get(key)
        if hit is None:
            hit = parse()
        self._hold(key, hit)
        return hit

    def _hold(self, key: tuple[str, str], hit: tuple["TraceFlows", "array[int]"]) -> None:
        """Hold ``hit`` as the newest, and only the last :attr:`keep`."""
        with self._lock:
            self.traces.pop(key, None)
            self.traces[key] = hit
            while len(self.traces) > self.keep:
                del self.traces[next(iter(self.traces))]


#: Traces a :class:`DataFiles` holds parsed (a sweep over many trace files holds the last few;
#: a million flows are ~60 MB).
TRACES_KEPT = 4

_DATA_FILES: "contextvars.ContextVar[Optional[DataFiles]]" = contextvars.ContextVar("dcsim_data_files", default=None)


@contextlib.contextmanager
def reading_files(files: DataFiles) -> Iterator[DataFiles]:
    """Validate scenarios in this block with ``files`` (:class:`DataFiles`): given contents, and
    each trace parsed once."""
    token = _DATA_FILES.set(files)
    try:
        yield files
    finally:
        _DATA_FILES.reset(token)


def _path_shown(path) -> str:
    """A file's name for a message: as written, or quoted where it is empty or has spaces at an end
    (a blank name showed as "file:  : cannot read": a review)."""
    text = str(path)
    return text if text and text.strip() == text else repr(text)


def read_data_file(path: Path, what: str) -> bytes:
    """The bytes of a data file (a ``what`` file); ValueError naming it when it cannot be read or
    is larger than its bound (MAX_CDF_FILE_BYTES for a CDF, MAX_DATA_FILE_BYTES otherwise)."""
    from dcsim._files import read_at_most

    most = MAX_CDF_FILE_BYTES if what == "CDF" else MAX_DATA_FILE_BYTES
    try:
        data = read_at_most(path, most)
    except OSError as e:
        raise ValueError(f"{_path_shown(path)}: cannot read the {what} file ({e.strerror or e})") from None
    if data is None:
        raise ValueError(f"{path}: more than {most} bytes; allowed at most {most} bytes for a {what} file")
    return data


def _data_lines(path: Path, what: str, form: str, data: Optional[bytes] = None) -> Iterator[tuple[int, str, list[str]]]:
    """The lines of a small data file (a CDF's, a trace's) that hold values: (line number, line,
    its fields split at whitespace or commas), ``#`` starting a comment. Raises ValueError naming
    the file when it cannot be read or is not text (``form``: what its lines hold). ``data``: its
    bytes, read already; else read here (through :func:`reading_files`' scope, if any)."""
    if data is None:
        files = _DATA_FILES.get()
        data = files.read(path, what) if files is not None else read_data_file(path, what)
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (spreadsheets write one) is not a field
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a {what} file has lines '{form}')") from None
    for n, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].replace(",", " ").split()
        if body:
            yield n, line, body


def _data_rows(path: Path, what: str, form: str, expect: str, add: Callable[[list[str]], None], cap: int,
               items: str, header: bool = False, data: Optional[bytes] = None, optional: int = 0) -> "array[int]":
    """The rows of a small data file (see `_data_lines`): each line's fields (as many as ``form``
    names, of which the last ``optional`` may be left out) handed to ``add``, which keeps them or
    raises ValueError. Returns the line of each row: at most ``cap`` rows, at least one.
    ``header``: a first line that spells ``form`` (or it without its optional fields) is skipped.
    Every error names the file and line (``expect``: what a line must hold; ``items``: what the
    rows are, plural)."""
    fields = form.replace("[", "").replace("]", "").split()  # "a b [c]": c optional
    heads = [fields[:len(fields) - k] for k in range(optional + 1)]
    lines = array("I")  # 4 B a row (a trace has up to 10^7)
    first = header  # the first line that holds fields may be a header, no other (two had both been skipped)
    for n, line, body in _data_lines(path, what, form, data):
        if first:
            first = False
            words = [b.lower() for b in body]
            if words in heads:
                continue
            if words[0] == fields[0]:  # "start,src,dst,size,proto": a header, not a flow that starts at "start"
                raise ValueError(f"{path} line {n}: a header line is " + " or ".join(f"'{','.join(h)}'" for h in heads)
                                 + f", got {line.strip()!r}")
        elif header and body[0].lower() == fields[0] and [b.lower() for b in body] in heads:
            raise ValueError(f"{path} line {n}: a header line, allowed only as the first line of the file")
        if not len(fields) - optional <= len(body) <= len(fields):
            raise ValueError(f"{path} line {n}: expected {expect}, got {line.strip()!r}")
        try:
            add(body)
        except ValueError as e:
            raise ValueError(f"{path} line {n}: {e}") from None
        lines.append(n)
        if len(lines) > cap:
            raise ValueError(f"{path}: more than {cap} {items}; allowed at most {cap}")
    if not lines:
        raise ValueError(f"{path}: no {items}; a {what} file has lines '{form}'")
    return lines


def _cdf_point(body: list[str]) -> tuple[float, float]:
    try:
        return _ascii_float(body[0]), _ascii_float(body[1])
    except ValueError:
        raise ValueError(f"{' '.join(body)!r} is not two numbers") from None


def read_cdf(path: Union[str, Path]) -> list[tuple[float, float]]:
    """Read a CDF file: one point per line, ``size_bytes cumulative_probability`` (whitespace or a
    comma between them), probabilities in [0, 1], ``#`` starts a comment. Raises ValueError naming
    the file and line."""
    path = Path(path)
    rows: list[tuple[float, float]] = []
    lines = _data_rows(path, "CDF", "size_bytes probability", "two numbers 'size_bytes probability'",
                       lambda body: rows.append(_cdf_point(body)), MAX_CDF_POINTS, "points")
    return check_cdf(rows, lambda i: f"{path} line {lines[i]}")


def payload_bytes(sz: Size, packet_bytes: int, header_bytes: int) -> int:
    """A flow size in payload bytes: a size in packets counts full packets of payload."""
    return _payload_bytes(sz.value, sz.unit == "pkt", packet_bytes - header_bytes)


def _payload_bytes(value: float, in_packets: bool, payload_per_packet: int) -> int:
    """:func:`payload_bytes` of a size given as its value and whether it counts packets."""
    return int(round(value * payload_per_packet)) if in_packets else int(value)


def _ascii_float(text: str) -> float:
    """A number as a data file writes it: ASCII digits, no "_" (Python's float() also reads
    "１０" and "1_000"). Raises ValueError."""
    if not text.isascii() or "_" in text:
        raise ValueError(f"{text!r} is not a number of ASCII digits")
    return float(text)


def _plain_number(v: Any) -> Optional[float]:
    """``v`` as a number if it is one (or its text is), else None."""
    if isinstance(v, str):  # first: a trace file's millions of fields
        try:
            return _ascii_float(v)
        except ValueError:
            return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return None


#: One flow of a trace as :func:`_arrival` normalises it: start (s), src, dst, the size's value
#: and whether it counts packets (else bytes), the start and size as written, None where that
#: is the exact form of the number (``"<repr(start)>s"``, ``"<bytes>B"``), and its protocol (None:
#: drawn by the shares of the workload's mix).
Arrival = tuple[float, str, str, float, bool, Optional[str], Optional[str], Optional[str]]


def _arrival(start: Any, src: Any, dst: Any, size: Any, protocol: Any = None, *, plain: bool = False) -> Arrival:
    """One flow of a trace, normalised (see :data:`Arrival`): start in seconds (a time such as
    "10us"), src and dst host names, size in payload bytes or packets ("64KB", "1000B", "10pkt"),
    the start and size as given (None for a plain number, written back exactly as "0.0001s"
    and "64000B"), and its protocol, if given (one of :data:`PROTOCOLS`; the workload draws the
    flow's class among its classes of that protocol). With ``plain`` (a trace file) a plain number is also
    allowed: seconds for start, bytes for size. Raises ValueError naming the bad value."""
    x = _plain_number(start) if plain else None
    try:
        t = x if x is not None else parse_time(start, "start")
    except UnitError as e:
        raise ValueError(str(e)) from None
    if not (math.isfinite(t) and 0 <= t <= MAX_TIME_S):  # as every time of a scenario (the engine's u64 ps)
        raise ValueError(f"start: {start!r} is out of range; allowed >= 0 s and at most {MAX_TIME_S:g} s (10^6 s)")
    for what, name in (("src", src), ("dst", dst)):
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what}: {name!r} is not a host name")
    if src == dst:
        raise ValueError(f"dst: {dst!r} is also the source; a flow runs between two hosts")
    if isinstance(size, bool):
        raise ValueError(f"size: {size!r} is not a size")
    b = _plain_number(size) if plain else None
    if b is not None:
        value, in_packets = b, False
    else:
        try:
            sz = parse_size(size, "size")
        except UnitError as e:
            raise ValueError(str(e)) from None
        value, in_packets = float(sz.value), sz.unit == "pkt"
    if not (math.isfinite(value) and value >= 1) or (not in_packets and not value.is_integer()):
        raise ValueError(f"size: {size!r} is out of range; allowed a whole number of bytes >= 1, e.g. \"64KB\"")
    if protocol is not None and protocol not in PROTOCOLS:
        raise ValueError(f"protocol: {_one_of(protocol, PROTOCOLS)}")
    start_text = start.strip() if x is None and isinstance(start, str) else None
    size_text = str(size).strip() if b is None else None
    return t, src, dst, value, in_packets, start_text, size_text, protocol


class TraceFlows(Sequence):
    """A trace's flows, stored by columns (a million flows in ~40 MB rather than ~0.8 GB of one
    table each): start (s), source and destination (indices into ``hosts``), size (bytes, or
    packets where ``in_packets``), the start and size as written where that is not the exact
    form of the number, and the protocol of the flows that name one (``proto``: an index into
    ``protocols``, -1 for none). Reads as the read-only list of tables the scenario was written
    with, ``{start, src, dst, size}`` (and ``protocol`` where given) with units
    (``sc.workloads[0].arrivals[3]["size"] == "64KB"``); the scenario written with a run holds
    them so."""

    #: What a trace is (compared, pickled); ``_index`` finds a host's index while flows are added,
    #: ``_where`` is the field's path, for errors, ``_engine`` the last engine columns (:meth:`to_engine`).
    _COLUMNS = ("start_s", "src", "dst", "size", "in_packets", "hosts", "start_text", "size_text", "proto", "protocols")
    __slots__ = (*_COLUMNS, "_index", "_where", "_engine")

    def __init__(self) -> None:
        self.start_s = array("d")
        self.src = array("I")
        self.dst = array("I")
        self.size = array("d")
        self.in_packets = bytearray()
        self.hosts: list[str] = []  # in the order of their first flow
        self.start_text: dict[int, str] = {}  # flow -> start as written (a time with a unit)
        self.size_text: dict[int, str] = {}
        self.proto = array("b")  # the index of each flow's protocol in `protocols`; -1: none (drawn)
        self.protocols: list[str] = []  # the protocols named, in the order of their first flow
        self._where = "arrivals"
        self._index: dict[str, int] = {}
        self._engine: Optional[tuple] = None  # the last engine columns (to_engine)

    def add(self, flow: Arrival) -> None:
        """Append one flow (as :func:`_arrival` returns it)."""
        t, src, dst, value, in_packets, start_text, size_text, protocol = flow
        j = len(self.start_s)
        index = self._index
        self.start_s.append(t)
        self.src.append(index[src] if src in index else self._new_host(src))
        self.dst.append(index[dst] if dst in index else self._new_host(dst))
        self.size.append(value)
        self.in_packets.append(in_packets)
        if protocol is None:
            self.proto.append(-1)
        else:
            if protocol not in self.protocols:
                self.protocols.append(protocol)
            self.proto.append(self.protocols.index(protocol))
        # a text that is the exact form of its number is not kept (it is written back the same)
        if start_text is not None and start_text != f"{t!r}s":
            self.start_text[j] = start_text
        if size_text is not None and (in_packets or size_text != f"{int(value)}B"):
            self.size_text[j] = size_text

    def _new_host(self, name: str) -> int:
        self._index[name] = len(self.hosts)
        self.hosts.append(name)
        return self._index[name]

    def __len__(self) -> int:
        return len(self.start_s)

    #: The fields of a flow as written (``protocol`` only where the flow names one).
    FIELDS = ("start", "src", "dst", "size", "protocol")

    def rows(self, units: bool = True) -> Iterator[tuple[str, ...]]:
        """Each flow's start, src, dst and size as written, and its protocol if it names one
        (:meth:`_row`)."""
        for j, (t, s, d, v, p) in enumerate(zip(self.start_s, self.src, self.dst, self.size, self.proto)):
            yield self._row(j, t, s, d, v, p, units)

    def _row(self, j: int, t: float, s: int, d: int, v: float, p: int, units: bool) -> tuple[str, ...]:
        """Flow ``j`` (its start, host indices, size and protocol index) as written: the texts
        given, else the exact forms of the numbers, with units (``"<repr(start)>s"``,
        ``"<bytes>B"``) or, without ``units``, as a trace file's plain numbers (seconds, bytes);
        then its protocol, if it names one."""
        start, size = self.start_text.get(j), self.size_text.get(j)
        row = (start if start is not None else f"{t!r}s" if units else repr(t), self.hosts[s], self.hosts[d],
               size if size is not None else f"{int(v)}B" if units else str(int(v)))
        return row if p < 0 else (*row, self.protocols[p])

    def written(self, j: int) -> dict:
        """Flow ``j`` as the scenario writes it: ``{start, src, dst, size}`` (and ``protocol`` if
        it names one), times and sizes with units."""
        return dict(zip(self.FIELDS, self._row(j, self.start_s[j], self.src[j], self.dst[j], self.size[j],
                                               self.proto[j], True)))

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        if j < 0:
            j += len(self)
        if not 0 <= j < len(self):
            raise IndexError(f"{self._where}[{j}]: the trace has {len(self)} flows")
        return FrozenDict(self.written(j), f"{self._where}[{j}]")

    def __iter__(self) -> Iterator[dict]:
        return (self[j] for j in range(len(self)))

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, TraceFlows):
            return all(getattr(self, a) == getattr(other, a) for a in self._COLUMNS)
        if isinstance(other, list):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TraceFlows({len(self)} flows between {len(self.hosts)} hosts)"

    def __copy__(self) -> "TraceFlows":
        return self  # read-only

    def __deepcopy__(self, memo: dict) -> "TraceFlows":
        return self

    def __reduce__(self):
        return (_trace_flows_from, tuple(getattr(self, a) for a in self._COLUMNS))

    def toml_lines(self) -> Iterator[str]:
        """Each flow as a line of a TOML array, ``  { start = "...", src = "...", dst = "...", size = "..." },``
        (and ``protocol = "..."`` where the flow names one): the tables :meth:`written` gives,
        written from the columns (a table each was ~15 us a flow)."""
        hosts = {h: _toml_str(h) for h in self.hosts}
        for start, src, dst, size, *protocol in self.rows():
            named = f", protocol = {_toml_str(protocol[0])}" if protocol else ""
            yield f"  {{ start = {_toml_str(start)}, src = {hosts[src]}, dst = {hosts[dst]}, size = {_toml_str(size)}{named} }},\n"

    def csv_lines(self) -> Iterator[str]:
        """The flows as a trace file (:func:`read_trace` reads them back to these flows): a header,
        then ``start,src,dst,size`` a line (``,protocol`` too where a flow names one), the texts as
        written and otherwise the plain numbers (seconds as ``repr`` gives them, whole bytes),
        which are exact."""
        yield ",".join(self.FIELDS[:5 if self.protocols else 4]) + "\n"
        for row in self.rows(units=False):
            yield ",".join(row) + "\n"

    def fits_a_file(self) -> bool:
        """Whether every host name and written text can stand as a field of a trace file's line
        (:func:`not_a_trace_field`)."""
        return not any(map(not_a_trace_field, (*self.hosts, *self.start_text.values(), *self.size_text.values())))

    def first_unknown_host(self, known) -> Optional[tuple[int, str, str]]:
        """The first flow with a host not in ``known``: (flow, "src" or "dst", the name), or None."""
        unknown = {i for i, h in enumerate(self.hosts) if h not in known}
        if not unknown:
            return None
        for j, (s, d) in enumerate(zip(self.src, self.dst)):
            if s in unknown or d in unknown:
                end, i = ("src", s) if s in unknown else ("dst", d)
                return j, end, self.hosts[i]
        raise AssertionError("unreachable: every host name belongs to a flow")

    def payloads(self, payload_per_packet: int) -> Iterator[int]:
        """Each flow's size in payload bytes (a size in packets counts full packets of payload)."""
        return (_payload_bytes(v, p, payload_per_packet) for v, p in zip(self.size, self.in_packets))

    def first_payload_above(self, top: int, payload_per_packet: int) -> Optional[tuple[int, int]]:
        """The first flow of more than ``top`` payload bytes: (flow, its bytes), or None."""
        if not self.size or max(self.size) * (payload_per_packet if any(self.in_packets) else 1) <= top:
            return None  # no flow can pass it (whole numbers: the product bounds the rounded one)
        for j, b in enumerate(self.payloads(payload_per_packet)):
            if b > top:
                return j, b
        return None

    def to_engine(self, start_s: float, payload_per_packet: int) -> dict:
        """The engine's arrivals, by columns (its ``TraceArrivals``): each flow at ``start_s`` + its
        start in whole picoseconds, its hosts as indices into ``hosts``, its payload bytes, and,
        where flows name their protocol, each flow's as an index into ``protocols`` (None: none).

        The times and payloads of the last (``start_s``, ``payload_per_packet``) are kept (16 B a
        flow): a sweep's combinations share one trace, and each builds its engine spec (a million
        flows: ~2 s each). Every call returns lists of its own."""
        key = (start_s, payload_per_packet)
        if self._engine is None or self._engine[0] != key:
            # unsigned 64-bit, as the engine's columns (every time is <= 2 x 10^6 s, every size <= max_flow_bytes)
            self._engine = (key, array("Q", [to_ps(start_s + t) for t in self.start_s]),
                            array("Q", self.payloads(payload_per_packet)))
        _, at_ps, size_bytes = self._engine
        out = {"hosts": list(self.hosts), "at_ps": at_ps.tolist(), "src": self.src.tolist(), "dst": self.dst.tolist(),
               "size_bytes": size_bytes.tolist()}
        if self.protocols:
            out["protocol"] = [None if p < 0 else p for p in self.proto]
            out["protocols"] = list(self.protocols)
        return out


def _trace_as_is(v: Any, handler: Callable[[Any], Any]) -> Any:
    """A trace's flows that are a :class:`TraceFlows` already (:meth:`Scenario.replace` hands a
    validated scenario's on) pass as they are; anything else is validated as a list of tables."""
    return v if isinstance(v, TraceFlows) else handler(v)


def _trace_flows_from(*columns: Any) -> TraceFlows:
    """A :class:`TraceFlows` from its columns (:attr:`TraceFlows._COLUMNS`; unpickling)."""
    tf = TraceFlows()
    for name, value in zip(TraceFlows._COLUMNS, columns):
        setattr(tf, name, value)
    tf._index = {h: i for i, h in enumerate(tf.hosts)}
    return tf


def read_trace(path: Union[str, Path], with_lines: bool = False):
    """Read a trace file: one flow per line, ``start src dst size`` and optionally its
    ``protocol`` (whitespace or commas between them; a first line ``start,src,dst,size`` or
    ``start,src,dst,size,protocol`` is a header; ``#`` starts a comment). start: a time ("10us")
    or a plain number of seconds; size: a size ("64KB", "10pkt") or a plain number of bytes;
    protocol: one of :data:`PROTOCOLS`; the flow's class is drawn only among the workload's classes
    of that protocol (none drawn where one class has it; a flow without one draws among all, by the
    shares). Returns the flows, a :class:`TraceFlows` (with ``with_lines``, also the line of each).
    Raises ValueError naming the file and line. Within :func:`reading_files`, the file is parsed
    once per content."""
    path = Path(path)

    def parse(data: Optional[bytes] = None) -> tuple[TraceFlows, "array[int]"]:
        flows = TraceFlows()
        lines = _data_rows(path, "trace", f"{TRACE_FORM} [protocol]", f"'{TRACE_FORM}' or '{TRACE_FORM} protocol'",
                           lambda body: flows.add(_arrival(*body, plain=True)), MAX_TRACE_FLOWS, "flows", header=True,
                           data=data, optional=1)
        return flows, lines

    files = _DATA_FILES.get()
    if files is None:
        flows, lines = parse()
    else:
        data = files.read(path, "trace")
        flows, lines = files.trace(path, data, lambda: parse(data))
    return (flows, lines) if with_lines else flows


#: What a trace file's line holds.
TRACE_FORM = "start src dst size"
_NOT_IN_A_FIELD = re.compile(r"[\s,#]")


def not_a_trace_field(text: str) -> bool:
    """Whether ``text`` cannot be a field of a trace file's line: whitespace and commas separate
    the fields, ``#`` starts a comment."""
    return _NOT_IN_A_FIELD.search(text) is not None


class Sizes(_Model):
    """Flow sizes (payload bytes; a size in packets counts full packets of payload):
    ``{kind = "fixed", size = "30KB"}``, ``{kind = "uniform", min = "10KB", max = "50KB"}`` (whole
    bytes, uniform), or an empirical CDF ``{kind = "cdf", name = "web_search"}`` (shipped:
    web_search, data_mining), ``{kind = "cdf", file = "my.cdf"}`` (lines "size_bytes probability";
    relative to the scenario file) or ``{kind = "cdf", points = [[bytes, p], ...]}``. A CDF is
    sampled by linear interpolation on a uniform percentile. A file is read when the scenario is
    loaded and kept as its points (the scenario written with a run is self-contained)."""

    kind: str
    size: Optional[SizeQ] = None
    min: Optional[SizeQ] = None
    max: Optional[SizeQ] = None
    name: Optional[str] = None
    file: Optional[str] = None
    points: Optional[list] = None

    _PARAMS: ClassVar[dict[str, tuple[str, ...]]] = {
        "fixed": ("size",),
        "uniform": ("min", "max"),
        "cdf": ("name", "file", "points"),
    }

    @model_validator(mode="after")
    def _check(self) -> "Sizes":
        if self.kind not in SIZE_KINDS:
            raise _err("kind", _one_of(self.kind, SIZE_KINDS))
        params = self._PARAMS[self.kind]
        for name in ("size", "min", "max", "name", "file", "points"):
            if getattr(self, name) is not None and name not in params:
                raise _err(name, f"not a parameter of sizes kind {self.kind!r}; allowed: {', '.join(params)}")
        for name in ("size", "min", "max"):
            v = getattr(self, name)
            if v is not None and v.unit == "pkt" and not v.value >= 1:  # as a flow's size (_check_flow_size)
                raise _err(name, f"{size_str(v)} is less than one packet; give a smaller size in bytes, e.g. \"100B\"")
            if v is not None and not v.value >= 1:
                raise _err(name, f"{size_str(v)} is out of range; allowed >= 1 byte")
            if v is not None and v.unit == "B" and not float(v.value).is_integer():
                raise _err(name, f"{size_str(v)} is not a whole number of bytes")
        if self.kind == "fixed" and self.size is None:
            raise _err("size", 'required for sizes kind "fixed", e.g. size = "30KB"')
        if self.kind == "uniform":
            for name in ("min", "max"):
                if getattr(self, name) is None:
                    raise _err(name, 'required for sizes kind "uniform", e.g. min = "10KB", max = "50KB"')
            if self.min.unit == self.max.unit and self.max.value < self.min.value:
                raise _err("max", f"{size_str(self.max)} is smaller than min = {size_str(self.min)}")
        if self.kind == "cdf":
            given = [n for n in ("name", "file", "points") if getattr(self, n) is not None]
            if len(given) != 1:
                raise _err("name", f"give one of name ({', '.join(CDF_NAMES)}), file or points; got "
                           + (", ".join(given) if given else "none"))
            if self.name is not None and self.name not in CDF_NAMES:
                raise _err("name", _one_of(self.name, CDF_NAMES))
            if self.file is not None:
                try:
                    pts = read_cdf(self.file)
                except ValueError as e:
                    raise _err("file", str(e)) from None
                # kept as its points (given: written back), so the scenario is self-contained
                self._fill("points", [list(p) for p in pts], given=True)
                self._fill("file", None)
            elif self.points is not None:
                try:
                    pts = check_cdf(self.points, lambda i: f"points[{i}]")
                except ValueError as e:
                    msg = str(e)
                    if msg.startswith("points["):
                        idx, rest = msg.split(": ", 1)
                        raise _err(idx, rest) from None
                    raise _err("points", msg) from None
                self._fill("points", [list(p) for p in pts], given=True)
        return self

    def cdf_points(self) -> list[tuple[float, float]]:
        if self.name is not None:
            return read_cdf(cdf_path(self.name))
        return [tuple(p) for p in self.points]

    def to_engine(self, packet_bytes: int, header_bytes: int) -> dict:
        def nbytes(sz: Size) -> int:
            return payload_bytes(sz, packet_bytes, header_bytes)

        if self.kind == "fixed":
            return {"kind": "fixed", "bytes": nbytes(self.size)}
        if self.kind == "uniform":
            return {"kind": "uniform", "min_bytes": nbytes(self.min), "max_bytes": nbytes(self.max)}
        return {"kind": "cdf", "points": [[float(a), float(b)] for a, b in self.cdf_points()]}

    def mean_bytes(self, packet_bytes: int, header_bytes: int) -> float:
        """E[S] of the sizes as the engine draws them (whole bytes, at least 1), bytes: the mean a
        Poisson workload's arrival rate divides its load by (the engine's SizeSpec::mean_bytes)."""
        return _core.size_mean_bytes(json.dumps(self.to_engine(packet_bytes, header_bytes)))

    def mean_packets(self, packet_bytes: int, header_bytes: int) -> float:
        """E[ceil(S / (packet_bytes - header_bytes))]: a flow's mean number of packets, each
        adding its header on the wire (the engine's SizeSpec::mean_packets)."""
        return _core.size_mean_packets(json.dumps(self.to_engine(packet_bytes, header_bytes)),
                                       packet_bytes - header_bytes)


def _reraise_nested(e: ValidationError) -> PydanticCustomError:
    """The first error of a model validated inside a validator, as an error of the outer model
    (its path relative to the inner model)."""
    path, _, msg = _format_error(e.errors()[0]).partition(": ")
    return _err("protocol" if path == "scenario" else path, msg)


class _FlowClassHead(_Model):
    protocol: str
    share: Optional[Float] = None


class FlowClass(_KeepsDelayedAckOff, _with_protocol_params(_FlowClassHead)):
    """A class of generated flows: its ``share`` of the arrivals (of the incast servers) and its
    transport: ``protocol`` and the options of a [[flows]] group (the protocol's parameters from the
    engine's table, min_cwnd, init_cwnd, min_rto, delayed_ack, the profile and its options),
    validated and defaulted exactly as there."""

    min_cwnd: Optional[WindowQ] = None
    init_cwnd: Optional[WindowQ] = None
    min_rto: Optional[Time] = None
    delayed_ack: Optional[DelayedAck] = None
    profile: Optional[str] = None
    ecn_response: Optional[str] = None
    cwr_freeze: Optional[Bool] = None
    sack: Optional[Bool] = None
    abc: Optional[Bool] = None
    ce_quickack: Optional[Bool] = None
    dctcp_fixed_point: Optional[Bool] = None
    ect_acks: Optional[Bool] = None

    _TRANSPORT: ClassVar[tuple[str, ...]] = (*PROTOCOL_UNITS, "min_cwnd", "init_cwnd", "min_rto", "delayed_ack",
                                             "profile") + TCP_OPTIONS
    _flow: Any = PrivateAttr(default=None)

    @field_validator("delayed_ack", mode="before")
    @classmethod
    def _delayed_ack_form(cls, v: Any) -> Any:
        return _delayed_ack_form(v)

    @model_validator(mode="after")
    def _check(self) -> "FlowClass":
        opts = _transport_as_written(self)
        try:
            self._flow = FlowGroup(protocol=self.protocol, **opts)
        except ValidationError as e:
            raise _reraise_nested(e) from None
        if self.share is None:
            raise _err("share", "required in a mix: the fraction of the flows of this class, e.g. share = 0.5")
        if not 0 < self.share <= 1:
            raise _err("share", f"{self.share} is out of range; allowed (0, 1]")
        return self

    def to_engine(self) -> dict:
        f: FlowGroup = self._flow
        return {
            "share": float(self.share),
            "protocol": f.protocol_engine(),
            "min_cwnd_pkt": float(f.min_cwnd.value),
            "init_cwnd_pkt": float(f.init_cwnd.value),
            "min_rto_ps": to_ps(f.min_rto),
            "delayed_ack": (
                None
                if f.delayed_ack is None
                else {"segments": int(f.delayed_ack.segments), "timeout_ps": to_ps(f.delayed_ack.timeout)}
            ),
            "tcp": f.tcp_engine(),
        }


class _WorkloadHead(_Model):
    kind: str
    # poisson
    load: Optional[Float] = None
    link: Optional[str] = None
    sizes: Optional[Sizes] = None
    senders: Optional[list[str]] = None
    receivers: Optional[list[str]] = None
    stop: Optional[Time] = None
    # incast
    client: Optional[str] = None
    servers: Optional[list[str]] = None
    n: Optional[Int] = None
    total: Optional[SizeQ] = None
    rounds: Optional[Int] = None
    gap: Optional[Time] = None
    # trace
    file: Optional[str] = None
    arrivals: Annotated[Optional[list], WrapValidator(_trace_as_is)] = None
    # permutation (and senders, receivers)
    size: Optional[SizeQ] = None
    # all
    start: Time = 0.0
    protocol: Optional[str] = None


class Workload(_KeepsDelayedAckOff, _with_protocol_params(_WorkloadHead)):
    """Generated flows ([[workloads]]); see crates/dcsim-core/src/workload.rs.

    * ``poisson``: flows arrive with exponential gaps at an offered ``load`` (0 < load < 1) of the
      capacity of ``link`` ("from->to"; default: the bottleneck), sizes from ``sizes``, a source
      uniform among ``senders`` and a destination among ``receivers`` (defaults: dumbbell s0.. to
      r; tree: the other hosts to the bottleneck hosts), in [``start``, ``stop``). ``link =
      "hosts"`` (the default on a leaf_spine or fat_tree) refers the load to the senders' host
      links: arrivals at rate load x (summed host-link rate of the senders) / (8 E[S]), so each
      host link carries ``load`` on average; there the senders and receivers default to every host
      (all-to-all).
    * ``incast``: a ``client`` requests ``total / n`` bytes from each of ``n`` servers (``servers``,
      default: the first n hosts not in a [[flows]] entry and not the client) at once, ``rounds``
      times; a round starts ``gap`` after the previous round's last response completed.
    * ``trace``: flows replayed from a list, each at ``start`` + its own start, between its hosts,
      with its size: ``file = "flows.csv"`` (lines "start src dst size [protocol]", relative to the scenario
      file, where plain numbers are seconds and bytes; read when the scenario is loaded and kept as
      its ``arrivals``) or ``arrivals = [{start = "10us", src = "h0", dst = "h5", size = "64KB"},
      ...]``. Flows due at or after the end of the run do not start. A flow may also name its
      ``protocol`` (a fifth field of the file's line): its class is then drawn only among the
      workload's classes of that protocol (none drawn where one class has it), what
      :meth:`Result.write_trace` writes for a mix, so that its replay is exact.
    * ``permutation``: at ``start``, every one of ``senders`` starts one flow to its partner under a
      random permutation drawn from the run's seed: a bijection onto ``receivers`` (as many hosts;
      senders default to every host, receivers to the senders) that pairs no host with itself. A
      flow carries ``size`` bytes or, without one, is long-lived. With a ``mix``, each class gets
      its share of the senders exactly, the senders taken in a seeded random order. Every sender's
      host link carries one flow out and every receiver's one flow in, so lost throughput is flows
      hashed onto the same fabric link: the classic ECMP test (Hedera, Al-Fares et al. 2010;
      htsim's permutation matrix, Raiciu et al. 2011).

    The transport: ``protocol`` (with the options of a [[flows]] group), or a ``mix`` of classes
    ``[{protocol = "dctcp", share = 0.5}, {protocol = "newreno", ecn = true, share = 0.5}]``.
    """

    min_cwnd: Optional[WindowQ] = None
    init_cwnd: Optional[WindowQ] = None
    min_rto: Optional[Time] = None
    delayed_ack: Optional[DelayedAck] = None
    profile: Optional[str] = None
    ecn_response: Optional[str] = None
    cwr_freeze: Optional[Bool] = None
    sack: Optional[Bool] = None
    abc: Optional[Bool] = None
    ce_quickack: Optional[Bool] = None
    dctcp_fixed_point: Optional[Bool] = None
    ect_acks: Optional[Bool] = None
    mix: Optional[list[FlowClass]] = None

    _POISSON: ClassVar[tuple[str, ...]] = ("load", "link", "sizes", "senders", "receivers", "stop")
    _INCAST: ClassVar[tuple[str, ...]] = ("client", "servers", "n", "total", "rounds", "gap")
    _TRACE: ClassVar[tuple[str, ...]] = ("file", "arrivals")
    _PERMUTATION: ClassVar[tuple[str, ...]] = ("senders", "receivers", "size")
    #: A trace read from a file: (file, line of each arrival), for errors found later (hosts).
    _trace_lines: Optional[tuple[str, list[int]]] = PrivateAttr(default=None)
    _TRANSPORT: ClassVar[tuple[str, ...]] = FlowClass._TRANSPORT

    @field_validator("delayed_ack", mode="before")
    @classmethod
    def _delayed_ack_form(cls, v: Any) -> Any:
        return _delayed_ack_form(v)

    @model_validator(mode="after")
    def _check(self) -> "Workload":
        if self.kind not in WORKLOAD_KINDS:
            raise _err("kind", _one_of(self.kind, WORKLOAD_KINDS))
        own = {"poisson": self._POISSON, "incast": self._INCAST, "trace": self._TRACE,
               "permutation": self._PERMUTATION}[self.kind]
        for name in self._POISSON + self._INCAST + self._TRACE + self._PERMUTATION:
            if name not in own and getattr(self, name) is not None:
                raise _err(name, f"not a parameter of a {self.kind} workload")
        if not self.start >= 0:
            raise _err("start", f"{time_str(self.start)} is negative; allowed >= 0 s")
        if self.kind == "poisson":
            if self.load is None:
                raise _err("load", "required: the offered load, a fraction of the link's capacity, e.g. load = 0.2")
            if not 0 < self.load < 1:
                raise _err("load", f"{self.load} is out of range; allowed 0 < load < 1 (a fraction of the link's capacity)")
            if self.sizes is None:
                raise _err("sizes", 'required, e.g. sizes = { kind = "uniform", min = "10KB", max = "50KB" }')
            if self.stop is not None and not self.stop > self.start:
                raise _err("stop", f"{time_str(self.stop)} is not after start = {time_str(self.start)}")
            if self.link is not None and self.link != HOST_LINKS and (
                    self.link.count("->") != 1 or not all(x.strip() for x in self.link.split("->"))):
                raise _err("link", f"{self.link!r} is not a link; write \"from->to\", e.g. \"sw->r\", or \"{HOST_LINKS}\" "
                                   "(the senders' host links)")
        elif self.kind == "trace":
            self._check_trace()
        elif self.kind == "permutation":
            if self.size is not None:
                _check_flow_size(self.size)
        else:
            if self.n is None and self.servers is None:
                raise _err("n", "required for an incast: the number of servers (or give servers = [...])")
            if self.n is not None and self.n < 1:
                raise _err("n", f"{self.n} servers; allowed n >= 1")
            if self.servers is not None:
                if not self.servers:
                    raise _err("servers", "empty; allowed at least one server host")
                if self.n is not None and self.n != len(self.servers):
                    raise _err("n", f"{self.n} does not match the {len(self.servers)} servers listed")
                self._fill("n", len(self.servers))
            if self.client is None:
                raise _err("client", "required for an incast: the host that requests the data")
            if self.total is None:
                raise _err("total", 'required for an incast: the bytes of one round, e.g. total = "1MB"')
            if self.total.unit == "B" and not float(self.total.value).is_integer():
                raise _err("total", f"{size_str(self.total)} is not a whole number of bytes")
            if self.rounds is None:
                self._fill("rounds", 1)
            if not 1 <= self.rounds <= LIMITS["max_count"]:
                raise _err("rounds", f"{self.rounds} is out of range; allowed 1 .. {LIMITS['max_count']}")
            if self.gap is None:
                self._fill("gap", 0.0)
            if not self.gap >= 0:
                raise _err("gap", f"{time_str(self.gap)} is negative; allowed >= 0 s")
        if self.protocol is not None and self.mix is not None:
            raise _err("protocol", "give a protocol or a mix of protocols with shares, not both")
        if self.protocol is None and self.mix is None:
            raise _err("protocol", f"give a protocol ({', '.join(PROTOCOLS)}), or a mix of protocols with shares")
        if self.mix is not None:
            for name in self._TRANSPORT:
                if getattr(self, name) is not None:
                    raise _err(name, "with a mix, give the options in each mix entry")
            total = sum(c.share for c in self.mix)
            if not self.mix:
                raise _err("mix", "empty; give at least one {protocol, share}")
            if abs(total - 1) > 1e-6:
                raise _err("mix", f"the shares add up to {total:g}; they must add up to 1")
        else:
            try:
                FlowClass(protocol=self.protocol, share=1.0, **self._transport_options())
            except ValidationError as e:
                raise _reraise_nested(e) from None
        if self.kind == "trace":
            self._check_trace_protocols(self.arrivals)
        return self

    def _check_trace_protocols(self, flows: "TraceFlows") -> None:
        """Each protocol the trace's flows name is some class's of this workload (a flow's class is
        drawn among its protocol's classes: none drawn where one class has it). Raises a
        named-field error, naming the file's line or the inline flow, for one that is none's."""
        protocols = [c.protocol for c in self.classes()]
        for p, name in enumerate(flows.protocols):
            if name in protocols:
                continue
            j = flows.proto.index(p)  # its first flow
            why = (f"{name!r} is not a protocol of this workload (" + ", ".join(dict.fromkeys(protocols))
                   + "); give the workload a mix with a class of each protocol the trace names")
            if self._trace_lines is not None:
                file, lines = self._trace_lines
                raise _err("file", f"{file} line {lines[j]}: protocol: {why}")
            raise _err(f"arrivals[{j}].protocol", why)

    def _check_trace(self) -> None:
        """A trace's flows: from ``file`` (then kept as ``arrivals``, so that the scenario written
        with a run is self-contained) or ``arrivals``; each normalised (start in seconds, size in
        payload bytes or packets)."""
        if (self.file is None) == (self.arrivals is None):
            raise _err("file", 'give the trace as file = "flows.csv" (lines "start src dst size [protocol]") or arrivals = '
                               '[{start, src, dst, size}, ...], one of the two')
        if self.file is not None:
            try:
                flows, lines = read_trace(self.file, with_lines=True)
            except ValueError as e:
                raise _err("file", str(e)) from None
            self._trace_lines = (self.file, lines)
            self._fill("file", None)
        elif isinstance(self.arrivals, TraceFlows):
            flows = self.arrivals  # a validated scenario's, handed on by Scenario.replace (read-only)
        else:
            if not self.arrivals:
                raise _err("arrivals", "empty; give at least one {start, src, dst, size}")
            if len(self.arrivals) > MAX_TRACE_FLOWS:
                raise _err("arrivals", f"{len(self.arrivals)} flows; allowed at most {MAX_TRACE_FLOWS}")
            flows = TraceFlows()
            for j, a in enumerate(self.arrivals):
                keys = {"start", "src", "dst", "size"}
                if not isinstance(a, dict):
                    raise _err(f"arrivals[{j}]", f"{a!r} is not a table {{start, src, dst, size}}")
                if not keys <= set(a) <= keys | {"protocol"}:
                    missing, extra = sorted(keys - set(a)), sorted(set(a) - keys - {"protocol"})
                    raise _err(f"arrivals[{j}]", "; ".join([f"missing {', '.join(missing)}"] * bool(missing)
                                                           + [f"unknown {', '.join(extra)}"] * bool(extra))
                               + "; a flow of a trace is {start, src, dst, size} and optionally its protocol")
                try:
                    flows.add(_arrival(a["start"], a["src"], a["dst"], a["size"], a.get("protocol")))
                except ValueError as e:
                    raise _err(f"arrivals[{j}].{str(e).split(':', 1)[0]}", str(e).split(": ", 1)[1]) from None
        # written back with units, as given ("100us", "64KB") or exactly ("0.0001s", "64000B")
        self._fill("arrivals", flows, given=True)

    @field_serializer("arrivals")
    def _arrivals_written(self, v: Any) -> Any:
        """A trace's flows as written, a list of tables ``{start, src, dst, size}`` (and
        ``protocol`` where given) with units."""
        return [dict(zip(v.FIELDS, row)) for row in v.rows()] if isinstance(v, TraceFlows) else v

    def _transport_options(self) -> dict:
        """The protocol options given at the workload level, as written (units as strings)."""
        return _transport_as_written(self)

    def classes(self) -> list[FlowClass]:
        if self.mix is not None:
            return list(self.mix)
        return [FlowClass(protocol=self.protocol, share=1.0, **self._transport_options())]

    def total_bytes(self, packet_bytes: int, header_bytes: int) -> int:
        return payload_bytes(self.total, packet_bytes, header_bytes)

    def to_engine(self, packet_bytes: int, header_bytes: int) -> dict:
        classes = [c.to_engine() for c in self.classes()]
        if self.kind == "poisson":
            link = None
            if self.link != HOST_LINKS:
                a, b = (x.strip() for x in self.link.split("->"))
                link = {"from": a, "to": b}
            return {
                "kind": "poisson",
                "load": float(self.load),
                "link": link,
                "sizes": self.sizes.to_engine(packet_bytes, header_bytes),
                "senders": list(self.senders),
                "receivers": list(self.receivers),
                "classes": classes,
                "start_ps": to_ps(self.start),
                "stop_ps": None if self.stop is None else to_ps(self.stop),
            }
        if self.kind == "permutation":
            return {
                "kind": "permutation",
                "senders": list(self.senders),
                "receivers": list(self.receivers),
                "size_bytes": None if self.size is None else payload_bytes(self.size, packet_bytes, header_bytes),
                "start_ps": to_ps(self.start),
                "classes": classes,
            }
        if self.kind == "trace":
            return {
                "kind": "trace",
                "arrivals": self.arrivals.to_engine(self.start, packet_bytes - header_bytes),
                "classes": classes,
                # its arrival window's start (window_s; the times above include it), only where
                # given: the engine spec of a trace from 0 is as it was (a sweep's run keys)
                **({"start_ps": to_ps(self.start)} if self.start else {}),
            }
        if self.kind != "incast":  # a kind without its table here: never a silent incast
            raise RuntimeError(f"dcsim: workload kind {self.kind!r} has no engine table in Workload.to_engine")
        return {
            "kind": "incast",
            "client": self.client,
            "servers": list(self.servers),
            "total_bytes": self.total_bytes(packet_bytes, header_bytes),
            "rounds": int(self.rounds),
            "gap_ps": to_ps(self.gap),
            "start_ps": to_ps(self.start),
            "classes": classes,
        }

    def describe(self) -> str:
        protos = "/".join(f"{c.protocol} {c.share:g}" if self.mix else c.protocol for c in self.classes())
        if self.kind == "poisson":
            of = "the senders' host links" if self.link == HOST_LINKS else self.link
            return f"poisson {self.load:g} of {of} ({self.sizes.kind} sizes, {protos})"
        if self.kind == "trace":
            return f"trace of {count_shown(len(self.arrivals), 'flow')} ({protos})"
        if self.kind == "permutation":
            each = "long-lived" if self.size is None else f"{size_shown(self.size)} each"
            return f"permutation of {count_shown(len(self.senders), 'host')}, one flow each ({each}, {protos})"
        return (f"incast {count_shown(self.n, 'server')} x {count_shown(self.rounds, 'round')} of {size_shown(self.total)} "
                f"to {self.client} ({protos})")



class Run(_Model):
    """``[run]``: how long, the seed, and ``partitions``: the number of parts a fat_tree (by pods) or
    leaf_spine (by leaves) is split into, each simulated by its own world on its own core (the
    engine's ``sim/partition.rs``). Results depend on ``partitions`` like on the seed, never on the
    number of cores; they are the one-world run's physics (tests/test_fabric.py), not bit for bit.

    ``max_wall``: the most wall-clock time the engine may take (none by default); a run that takes
    longer stops with a :class:`RunLimitError` naming it, within ~0.1 s of engine time of the bound,
    whose ``partial`` is the Result of the time simulated (past the warm-up; see
    :func:`dcsim.simulate`). It is not part of the engine spec: a run that finishes gives the same results with or without."""

    duration: Time
    warmup: Time = 0.0
    seed: Int = 1
    partitions: Int = 1
    max_wall: Optional[Time] = None

    @model_validator(mode="after")
    def _check(self) -> "Run":
        if not (0 < self.duration <= MAX_DURATION_S) or to_ps(self.duration) < 1:
            raise _err("duration", f"{time_str(self.duration)} is out of range; allowed 1 ps .. {MAX_DURATION_S:g} s")
        if not self.warmup >= 0:
            raise _err("warmup", f"{time_str(self.warmup)} is negative; allowed 0 <= warmup < run.duration")
        if not to_ps(self.warmup) < to_ps(self.duration):  # as the engine sees them: whole picoseconds
            rounded = f" (in whole picoseconds: {to_ps(self.warmup)} and {to_ps(self.duration)} ps)" if \
                self.warmup < self.duration else ""
            raise _err(
                "warmup",
                f"{time_str(self.warmup)} is not shorter than run.duration = {time_str(self.duration)}{rounded}; "
                f"allowed 0 <= warmup < duration",
            )
        if not (0 <= self.seed < 2**64):
            raise _err("seed", f"{self.seed} is out of range; allowed 0 .. 2^64-1")
        if not (1 <= self.partitions <= MAX_PARTITIONS):
            raise _err("partitions", f"{self.partitions} is out of range; allowed 1 .. {MAX_PARTITIONS}")
        if self.max_wall is not None and not self.max_wall > 0:
            raise _err("max_wall", f"{time_str(self.max_wall)} is not positive; allowed > 0 s (wall-clock), e.g. \"600s\"")
        return self


def _refuse_trace_arrivals(listed: list[int], budget: float) -> None:
    """A ScenarioError if the flows traces list (``listed``: per workload, 0 for other kinds) need
    more than ``budget`` bytes (metrics.max_memory) by themselves: each costs the engine's
    ``trace_arrival_bytes`` at the run's peak whether it starts or not."""
    per = ENGINE_DEFAULTS["trace_arrival_bytes"]
    if sum(listed) * per <= budget:
        return
    i = max(range(len(listed)), key=listed.__getitem__)
    raise ScenarioError(f"workloads[{i}]: the traces list {sum(listed):,} flows, which need at least "
                        f"{sum(listed) * per / 1e6:,.1f} MB at the run's peak ({per} B each, whether they start or "
                        f"not), more than metrics.max_memory = {budget / 1e6:,.1f} MB; allowed at most "
                        f"{int(budget // per):,} listed trace flows with this budget: give the trace fewer flows, "
                        "or raise metrics.max_memory")


def _refuse_inline_traces(data: dict) -> None:
    """Inline trace ``arrivals`` that metrics.max_memory cannot hold, refused by their count
    before each is validated (1.6 M of them had taken ~35 s and 1.7 GB to be told so: a review);
    the same refusal as :meth:`Scenario._check_trace_arrival_count`. A max_memory that is not
    valid is left to its field's own error."""
    wl = data.get("workloads")
    if not isinstance(wl, list):
        return
    listed = [len(w["arrivals"]) if isinstance(w, dict) and w.get("kind") == "trace"
              and isinstance(w.get("arrivals"), list) else 0 for w in wl]
    if not any(listed):
        return
    metrics = data.get("metrics")
    given = metrics.get("max_memory") if isinstance(metrics, dict) else None
    try:
        budget = (Metrics.model_validate({"max_memory": given}) if given is not None else Metrics()).max_memory.value
    except (ValidationError, ScenarioError):
        return
    _refuse_trace_arrivals(listed, budget)


class Metrics(_Model):
    """What the engine records; every series is sampled at a fixed interval (bounded memory)."""

    #: Sampling intervals: a time, or "auto" (the default). "auto" samples at the preferred
    #: interval (queue 10us, throughput 1ms, window a tenth of the smallest base RTT, so that a
    #: zoom on a few periods of the oscillation is not a staircase, but at least 1us per traced
    #: listed flow: see WINDOW_ROWS_PER_S) when the run fits in
    #: max_memory, and else at the shortest longer interval that fits (the engine's fit_sampling:
    #: the memory left beside the world and the chosen intervals is shared out, smallest need
    #: first), never coarser than 1 000 samples over the run. An interval written out is used as
    #: is, and a run it cannot fit is refused naming it.
    queue_interval: Any = "auto"
    throughput_interval: Any = "auto"
    cwnd_interval: Any = "auto"

    @field_validator("queue_interval", "throughput_interval", "cwnd_interval", mode="before")
    @classmethod
    def _interval_form(cls, v: Any) -> Any:
        return v if v == "auto" else _time_v(v)

    @field_serializer("queue_interval", "throughput_interval", "cwnd_interval")
    def _interval_out(self, v: Any) -> str:
        return v if v == "auto" else time_str(v)

    #: Ports whose queue is sampled ("A->B"), used as listed. Default (None): the network's
    #: (:meth:`Network.default_monitored_ports`), or the first of them whose series fit max_memory
    #: at the coarsest sampling when all of them would not (with a warning; the engine's
    #: fit_sampling, metrics.monitor_first in the engine spec).
    monitor: Optional[list[str]] = None
    #: Flows whose goodput and window are traced over time: the first k listed flows (an integer),
    #: every listed flow ("all"), or a list of flow ids as the flows table numbers them: the listed
    #: [[flows]] first, then a workload's generated flows in the order they start (traced from their
    #: start; the memory plan counts each for the whole run). Every flow gets its summary row in
    #: `flows` either way; bounding the traces keeps a run with thousands of flows within memory at
    #: the default sampling.
    trace_flows: Any = DEFAULT_TRACE_FLOWS

    @field_validator("trace_flows", mode="before")
    @classmethod
    def _trace_flows_form(cls, v: Any) -> Any:
        ok = (isinstance(v, int) and not isinstance(v, bool)) or v == "all" or (
            isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v))
        if not ok:
            raise ValueError(f"{shown(v)}: give a number of listed flows (the first k), a list of flow ids, or \"all\"")
        return v
    #: Memory the run may use: the world, the generated flows' results (1.9 KB a flow, measured)
    #: and the sampled series at their peak cost (the engine's columns, shared with pandas, and the
    #: front end's transient copies: 160 B a row, measured), see check_memory in
    #: crates/dcsim-core/src/sim.rs. A run that would need more is refused before it starts, with
    #: the sampling interval to lengthen (or naming this field). The packets the queues hold are
    #: checked as the run goes: past what this leaves them (at least what the links hold in flight
    #: and 64 packets a port), the run stops with RunLimitError, keeping the Result of the time
    #: simulated as its ``partial``. Allowed 1MB .. 1TB (LIMITS
    #: min/max_memory_bytes).
    max_memory: BytesQ = Size(float(ENGINE_DEFAULTS["max_memory_bytes"]), "B")
    #: Flow-size bucket edges for the FCT summary (per protocol and bucket): (0, e1], (e1, e2], ...
    fct_buckets: list[BytesQ] = Field(default_factory=lambda: [Size(v, "B") for v in (10e3, 100e3, 1e6, 10e6)])

    @model_validator(mode="after")
    def _check(self) -> "Metrics":
        for name in ("queue_interval", "throughput_interval", "cwnd_interval"):
            v = getattr(self, name)
            if v == "auto":
                continue
            if not (v > 0 and to_ps(v) >= 1):
                raise _err(name, f"{time_str(v)} is not positive; allowed >= 1 ps")
        if self.max_memory.unit != "B" or not self.max_memory.value >= 1:
            raise _err("max_memory", f"{size_str(self.max_memory)}: give a positive size in bytes, e.g. \"1GB\"; "
                                     f"allowed 1MB .. 1TB")
        if not LIMITS["min_memory_bytes"] <= self.max_memory.value <= LIMITS["max_memory_bytes"]:
            raise _err("max_memory", f"{size_str(self.max_memory)} is out of range; allowed 1MB .. 1TB")
        tf = self.trace_flows
        if isinstance(tf, str) and tf != "all":
            raise _err("trace_flows", f"{shown(tf)}: give a number of listed flows (the first k), a list of flow ids, or \"all\"")
        if isinstance(tf, int) and not 0 <= tf < 2**64:
            raise _err("trace_flows", f"{_int_str(tf)} is out of range; allowed 0 .. 2^64-1 (the first k flows)")
        if isinstance(tf, list):
            listed: set[int] = set()
            for i, x in enumerate(tf):
                if not 0 <= x < 2**64:
                    raise _err(f"trace_flows[{i}]", f"{_int_str(x)} is not a flow id; allowed 0 .. 2^64-1 (the ids of "
                                                    f"the flows table: the listed flows, then the generated ones)")
                if x in listed:
                    raise _err(f"trace_flows[{i}]", f"flow {x} is listed twice")
                listed.add(x)
        for i, e in enumerate(self.fct_buckets):
            if e.unit != "B" or not e.value > 0:
                raise _err(f"fct_buckets[{i}]", f"{size_str(e)}: give a positive size in bytes, e.g. \"100KB\"")
            if i and not e.value > self.fct_buckets[i - 1].value:
                raise _err(f"fct_buckets[{i}]", f"{size_str(e)} is not larger than the edge before it; edges must increase")
        seen: dict[tuple[str, str], int] = {}
        for i, m in enumerate(self.monitor or []):
            if not isinstance(m, str) or m.count("->") != 1 or not all(p.strip() for p in m.split("->")):
                raise _err(f"monitor[{i}]", f"{m!r} is not a port; write \"from->to\", e.g. \"sw->r\"")
            key = tuple(p.strip() for p in m.split("->"))
            if key in seen:
                raise _err(f"monitor[{i}]", f"{m!r} is already monitored (monitor[{seen[key]}]); list each port once")
            seen[key] = i
        return self

    def preferred_intervals_s(self, rtt_s: float, traced_listed: int = 0, duration_s: float = math.inf) -> dict[str, float]:
        """Each sampling interval as given, or for "auto" the preferred one, s (see above): the
        window's is a tenth of `rtt_s`, lengthened to `traced_listed` / WINDOW_ROWS_PER_S (the
        number of listed flows it traces) but not past 1 000 samples over `duration_s`."""
        d = ENGINE_DEFAULTS
        by_rows = min(traced_listed / WINDOW_ROWS_PER_S, duration_s / 1000.0)
        pref = {"queue_interval": d["queue_interval_ps"] / 1e12, "throughput_interval": d["throughput_interval_ps"] / 1e12,
                "cwnd_interval": math.ceil(max(rtt_s / 10.0, by_rows, 1e-9) * 1e9) / 1e9}  # whole ns
        return {k: pref[k] if getattr(self, k) == "auto" else float(getattr(self, k)) for k in pref}

    def auto_fields(self) -> list[str]:
        """The engine fields of the intervals left "auto" (e.g. "metrics.queue_interval")."""
        return [f"metrics.{k}" for k in ("queue_interval", "throughput_interval", "cwnd_interval")
                if getattr(self, k) == "auto"]

    def traced_flows(self, n_flows: int) -> Optional[list[int]]:
        """The engine's trace_flows for a scenario of ``n_flows`` flows (None: all)."""
        tf = self.trace_flows
        if tf == "all" or (isinstance(tf, int) and tf >= n_flows):
            return None
        if isinstance(tf, int):
            return list(range(tf))
        return list(tf)

    def ports(self) -> Optional[list[tuple[str, str]]]:
        if self.monitor is None:
            return None
        return [tuple(p.strip() for p in m.split("->")) for m in self.monitor]  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# Converged Ethernet (L2): rate sources, congestion points, QCN / DSM / SMCC


#: The L2 schemes as the engine describes them (crates/dcsim-core/src/l2/mod.rs, schemes_table): for
#: each, the parameter naming its target queue, and its parameters (name, engine field, unit,
#: default). A scheme added to the engine needs no change here.
L2_SCHEME_TABLE: dict[str, dict] = {s["name"]: s for s in ENGINE_DEFAULTS["l2_schemes"]}
L2_SCHEMES = tuple(L2_SCHEME_TABLE)
#: Each scheme's parameters (names of the papers and of 802.1Qau) -> the engine's field.
L2_PARAMS: dict[str, dict[str, str]] = {
    n: {p["name"]: p["field"] for p in s["params"]} for n, s in L2_SCHEME_TABLE.items()}
#: Engine field of an L2 parameter -> the scenario's name of it ("h_a_hz" -> "Ha"): the engine's
#: errors name its fields (l2.scheme.h_a_hz), the user wrote l2.Ha.
L2_FIELD_NAMES: dict[str, str] = {f: n for ps in L2_PARAMS.values() for n, f in ps.items()}
#: Each parameter's unit (one per name across the schemes).
L2_UNITS: dict[str, str] = _param_units(L2_SCHEME_TABLE, "L2")
#: Units of L2 parameters the engine's scheme check ranges at both ends (see ``L2._check``).
L2_ENGINE_RANGED = frozenset({"weight", "number", "per_second", "hz"})


def _latency_v(v: Any) -> Any:
    """The feedback generation latency: one time, one per source, or {lo, hi} (uniform per frame)."""
    if isinstance(v, dict):
        unknown = set(v) - {"lo", "hi"}
        if unknown or not {"lo", "hi"} <= set(v):
            raise ValueError("a range is written {lo = \"400us\", hi = \"800us\"}")
        return {"lo": _time_v(v["lo"]), "hi": _time_v(v["hi"])}
    if isinstance(v, list):
        return [_time_v(x) for x in v]
    return _time_v(v)


def _latency_s(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: time_str(x) for k, x in v.items()}
    if isinstance(v, list):
        return [time_str(x) for x in v]
    return time_str(v)


Latency = Annotated[Any, _Plain(_latency_v, _latency_s)]


class L2Source(_Model):
    """A rate-based source ``src -> dst`` (or ``count`` identical ones): paced frames at the rate its
    reaction point allows, starting at ``initial_rate`` (default: its host link's rate; the DSM paper
    starts every flow at the bottleneck capacity, the same where the host links run at the
    bottleneck's rate, as in its experiments) at ``start``, until ``stop`` or, with ``size``, until
    it sent that many bytes."""

    src: str
    dst: str
    start: Time = 0.0
    stop: Optional[Time] = None
    size: Optional[SizeQ] = None
    initial_rate: Optional[Rate] = None
    count: Int = 1


class L2Poisson(_Model):
    """Short flows ``src -> dst`` arriving as a Poisson process of ``rate`` arrivals per second
    between ``start`` and ``stop``, each a finite rate source of an exponentially distributed size
    with mean ``mean_size`` starting at line rate (the DSM paper's Fig. 10 mixed flows)."""

    src: str
    dst: str
    rate: Float
    mean_size: SizeQ
    start: Time = 0.0
    stop: Optional[Time] = None


class _L2Base(_Model):
    """Converged-Ethernet congestion control (IEEE 802.1Qau framework, DSM paper Section II.A):
    congestion points on switch egress ports (``cps``, default the monitored switch ports) sample
    arriving frames and send feedback frames back to each sampled frame's source over the links,
    after an extra ``feedback_latency`` (one time, one per source, or {lo, hi} drawn per frame; with
    one per source, Poisson short flows take the latency of the first listed source on their host);
    the sources' reaction points set their rates. ``scheme``: ``qcn`` (802.1Qau: qeq, w, gd,
    bc_limit, timer, fr_th, r_ai, r_hai, min_rate), ``dsm`` (DSM paper eqs. 22-26: q0, p, T, m, Ha,
    Hb, Hc, omega, min_rate; ``periodic = true`` samples every round(1/p)-th frame, the paper's
    deterministic T, instead of each frame with probability p) or ``smcc`` (DSM with m = 0 and its
    own gains a, b, c in 1/s; a reconstruction, see crates/dcsim-core/src/l2/smcc.rs). Unset parameters take the papers'
    defaults (DSM: q0 = 64KB, p = 0.01, T = 80us, m = 4, Ha = Hb = Hc = 20kHz, omega = 5). The
    schemes and their parameters (with units and defaults) come from the engine: ``L2_SCHEME_TABLE``.
    Frames are ``frame`` bytes (1 KB = 1000 B, the paper's T = 80 us is 100 such frames at
    10 Gbps); feedback frames ``feedback_frame`` bytes."""

    scheme: str
    # then each scheme's parameters, from the engine's table, and the fields of every scheme
    # (see L2 below)

    _scheme_ok = _one_of_validator("scheme", L2_SCHEMES)

    @model_validator(mode="after")
    def _check(self) -> "L2":
        if self.scheme not in L2_SCHEMES:
            raise _err("scheme", _one_of(self.scheme, L2_SCHEMES))
        mine = L2_PARAMS[self.scheme]
        for other in {n for ps in L2_PARAMS.values() for n in ps} - set(mine):
            if getattr(self, other) is not None:
                raise _err(other, f"not a parameter of {self.scheme}; {self.scheme} takes {', '.join(mine)}")
        # The plain numbers (gains, weights, rates in 1/s or Hz) are range-checked by the engine
        # first, whose messages give both ends of each range (ours knew only the lower: "l2.w: -1
        # is out of range; allowed >= 0", where w <= 1e6: a review); the rest here first, as their
        # values must convert for the engine.
        given = [name for name in mine if getattr(self, name) is not None]
        for name in given:
            if name in L2_COUNT_RANGES:
                lo, hi, what = L2_COUNT_RANGES[name]
                if not lo <= getattr(self, name) <= hi:
                    raise _err(name, f"{getattr(self, name)} is out of range; allowed {lo} <= {name} <= {hi}{what}")
        for name in given:
            if L2_UNITS[name] not in L2_ENGINE_RANGED:
                _check_param(name, L2_UNITS[name], getattr(self, name))
        # The engine's own range checks of the scheme (L2Spec::validate: Ha in (0, 1e15), m <= 10^5,
        # ...), here rather than first at run time (a review: Ha = 1e300 passed Scenario.from_dict).
        refused = _refusal(_engine_answer("l2_check", json.dumps(self.scheme_engine(), sort_keys=True)))
        if refused is not None:
            field, message = refused
            by_field = {p["field"]: p["name"] for p in L2_SCHEME_TABLE[self.scheme]["params"]}
            raise _err(by_field.get(field.lstrip("."), field.lstrip(".") or "scheme"), message)
        for name in given:
            if L2_UNITS[name] in L2_ENGINE_RANGED:
                _check_param(name, L2_UNITS[name], getattr(self, name))  # a bound the engine lacked
        if not self.rate_interval > 0:
            raise _err("rate_interval", f"{time_str(self.rate_interval)} is not positive; allowed > 0 s")
        for name in ("frame", "feedback_frame"):
            v = getattr(self, name)
            lo = 64 if name == "frame" else 1
            if v.unit == "pkt" or not (lo <= v.value <= LIMITS["max_packet_bytes"]) or not float(v.value).is_integer():
                raise _err(name, f"{size_str(v)} is out of range; allowed a whole number of bytes "
                                 f"{lo}B .. {LIMITS['max_packet_bytes']}B")
        lat = self.feedback_latency
        if isinstance(lat, dict) and lat["lo"] > lat["hi"]:
            raise _err("feedback_latency", f"lo = {time_str(lat['lo'])} is larger than hi = {time_str(lat['hi'])}; "
                                           "allowed lo <= hi")
        for v in (lat["lo"], lat["hi"]) if isinstance(lat, dict) else (lat if isinstance(lat, list) else [lat]):
            if v is not None and v < 0:
                raise _err("feedback_latency", f"{time_str(v)} is negative; allowed >= 0 s")
        if not self.sources and not self.poisson:
            raise _err("sources", "no sources: give at least one [[l2.sources]] or [[l2.poisson]] entry")
        for i, w in enumerate(self.poisson):
            if not (0 < w.rate <= 1e9):
                raise _err(f"poisson[{i}].rate", f"{w.rate!r} arrivals/s is out of range; allowed 0 < rate <= 1e9")
            if w.mean_size.unit == "pkt" or not w.mean_size.value >= 1 or not float(w.mean_size.value).is_integer():
                raise _err(f"poisson[{i}].mean_size", f"{size_str(w.mean_size)}: give a whole number of bytes, e.g. "
                                                      "\"1.25MB\" or \"10Mb\"")
            if w.start < 0:
                raise _err(f"poisson[{i}].start", f"{time_str(w.start)} is negative; allowed >= 0 s")
            if w.stop is not None and not w.stop > w.start:
                raise _err(f"poisson[{i}].stop", f"{time_str(w.stop)} is not later than start = {time_str(w.start)}")
        n = sum(src.count for src in self.sources)
        if isinstance(lat, list) and len(lat) != n:
            raise _err("feedback_latency", f"{len(lat)} values for {n} sources; give one per source, one time, "
                                           "or {lo, hi}")
        if isinstance(lat, list):
            # A short flow takes the latency of the first listed source on its own host.
            listed = {src.src for src in self.sources}
            for i, w in enumerate(self.poisson):
                if w.src not in listed:
                    raise _err(f"poisson[{i}].src", f"{w.src!r} has no listed source, so a per-source feedback_latency "
                                                    f"gives its short flows none; list a source on {w.src!r} (its short "
                                                    "flows take that source's latency) or give one latency or {lo, hi}")
        for i, src in enumerate(self.sources):
            if not 1 <= src.count <= LIMITS["max_count"]:
                raise _err(f"sources[{i}].count", f"{_int_str(src.count)} is out of range; allowed 1 .. {LIMITS['max_count']}")
            if src.start < 0:
                raise _err(f"sources[{i}].start", f"{time_str(src.start)} is negative; allowed >= 0 s")
            if src.initial_rate is not None:
                _positive_rate(f"sources[{i}].initial_rate", src.initial_rate)
                floor = self.min_rate if self.min_rate is not None else self.defaults()["min_rate"]
                if src.initial_rate < floor:  # the RP would start it at min_rate instead
                    raise _err(f"sources[{i}].initial_rate", f"{rate_str(src.initial_rate)} is below min_rate = "
                                                            f"{rate_str(floor)}; allowed min_rate .. the host's line rate")
            if src.size is not None and (src.size.unit == "pkt" or not src.size.value >= 1
                                         or not float(src.size.value).is_integer()):
                raise _err(f"sources[{i}].size", f"{size_str(src.size)}: give a whole number of bytes >= 1B, e.g. \"10MB\"")
            if src.stop is not None and not src.stop > src.start:
                raise _err(f"sources[{i}].stop", f"{time_str(src.stop)} is not later than start = {time_str(src.start)}")
        return self

    def target_bytes(self) -> tuple[str, float]:
        """The queue the CPs aim at, (parameter name, bytes), e.g. ("q0", 64000.0), with the
        engine's default."""
        name = L2_SCHEME_TABLE[self.scheme]["target"]
        v = getattr(self, name)
        return name, v.value if v is not None else self.defaults()[name]

    def defaults(self) -> dict[str, Any]:
        """The engine's defaults of this scheme's parameters, by name (in the engine's units)."""
        return {p["name"]: p["default"] for p in L2_SCHEME_TABLE[self.scheme]["params"]}

    def scheme_engine(self) -> dict:
        out: dict[str, Any] = {"kind": self.scheme}
        for name, key in L2_PARAMS[self.scheme].items():
            v = getattr(self, name)
            if v is not None:
                out[key] = _param_engine(L2_UNITS[name], v)
        return out

    def to_engine(self) -> dict:
        lat = self.feedback_latency
        if lat is None:
            latency = {"kind": "fixed", "ps": 0}
        elif isinstance(lat, dict):
            latency = {"kind": "uniform", "lo_ps": to_ps(lat["lo"]), "hi_ps": to_ps(lat["hi"])}
        elif isinstance(lat, list):
            latency = {"kind": "per_source", "ps": [to_ps(x) for x in lat]}
        else:
            latency = {"kind": "fixed", "ps": to_ps(lat)}
        return {
            "scheme": self.scheme_engine(),
            "frame_bytes": int(self.frame.value),
            "feedback_bytes": int(self.feedback_frame.value),
            "cps": None if self.cps is None else [
                {"from": a.strip(), "to": b.strip()} for a, b in (c.split("->", 1) for c in self.cps)],
            "feedback_latency": latency,
            "sources": [
                {"src": x.src, "dst": x.dst, "start_ps": to_ps(x.start), "stop_ps": None if x.stop is None else to_ps(x.stop),
                 "size_bytes": None if x.size is None else int(math.ceil(x.size.value)),
                 "initial_rate_bps": None if x.initial_rate is None else int(round(x.initial_rate)), "count": int(x.count)}
                for x in self.sources
            ],
            "poisson": [
                {"src": w.src, "dst": w.dst, "rate_per_s": float(w.rate), "mean_bytes": int(round(w.mean_size.value)),
                 "start_ps": to_ps(w.start), "stop_ps": None if w.stop is None else to_ps(w.stop)}
                for w in self.poisson
            ],
            "rate_interval_ps": to_ps(self.rate_interval),
        }



def _l2_param_order() -> list[str]:
    """Every scheme's parameters in the engine's order; those every scheme has (min_rate) last."""
    names = list(dict.fromkeys(p["name"] for s in L2_SCHEME_TABLE.values() for p in s["params"]))
    common = [n for n in names if all(n in ps for ps in L2_PARAMS.values())]
    return [n for n in names if n not in common] + common


L2 = create_model(
    "L2",
    __base__=_L2Base,
    __module__=__name__,
    __doc__=_L2Base.__doc__,
    **{name: (Optional[_PARAM_TYPES[L2_UNITS[name]]], None) for name in _l2_param_order()},
    frame=(BytesQ, Size(1000, "B")),
    feedback_frame=(SizeQ, Size(64, "B")),
    cps=(Optional[list[str]], None),
    feedback_latency=(Optional[Latency], None),
    rate_interval=(Time, 100e-6),
    sources=(list[L2Source], Field(default_factory=list)),
    poisson=(list[L2Poisson], Field(default_factory=list)),
)


@dataclass(frozen=True)
class FlowInfo:
    """One expanded flow: index in the engine, its group in the file, and its end points.

    A plain record (built from a validated scenario, never from user input): a pydantic model
    here cost ``dcsim run`` ~17 ms of validator building for nothing to validate."""

    index: int
    group: int
    src: str
    dst: str
    protocol: str
    start_s: float


class Scenario(_Model):
    """A whole simulation: network, flows, run length, metrics. See the module docstring."""

    network: Network
    flows: list[FlowGroup] = Field(default_factory=list)
    workloads: list[Workload] = Field(default_factory=list)
    run: Run
    metrics: Metrics = Field(default_factory=Metrics)
    l2: Optional[L2] = None

    #: Whether this instance passed validation (``__init__``, ``model_validate``): read-only, it
    #: stays valid. A copy made without it (pydantic's ``model_copy``, ``model_construct``) is
    #: validated again before it runs (:meth:`to_engine_spec`).
    _validated: bool = PrivateAttr(default=False)
    #: A validated scenario's engine JSON, built once (:meth:`to_engine_json`), and whether it
    #: passed the engine's checks (:meth:`check_resources`): read-only, it cannot change.
    _engine_json: Optional[str] = PrivateAttr(default=None)
    _resources_checked: bool = PrivateAttr(default=False)
    #: How many of the default monitored ports the engine samples (its fit to metrics.max_memory,
    #: made with the engine JSON): None for all of them.
    _monitor_first: Optional[int] = PrivateAttr(default=None)
    #: Traced generated flows with an automatic window interval the fit lengthened: (their number,
    #: the preferred interval, the fitted one), ps; None otherwise (see :meth:`_trace_warnings`).
    _trace_fit: Optional[tuple[int, int, int]] = PrivateAttr(default=None)
    #: A validated scenario's :meth:`_labelled_path_rtts`, computed once: a graph's are a search
    #: per flow, which two warnings asked for (2.6 s of a 16 000-node graph's checks).
    _path_rtts: Optional[list] = PrivateAttr(default=None)

    @_gc_paused
    def __init__(self, **data: Any) -> None:
        """Validate; raises :class:`ScenarioError` (one ``field: problem`` line per problem)."""
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise _scenario_error(e) from None
        _freeze(self, "")
        self._validated = True

    @classmethod
    @_gc_paused
    def model_validate(cls, obj: Any, **kwargs: Any) -> "Scenario":  # type: ignore[override]
        try:
            sc = _freeze(super().model_validate(obj, **kwargs), "")
        except ValidationError as e:
            raise _scenario_error(e) from None
        sc._validated = True
        return sc

    def model_copy(self, *, update: Optional[dict] = None, deep: bool = False) -> "Scenario":  # type: ignore[override]
        """pydantic's copy, which does not validate ``update``: the copy is validated again before
        it runs (:meth:`_revalidated`). :meth:`replace` is the validated way to change a scenario."""
        c = super().model_copy(update=update, deep=deep)
        c._validated, c._engine_json, c._resources_checked, c._monitor_first, c._path_rtts = False, None, False, None, None
        c._trace_fit = None
        return c

    def _revalidated(self) -> "Scenario":
        """Itself when it was validated, else a validated scenario of its values: pydantic's
        ``model_copy(update=...)`` and ``model_construct`` skip validation, and a table given there
        as a plain dict ({"run": {"duration": "20ms"}}) or a value no validator saw had reached the
        run as an AttributeError or a serializer's error (a review). Its tables go through
        :meth:`from_dict` as the TOML-shaped dict they stand for (a validated table as what
        :meth:`to_dict` writes of it, a plain one as given), so every error is a ScenarioError that
        names its field."""
        if self._validated:
            return self

        def plain(v: Any) -> Any:
            if isinstance(v, BaseModel):
                try:
                    return v.model_dump(mode="json", exclude_none=True, exclude_unset=True)
                except Exception:  # noqa: BLE001 - a value set past validation that its serializer cannot write:
                    pass  # each field as its serializer writes it, else as given (its validator names it)
                out = {}
                for name in v.model_fields_set:
                    x = getattr(v, name)
                    if x is None:
                        continue
                    if isinstance(x, (BaseModel, list, tuple, dict)):
                        out[name] = plain(x)
                        continue
                    try:
                        out[name] = v.model_dump(mode="json", include={name})[name]
                    except Exception:  # noqa: BLE001
                        out[name] = x
                return out
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            return v

        d = {k: plain(getattr(self, k)) for k in type(self).model_fields if k in self.model_fields_set}
        return type(self).from_dict({k: v for k, v in d.items() if v is not None})

    #: Private attributes that record what was done with a scenario (validated, its engine JSON
    #: built and checked), not what it is.
    _BOOKKEEPING: ClassVar[frozenset[str]] = frozenset({"_validated", "_engine_json", "_resources_checked",
                                                              "_monitor_first", "_path_rtts", "_trace_fit"})

    def __eq__(self, other: Any) -> bool:
        """Equal scenarios: the same tables and values. What was done with either (see
        ``_BOOKKEEPING``) does not count: with pydantic's own equality, which compares every private
        attribute, a scenario whose engine JSON had been built no longer equalled its twin."""
        if not isinstance(other, Scenario):
            return NotImplemented
        if type(self) is not type(other) or self.__dict__ != other.__dict__:
            return False
        own = lambda sc: {k: v for k, v in (sc.__pydantic_private__ or {}).items() if k not in self._BOOKKEEPING}  # noqa: E731
        return own(self) == own(other)

    __hash__ = None  # type: ignore[assignment]  # as pydantic's: a scenario is not hashable

    @model_validator(mode="after")
    def _check(self) -> "Scenario":
        net = self.network
        if not self.flows and not self.workloads and self.l2 is None:
            raise _err("flows", "no flows: give at least one [[flows]] entry with count and protocol (" + ", ".join(PROTOCOLS)
                       + "), a [[workloads]] entry or [l2] sources")
        total = sum(f.count for f in self.flows)
        if total > LIMITS["max_flows"]:
            raise _err("flows", f"{total} flows in all is out of range; allowed at most {LIMITS['max_flows']}")
        if net.topology == "dumbbell":
            if net.senders is None:
                if not self.flows:
                    raise _err("network.senders", "required when there are no [[flows]]: the number of sending hosts")
                net._fill("senders", sum(f.count for f in self.flows))
            n = net.senders
            if isinstance(net.rtt, list) and len(net.rtt) != n:
                raise _err("network.rtt", f"{len(net.rtt)} values given; allowed: one RTT, or one per sender ({n})")
        hosts = set(net.host_names())
        adj = functools.cache(net.adjacency)  # built on first use: a fabric's flows need none
        for gi, f in enumerate(self.flows):
            fld = f"flows[{gi}]"
            _check_flow_bytes(f"{fld}.size", f.size, net.packet_bytes, net.header_bytes)
            if net.topology == "dumbbell":
                for name in ("src", "dst"):
                    if getattr(f, name) is not None:
                        raise _err(f"{fld}.{name}", "only for topology = \"graph\"; in a dumbbell pick senders by index with senders = [0, 1, ...]")
                if f.senders is not None:
                    if not f.senders:
                        raise _err(f"{fld}.senders", "empty list; allowed: sender indices 0 .. network.senders-1, or omit")
                    for j, s in enumerate(f.senders):
                        if not (0 <= s < net.senders):
                            raise _err(f"{fld}.senders[{j}]", f"{s} is out of range; allowed 0 .. {net.senders - 1} (network.senders = {net.senders})")
            else:
                if f.senders is not None:
                    raise _err(f"{fld}.senders", f"only for topology = \"dumbbell\"; with topology = {net.topology!r} give src and dst")
                for name in ("src", "dst"):
                    v = getattr(f, name)
                    if v is None:
                        raise _err(f"{fld}.{name}", f"required with topology = {net.topology!r}; allowed hosts: {_names(hosts)}")
                    if v not in hosts:
                        raise _err(f"{fld}.{name}", f"{v!r} is not a host; allowed: {_names(hosts)}")
                if f.src == f.dst:
                    raise _err(f"{fld}.dst", "a flow needs two different hosts")
                if not _path_exists(net, adj, f.src, f.dst, hosts):
                    raise _err(f"{fld}.dst", f"no path from {f.src!r} to {f.dst!r} in network.links (through switches: "
                                             "hosts do not forward)")
            last_start = f.start + (f.count - 1) * f.stagger + f.start_jitter
            if not last_start < self.run.duration:
                raise _err(
                    f"{fld}.start",
                    f"flows start until {fmt_time(last_start, 12, sep='')}, not before run.duration = {time_str(self.run.duration)}; "
                    f"allowed start + (count-1)*stagger + start_jitter < duration",
                )
        # After the flow groups: it places them (expanded_flows), which needs them valid.
        self._check_workloads(hosts, adj)
        if self.l2 is not None:
            self._check_l2(hosts, adj)
        self._check_partitions()
        names = set(net.node_names())
        for i, (a, b) in enumerate(self.metrics.ports() or []):
            for end in (a, b):
                if end not in names:
                    raise _err(f"metrics.monitor[{i}]", f"unknown node {end!r}; allowed: {', '.join(net.node_names())}")
            if b not in adj().get(a, []):
                raise _err(f"metrics.monitor[{i}]", f"no link {a!r} -> {b!r}")
        return self

    def _check_partitions(self) -> None:
        """run.partitions > 1 only where the engine splits a run exactly: a fat_tree (at most k parts)
        or a leaf_spine (at most one per leaf), without L2 sources, CHOKe queues or incast."""
        p, net = self.run.partitions, self.network
        if p == 1:
            return
        if net.topology not in FABRIC_TIERS:
            raise _err("run.partitions", f"{p} partitions need a fat_tree or leaf_spine topology (split by pods or "
                                         f"leaves), not {net.topology}; use 1")
        most, what = (int(net.k), "pods (k)") if net.topology == "fat_tree" else (int(net.leaves), "leaves")
        if p > most:
            raise _err("run.partitions", f"{p} is out of range; allowed 1 .. {most}, the number of {what}")
        if self.l2 is not None:
            raise _err("run.partitions", f"{p} partitions cannot carry L2 sources ([l2]); use 1")
        for name in FABRIC_TIERS[net.topology]:
            aqm = net.tier_queue(name)[1]
            if aqm.facts()["reaches_into_queue"]:
                own = net.tier(name).aqm is not None  # else network.aqm, which every tier takes
                where = f"network.tiers.{name}.aqm" if own else "network.aqm"
                raise _err("run.partitions", f"{p} partitions cannot run {aqm.kind} queues ({where}), which "
                                             f"drop packets already queued; use 1")
        for i, w in enumerate(self.workloads):
            if w.kind == "incast":
                raise _err("run.partitions", f"{p} partitions cannot run incast workloads (workloads[{i}]), whose rounds "
                                             f"wait on every flow; use 1")

    def _check_l2(self, hosts: set, adj: Callable[[], dict]) -> None:
        """[l2] fields that need the network: source hosts and paths, congestion-point ports, and the
        target queue against their buffers."""
        l2, net = self.l2, self.network
        frame = float(l2.frame.value)
        buffers = ([("network.buffer", net.buffer)]
                   + [(f"network.links[{i}].buffer", link.buffer) for i, link in enumerate(net.links or [])]
                   + [(f"network.tiers.{t}.buffer", net.tier(t).buffer) for t in FABRIC_TIERS.get(net.topology, ())])
        for fld, buf in buffers:  # (network.packet_bytes is checked against them already)
            if buf is not None and buf.unit != "pkt" and 0 < buf.value < frame:
                raise _err(fld, f"{size_str(buf)} holds no L2 frame (l2.frame = {size_str(l2.frame)}): every frame would "
                                f"be dropped; allowed at least {frame:g} B")
        line_rates: dict[str, Optional[float]] = {}  # a source host's fastest link, bit/s
        for fld, x in [(f"l2.sources[{i}]", x) for i, x in enumerate(l2.sources)] + [
                (f"l2.poisson[{i}]", x) for i, x in enumerate(l2.poisson)]:
            for name in ("src", "dst"):
                v = getattr(x, name)
                if v not in hosts:
                    raise _err(f"{fld}.{name}", f"{v!r} is not a host; allowed: {_names(hosts)}")
            if x.src == x.dst:
                raise _err(f"{fld}.dst", "a source needs two different hosts")
            if not _path_exists(net, adj, x.src, x.dst, hosts):
                raise _err(f"{fld}.dst", f"no path from {x.src!r} to {x.dst!r} (through switches: hosts do not forward)")
            if x.start >= self.run.duration:
                raise _err(f"{fld}.start", f"{time_str(x.start)} is not before run.duration = {time_str(self.run.duration)}")
            # The reaction point never goes below min_rate: the host's link must carry it (the engine
            # checks the route's first hop; a host with several links is refused here only if none can).
            floor = l2.min_rate if l2.min_rate is not None else l2.defaults()["min_rate"]
            if x.src not in line_rates:
                line_rates[x.src] = (net.tier_rate("host") if net.topology in FABRIC_TIERS else
                                     max((net.link_rate(x.src, n) or 0.0 for n in adj().get(x.src, [])), default=None))
            line = line_rates[x.src]
            if line is not None and floor > line:
                given = "" if l2.min_rate is not None else f" (the default of {l2.scheme})"
                raise _err("l2.min_rate", f"{rate_str(floor)}{given} is above the line rate of {fld}.src = {x.src!r}, "
                                          f"{rate_str(line)}; allowed 0 < min_rate <= the sources' line rates")
            start = getattr(x, "initial_rate", None)  # (a review: refused by the engine only, after the scenario printed)
            if start is not None and line is not None and start > line:
                raise _err(f"{fld}.initial_rate", f"{rate_str(start)} is above the line rate of {x.src!r}, "
                                                  f"{rate_str(line)}; allowed min_rate .. the host's line rate")
        ports = self._l2_cp_names(hosts)
        if not ports:
            egress = [f'"{a}->{b}"' for a in adj() if a not in hosts for b in adj()[a]][:3] or ['"A->B"']
            one_switch = " (a parking lot of one switch has no link between switches)" if net.topology == "parking_lot" else ""
            raise _err("l2.cps", "no congestion point: without l2.cps they are the switch ports that metrics monitors, "
                                 f"and it monitors none here{one_switch}; give cps = [...], switch egress ports such as "
                                 + ", ".join(egress))
        seen = set()
        for i, cp in enumerate(ports):
            fld = f"l2.cps[{i}]" if l2.cps is not None else "l2.cps"
            if not isinstance(cp, str) or cp.count("->") != 1:
                raise _err(fld, f"{cp!r} is not a port; write \"FROM->TO\", e.g. \"C1->C2\"")
            a, b = (x.strip() for x in cp.split("->"))
            if a not in adj() or b not in adj().get(a, []):
                raise _err(fld, f"no link {a!r} -> {b!r} in the network")
            if a in hosts:
                raise _err(fld, f"{a}->{b} is a host port; congestion points sit on switch egress ports")
            if (a, b) in seen:
                raise _err(fld, f"{a}->{b} is listed twice")
            seen.add((a, b))
            buf = net.port_buffer(a, b)  # a tier's own on a fabric (an audit: net.buffer had been read)
            name, target = l2.target_bytes()
            # A buffer in packets holds that many L2 frames (as the engine counts it).
            cap = None if buf is None else buf.value * (float(l2.frame.value) if buf.unit == "pkt" else 1.0)
            if cap is not None and target > cap:
                held = f"{size_str(buf)} of {size_str(l2.frame)} frames = {cap:g} B" if buf.unit == "pkt" else size_str(buf)
                raise _err(f"l2.{name}", f"{target:g} B is larger than the buffer of congestion point {a}->{b} "
                                         f"({held}); allowed {name} <= buffer")

    def _l2_cp_names(self, hosts: set) -> list:
        """The congestion points as written ("A->B"): l2.cps, or the monitored switch ports."""
        if self.l2.cps is not None:
            return list(self.l2.cps)
        monitored = self.metrics.ports()
        if monitored is None:
            monitored = self.network.default_monitored_ports()
        return [f"{a}->{b}" for a, b in monitored if a not in hosts]

    def _check_workloads(self, hosts: set, adj: Callable[[], dict]) -> None:
        """Workload fields that need the network: hosts, the loaded link, defaults. ``adj()``: the
        network's adjacency (:meth:`Network.adjacency`), built once on first use."""
        net, pb, hb = self.network, self.network.packet_bytes, self.network.header_bytes
        used = {x for f in self.expanded_flows() for x in (f.src, f.dst)}
        for wi, w in enumerate(self.workloads):
            fld = f"workloads[{wi}]"

            def host(name: str, field: str) -> None:
                if name not in hosts:
                    raise _err(f"{fld}.{field}", f"{name!r} is not a host; allowed: {_names(hosts)}")

            if w.kind == "poisson":
                fabric = net.topology in FABRIC_TIERS
                if w.link is None:
                    w._fill("link", HOST_LINKS if fabric else net.default_bottleneck_port())
                    if w.link is None:
                        raise _err(f"{fld}.link", f'required: the link whose capacity the load refers to, e.g. "sw->r", '
                                                  f'or "{HOST_LINKS}" (the senders\' host links)')
                if w.link != HOST_LINKS:
                    a, b = (x.strip() for x in w.link.split("->"))
                    if a not in adj() or b not in adj().get(a, []):
                        raise _err(f"{fld}.link", f"no link {a!r} -> {b!r} in the network")
                if fabric and w.receivers is None:
                    w._fill("receivers", net.host_names())
                if fabric and w.senders is None:
                    w._fill("senders", net.host_names())
                if w.receivers is None:
                    if net.topology == "dumbbell":
                        w._fill("receivers", ["r"])
                    elif net.topology == "tree" and net.bottleneck_hosts:
                        w._fill("receivers", list(net.bottleneck_hosts))
                    else:
                        raise _err(f"{fld}.receivers", f"required for a {net.topology}: the receiving hosts")
                if w.senders is None:
                    if net.topology in ("dumbbell", "tree"):
                        others = [h for h in net.host_names() if h not in w.receivers]
                        if not others:
                            raise _err(f"{fld}.senders", "not given, and the default (every host but the receivers) "
                                                         "leaves none: every host is a receiver; give senders or "
                                                         "fewer receivers")
                        w._fill("senders", others)
                    else:
                        raise _err(f"{fld}.senders", f"required with topology = {net.topology!r}: the sending hosts")
                for what in ("senders", "receivers"):
                    names = getattr(w, what)
                    if not names:
                        raise _err(f"{fld}.{what}", "empty; give at least one host")
                    first: dict[str, int] = {}
                    for j, h in enumerate(names):
                        host(h, f"{what}[{j}]")
                        if first.setdefault(h, j) != j:  # a second entry would weigh the host double
                            raise _err(f"{fld}.{what}[{j}]", f"{h!r} appears twice ({what}[{first[h]}]); each host "
                                                             "carries the load once")
                for j, h in enumerate(w.senders):
                    if all(r == h for r in w.receivers):
                        raise _err(f"{fld}.senders[{j}]", f"{h!r} has no receiver other than itself")
                if w.sizes.kind == "uniform":
                    e = w.sizes.to_engine(pb, hb)
                    if e["max_bytes"] < e["min_bytes"]:
                        raise _err(f"{fld}.sizes.max", f"{size_str(w.sizes.max)} is smaller than min = {size_str(w.sizes.min)}")
            elif w.kind == "permutation":
                if w.senders is None:
                    w._fill("senders", net.host_names())
                if w.receivers is None:
                    w._fill("receivers", list(w.senders))
                for what in ("senders", "receivers"):
                    names = getattr(w, what)
                    if not names:
                        raise _err(f"{fld}.{what}", "empty; give at least one host")
                    seen_at: dict[str, int] = {}
                    for j, h in enumerate(names):
                        host(h, f"{what}[{j}]")
                        if h in seen_at:
                            raise _err(f"{fld}.{what}[{j}]", f"{h!r} appears twice ({what}[{seen_at[h]}]); a permutation "
                                                             "pairs each host once")
                        seen_at[h] = j
                if len(w.receivers) != len(w.senders):
                    raise _err(f"{fld}.receivers", f"{len(w.receivers)} hosts for {len(w.senders)} senders; a permutation "
                                                   "pairs each sender with one receiver, so give as many")
                if w.senders == w.receivers and len(w.senders) == 1:
                    raise _err(f"{fld}.receivers", f"{w.senders[0]!r} is also the only sender; a flow runs between two hosts")
                _check_flow_bytes(f"{fld}.size", w.size, pb, hb)
            elif w.kind == "trace":
                unknown = w.arrivals.first_unknown_host(hosts)
                if unknown is not None:
                    j, end, name = unknown
                    if w._trace_lines is not None:
                        file, lines = w._trace_lines
                        raise _err(f"{fld}.file", f"{file} line {lines[j]}: {end}: {name!r} is not a host; allowed: {_names(hosts)}")
                    host(name, f"arrivals[{j}].{end}")
                top = LIMITS["max_flow_bytes"]
                above = w.arrivals.first_payload_above(top, pb - hb)  # as the engine gets it (Workload.to_engine)
                if above is not None:
                    j, b = above
                    if w._trace_lines is not None:
                        file, lines = w._trace_lines
                        raise _err(f"{fld}.file", f"{file} line {lines[j]}: size: {exact_num(b)} bytes is out of range; allowed "
                                                  f"at most {top} bytes")
                    raise _err(f"{fld}.arrivals[{j}].size", f"{exact_num(b)} bytes is out of range; allowed at most {top} bytes")
                w._trace_lines = None  # needed for these errors only (a scenario equals its written form)
            else:
                host(w.client, "client")
                if w.servers is None:
                    pool = [h for h in net.host_names() if h != w.client and h not in used]
                    if len(pool) < w.n:
                        raise _err(f"{fld}.n", f"{w.n} servers, but only {len(pool)} hosts are free (not the client, "
                                               "not in [[flows]]); give servers = [...] or add hosts")
                    w._fill("servers", pool[: w.n])
                seen: set[str] = set()
                for j, h in enumerate(w.servers):
                    host(h, f"servers[{j}]")
                    if h == w.client:
                        raise _err(f"{fld}.servers[{j}]", f"{h!r} is the client; a server must be another host")
                    if h in seen:
                        raise _err(f"{fld}.servers[{j}]", f"{h!r} appears twice")
                    seen.add(h)
                nbytes = w.total_bytes(pb, hb)
                if nbytes < w.n:
                    raise _err(f"{fld}.total", f"{size_str(w.total)} is smaller than n = {w.n} bytes; allowed total >= n "
                                               "bytes (every server sends at least one byte)")
                if nbytes > LIMITS["max_flow_bytes"]:
                    raise _err(f"{fld}.total", f"{size_str(w.total)} is out of range; allowed at most {LIMITS['max_flow_bytes']} bytes")
            if not to_ps(w.start) < to_ps(self.run.duration):  # as the engine compares them (every kind: a review)
                raise _err(f"{fld}.start", f"{time_str(w.start)} is not before run.duration = "
                                           f"{time_str(self.run.duration)} in the engine's whole picoseconds; "
                                           "its flows would never start")

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict) -> "Scenario":
        """Validate a dict of the TOML shape; raises :class:`ScenarioError`."""
        if not isinstance(data, dict):
            raise ScenarioError(f"scenario: expected a table, got {type(data).__name__}")
        flows = data.get("flows")
        if isinstance(flows, list) and len(flows) > LIMITS["max_flows"]:
            # each entry is at least one flow: refused before the tables are walked and built (a
            # 64 MiB file of 2.5 M [[flows]] tables took 86 s and 4.5 GB to be told so: a review)
            raise ScenarioError(f"flows: {len(flows)} [[flows]] entries, each of at least 1 flow, is out of range; "
                                f"allowed at most {LIMITS['max_flows']} flows in all (count = n gives n flows in one entry)")
        _refuse_inline_traces(data)
        _check_shape(data)
        if "network" not in data:
            kind = _other_file_kind(data)
            if kind:
                raise ScenarioError(kind)
        return cls(**plain(data))

    @classmethod
    def from_toml_str(cls, text: str) -> "Scenario":
        """Validate a scenario given as TOML text; raises :class:`ScenarioError`."""
        if not isinstance(text, str):
            raise ScenarioError(f"scenario: expected TOML text (a str), got {type(text).__name__}"
                                + ("; a file is read by Scenario.from_toml(path)" if isinstance(text, os.PathLike) else ""))
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"scenario file: not valid TOML: {e}") from None
        except RecursionError:  # the parser recurses per level of nesting
            raise ScenarioError(f"scenario: nested too deeply (allowed at most {MAX_NESTING} levels)") from None
        return cls.from_dict(data)

    @classmethod
    def from_toml(cls, path: Union[str, Path], changes: Optional[dict] = None) -> "Scenario":
        """Load and validate a TOML scenario file (with ``changes``: :func:`load_scenario`);
        raises :class:`ScenarioError`."""
        if isinstance(path, str) and "\n" in path:  # the whole text was shown as a path (an API probe)
            raise ScenarioError("from_toml: given TOML text, not a file's path; Scenario.from_toml_str(text) reads text")
        return cls.from_dict(_file_tables(Path(path), changes, json_file=False))

    # -- output -------------------------------------------------------------------------------

    def to_dict(self, *, resolved: bool = False) -> dict:
        """The TOML-shaped dict with unit strings ("10Gbps"); ``from_dict(to_dict())`` == self.

        Only what was given is written (defaults are filled in again on loading), so that a
        change such as another protocol does not carry the defaults of the old one along;
        ``resolved=True`` spells out every default as well.
        """
        return self.model_dump(mode="json", exclude_none=True, exclude_unset=not resolved)

    def to_toml(self, *, resolved: bool = False, trace_files: Optional[dict[int, str]] = None) -> str:
        """The scenario as a TOML file (what was given; ``resolved=True``: every default too).
        ``trace_files``: {trace workload: file name} of traces written beside it
        (:meth:`TraceFlows.csv_lines`), named by ``file`` instead of held as ``arrivals``."""
        # a trace's flows are written from its columns
        return _toml_dumps(self._to_dict_with_traces(resolved=resolved, trace_files=trace_files or {}))

    def _to_dict_with_traces(self, updates: Iterable[str] = (), *, resolved: bool = False,
                             trace_files: Optional[dict[int, str]] = None) -> dict:
        """:meth:`to_dict`, with each trace workload's flows as the :class:`TraceFlows` they are
        (validated and read-only), unless a change in ``updates`` (paths) goes into them, or as
        ``file`` = its name in ``trace_files``. Not plain data: for :meth:`replace`, whose copy
        takes the flows over instead of reading a table per flow again (a 200 000-flow trace's
        ``--set`` took 5.5 s, now ~0.02 s), and :meth:`to_toml`."""
        from dcsim.paths import PathError, parse_path

        traces = {i: w.arrivals for i, w in enumerate(self.workloads) if isinstance(w.arrivals, TraceFlows)}
        for path in updates:
            try:
                parts = parse_path(path)
            except PathError:
                continue  # reported by set_path
            if parts[:1] == ("workloads",) and len(parts) > 3 and parts[2] == "arrivals":
                traces.pop(parts[1], None)  # changed flow by flow: written out, read again
        if not traces:
            return self.to_dict(resolved=resolved)
        data = self.model_dump(mode="json", exclude_none=True, exclude_unset=not resolved,
                               exclude={"workloads": {i: {"arrivals"} for i in traces}})
        files = trace_files or {}
        for i, flows in traces.items():  # in its place among the fields, as to_dict writes it
            w = {**data["workloads"][i], **({"file": files[i]} if i in files else {"arrivals": flows})}
            data["workloads"][i] = {k: w[k] for k in Workload.model_fields if k in w}
        return data

    def replace(self, changes: Optional[dict] = None, /, **kw: Any) -> "Scenario":
        """A validated copy with changes, addressed by dotted paths:

        ``sc.replace({"network.aqm.K": "40pkt", "flows[0].protocol": "newreno"})``

        Values are written as in a scenario file. When a protocol changes, the options the new
        one does not take (DCTCP's ``g`` and ``alpha_init`` for ``newreno``) are dropped unless
        the same changes give them; those both take are kept. ``changes=None`` (keyword form): ``sc.replace(**{"run.seed": 2})``. Raises
        :class:`ScenarioError` naming the field.
        """
        _check_changes(changes, "replace")
        both = sorted(set(changes or {}) & set(kw), key=str)
        if both:  # the keyword had won silently (an API audit)
            raise ScenarioError(f"replace: {both[0]!r} is given twice, in the table and as a keyword; give it once")
        updates = plain(dict(changes or {}, **kw))
        return type(self).from_dict(apply_changes(self._to_dict_with_traces(updates), updates))

    def expanded_flows(self) -> list[FlowInfo]:
        """The flows in engine order (group by group; within a group by index). Start times:
        ``start + k*stagger`` (the engine adds ``U[0, start_jitter)``, drawn from the flow's stream)."""
        out: list[FlowInfo] = []
        rr = 0  # round-robin over the dumbbell's senders, continued across groups
        for gi, f in enumerate(self.flows):
            for k in range(f.count):
                if self.network.topology == "dumbbell":
                    if f.senders is not None:
                        src = f"s{f.senders[k % len(f.senders)]}"
                    else:
                        src = f"s{rr % self.network.senders}"
                        rr += 1
                    dst = "r"
                else:
                    src, dst = f.src, f.dst
                start = f.start + k * f.stagger
                out.append(FlowInfo(index=len(out), group=gi, src=src, dst=dst, protocol=f.protocol, start_s=start))
        return out

    def to_engine_spec(self) -> dict:
        """The engine's JSON (``crates/dcsim-core/src/scenario.rs``): integer ps, bit/s, Amounts.

        A validated scenario is read-only and is used as it is; one that did not come from
        validation (pydantic's ``model_copy`` or ``model_construct``) is validated first.
        """
        return self._engine_spec()[0]

    @_gc_paused
    def _engine_spec(self) -> tuple[dict, Optional[str]]:
        """:meth:`to_engine_spec`, and its JSON when it was encoded on the way (for the engine's
        fit of the sampling intervals, which mostly keeps them: a million-flow trace's spec is
        then encoded once, not twice, ~0.8 s less); None when it was not."""
        sc = self._revalidated()
        sc._check_listed_flow_count()
        sc._check_trace_arrival_count()
        net, pb, hb = sc.network, sc.network.packet_bytes, sc.network.header_bytes
        flows = []
        for info in sc.expanded_flows():
            f = sc.flows[info.group]
            flows.append(
                {
                    "src": info.src,
                    "dst": info.dst,
                    "protocol": f.protocol_engine(),
                    "start_ps": to_ps(info.start_s),
                    "start_jitter_ps": to_ps(f.start_jitter),
                    "size_bytes": f.size_bytes(pb, hb),
                    "min_cwnd_pkt": float(f.min_cwnd.value),
                    "init_cwnd_pkt": float(f.init_cwnd.value),
                    "min_rto_ps": to_ps(f.min_rto),
                    "delayed_ack": (
                        None
                        if f.delayed_ack is None
                        else {"segments": int(f.delayed_ack.segments), "timeout_ps": to_ps(f.delayed_ack.timeout)}
                    ),
                    "tcp": f.tcp_engine(),
                }
            )
        m = sc.metrics
        ports = m.ports()
        traced = m.traced_flows(len(flows))
        traced_listed = len(flows) if traced is None else sum(1 for i in traced if i < len(flows))
        iv = m.preferred_intervals_s(sc.base_rtt_min_s(), traced_listed, float(sc.run.duration))
        spec = {
            "seed": int(sc.run.seed),
            "duration_ps": to_ps(sc.run.duration),
            "warmup_ps": to_ps(sc.run.warmup),
            "packet_bytes": int(pb),
            "header_bytes": int(hb),
            "host_jitter_ps": to_ps(net.host_jitter),
            "topology": net.to_engine(),
            "flows": flows,
            "workloads": [w.to_engine(pb, hb) for w in sc.workloads],
            "l2": None if sc.l2 is None else sc.l2.to_engine(),
            "partitions": int(sc.run.partitions),
            "metrics": {
                "queue_interval_ps": to_ps(iv["queue_interval"]),
                "throughput_interval_ps": to_ps(iv["throughput_interval"]),
                "cwnd_interval_ps": to_ps(iv["cwnd_interval"]),
                "monitor": None if ports is None else [{"from": a, "to": b} for a, b in ports],
                "trace_flows": traced,
                "max_memory_bytes": int(m.max_memory.value),
            },
        }
        # The default ports are "auto" too: when their queue series cannot fit max_memory even at
        # the coarsest sampling, the engine samples the first of them that fit (metrics.monitor_first).
        auto = m.auto_fields() + (["metrics.monitor"] if ports is None else [])
        text = None
        if auto:
            # The engine lengthens the "auto" intervals that do not fit max_memory (or refuses a
            # budget too small for even the coarsest, naming metrics.max_memory).
            text = json.dumps(spec)
            try:
                fitted = json.loads(_core.fit_sampling(text, auto))
            except ValueError as e:
                raise engine_error(e, sc) from None
            first = fitted.pop("metrics.monitor", None)
            self._monitor_first = first
            if first is not None:
                spec["metrics"]["monitor_first"] = first
                text = None
            generated = 0 if traced is None else sum(1 for i in traced if i >= len(flows))
            self._trace_fit = None
            for field, ps in fitted.items():
                key = field.split(".", 1)[1] + "_ps"
                if spec["metrics"][key] != ps:
                    if key == "cwnd_interval_ps" and generated and ps > spec["metrics"][key]:
                        self._trace_fit = (generated, spec["metrics"][key], ps)
                    spec["metrics"][key] = ps
                    text = None  # changed: encoded again if asked for
        return spec, text

    def warnings(self) -> list[str]:
        """Plausible but suspicious settings, as ``field: message`` lines (the run goes ahead)."""
        out: list[str] = []
        net, run = self.network, self.run
        marking = []  # (field, kind, what it does with packets that are not ECN-capable) of marking queues
        if net.topology in ("dumbbell", "tree", "parking_lot"):
            queues = [("network.aqm", net.aqm)]
        elif net.topology in FABRIC_TIERS:
            queues = [(f"network.tiers.{name}.aqm" if net.tier(name).aqm is not None else "network.aqm",
                       net.tier_queue(name)[1]) for name in FABRIC_TIERS[net.topology]]
        else:
            queues = [(f"network.links[{i}].aqm", link.aqm) for i, link in enumerate(net.links) if link.aqm is not None]
        for field, aqm in queues:
            facts = aqm.facts()
            if facts["marks_ect"]:
                marking.append((field, aqm.kind, facts["not_ect_fate"]))
        if marking:
            marking = list(dict.fromkeys(marking))  # a fabric's tiers may share network.aqm
            where = ", ".join(f"{f} ({k})" for f, k, _ in marking[:3]) + (" ..." if len(marking) > 3 else "")
            fates = dict.fromkeys((k, fate) for k in AQM_KINDS for _, kk, fate in marking if kk == k)
            what = "; ".join(f"a {k} queue {fate}" for k, fate in fates)
            for gi, f in enumerate(self.flows):
                if not f.ecn_capable():
                    out.append(f"flows[{gi}]: {f.protocol} flows are not ECN-capable and cross an ECN-marking queue "
                               f"({where}); {what}" + _ect_advice(f))
            for wi, w in enumerate(self.workloads):
                for ci, c in enumerate(w.classes()):
                    if not c._flow.ecn_capable():
                        field = f"workloads[{wi}]" + (f".mix[{ci}]" if w.mix is not None else "")
                        out.append(f"{field}: {c.protocol} flows are not ECN-capable and cross an ECN-marking queue "
                                   f"({where}); {what}" + _ect_advice(c._flow))
            if net.topology in FABRIC_TIERS:
                out += self._ack_warnings(where)
        out += self._l2_warnings()
        out += self._qcn_warnings()
        out += self._l2_path_warnings()
        out += self._monitor_warnings()
        out += self._interval_warnings()
        out += self._trace_warnings()
        out += self._delay_delack_warnings()
        out += self._dx_r0_warnings()
        out += self._initial_rto_warnings()
        out += self._workload_load_warnings()
        out += self._fabric_tier_warnings()
        out += self._wall_time_warnings()
        for wi, w in enumerate(self.workloads):
            if w.kind == "trace":
                # in whole picoseconds, as the engine's columns (TraceFlows.to_engine: to_ps, whose
                # round() rounds halves to even as np.rint does), for every flow at once
                import numpy as np

                at_ps = np.rint((w.start + np.frombuffer(w.arrivals.start_s, dtype=np.float64)) * 1e12)
                late = int(np.count_nonzero(at_ps >= to_ps(run.duration)))
                if late:
                    out.append(f"workloads[{wi}]: {late} of the trace's {count_shown(len(w.arrivals), 'flow')} start at or "
                               f"after the end of the run (run.duration = {time_str(run.duration)}); they do not run")
        paths = self.path_rtts()
        if paths:
            # The longest round trip of the flows: where it comes from (the field to change) and what.
            field, what, rtt = max(paths, key=lambda p: p[2])
            if rtt > run.duration:
                out.append(f"{field}: {what}{fmt_time(rtt, 12, sep='')} is longer than run.duration = {time_str(run.duration)}")
            elif run.duration - run.warmup < 10 * rtt:
                rounds = (run.duration - run.warmup) / rtt
                shown = f"{rounds:.1f}" if rounds >= 0.1 else f"{rounds:.2g}"  # not "0.0"
                out.append(f"run: only {shown} RTTs after warm-up "
                           f"({what or 'RTT '}{fmt_time(rtt, 12, sep='')}): statistics of so few round trips say little")
            if rtt > 1.0:
                out.append(f"{field}: {what}{fmt_time(rtt, 12, sep='')} is long for a data center (microseconds to milliseconds); "
                           f"is the unit right?")
        return out

    def _flow_groups(self) -> list[tuple[str, "FlowGroup", Optional["Workload"]]]:
        """Every group of flows as the warnings name it: (field, its flow settings, its workload or
        None): the listed [[flows]] (``flows[i]``), then each class of each workload
        (``workloads[i]``, ``workloads[i].mix[j]``)."""
        out: list = [(f"flows[{gi}]", f, None) for gi, f in enumerate(self.flows)]
        out += [(f"workloads[{wi}]" + (f".mix[{ci}]" if w.mix is not None else ""), c._flow, w)
                for wi, w in enumerate(self.workloads) for ci, c in enumerate(w.classes())]
        return out

    #: Engine events per wall second taken for the run-time estimate of :meth:`_wall_time_warnings`:
    #: about twice what the 1 s DCTCP benchmark measures (~2e7 on the 2026 machines), so that the
    #: estimate errs short.
    EVENTS_PER_WALL_S: ClassVar[float] = 4e7
    #: Estimated wall time beyond which a run without run.max_wall is warned about, s.
    LONG_RUN_S: ClassVar[float] = 3600.0

    def _wall_time_warnings(self) -> list[str]:
        """A run that would take hours with nothing to stop it but Ctrl-C (run.max_wall unset): two
        DCTCP flows on a 100 Gbps dumbbell for run.duration = 1e6 s started without a word and
        would have run ~23 days (a fuzz run). A rough estimate (an order of magnitude: a slower
        link inside the network is not seen): the listed long-lived flows' data at the smaller of
        their senders' and receivers' summed host-link rates, a sized flow its own packets, a
        Poisson workload its offered load, a permutation its pairs as listed flows, an incast its
        rounds' bytes, L2 sources their host links' rate (or their size); each data packet makes at
        least 4 events (its arrival at a switch and at its receiver, and its ACK's two), at
        :attr:`EVENTS_PER_WALL_S`. (Permutations, incasts and L2 had been left out: a 10^5 s
        permutation or L2 run started without a word, a review.) A trace's flows are not counted."""
        if self.run.max_wall is not None:
            return []
        net = self.network
        rates = net.link_rates()
        host_rate = net.host_rates(rates).__getitem__
        payload = net.packet_bytes - net.header_bytes
        span = self.run.duration
        packets, senders, receivers = 0.0, set(), set()
        for f in self.expanded_flows():
            size = self.flows[f.group].size_bytes(net.packet_bytes, net.header_bytes)
            if size is not None:
                packets += math.ceil(size / payload)
            else:
                senders.add(f.src)
                receivers.add(f.dst)
        if senders:
            line = min(sum(map(host_rate, senders)), sum(map(host_rate, receivers)))
            packets += line * span / (8 * net.packet_bytes)
        for w in self.workloads:
            if w.kind == "poisson" and w.load is not None and w.senders and w.link is not None:
                base = (sum(map(host_rate, w.senders)) if w.link == HOST_LINKS
                        else rates.get(tuple(x.strip() for x in w.link.split("->")), 0.0))
                stop = min(span, w.stop) if w.stop is not None else span
                packets += w.load * base * max(stop - w.start, 0.0) / (8 * payload)
            elif w.kind == "permutation" and w.senders:
                if w.size is None:  # long-lived: each sender at its host link, from its start
                    packets += sum(map(host_rate, w.senders)) * max(span - w.start, 0.0) / (8 * net.packet_bytes)
                else:
                    packets += len(w.senders) * math.ceil(payload_bytes(w.size, net.packet_bytes, net.header_bytes) / payload)
            elif w.kind == "incast" and w.total is not None and w.rounds:
                packets += int(w.rounds) * math.ceil(w.total_bytes(net.packet_bytes, net.header_bytes) / payload)
        if self.l2 is not None:  # frames, one event fewer each (no ACK) but the same order
            frame = float(self.l2.frame.value)
            for x in self.l2.sources:
                stop = min(span, x.stop) if x.stop is not None else span
                each = ((float(x.size.value) if x.size.unit == "pkt" else float(x.size.value) / frame)
                        if x.size is not None else host_rate(x.src) * max(stop - x.start, 0.0) / (8 * frame))
                packets += int(x.count) * each
        wall = 4 * packets / self.EVENTS_PER_WALL_S
        if wall <= self.LONG_RUN_S:
            return []
        return [f"run.duration: {time_str(span)} simulates about {packets:.2g} data packets, roughly {fmt_wall(wall)} of "
                "wall time, and nothing bounds it (run.max_wall is unset): set run.max_wall (e.g. \"3600s\") "
                "to stop it there with the results so far, or shorten run.duration"]

    def _delay_delack_warnings(self) -> list[str]:
        """Flows of a delay-based controller (the engine's fact ``delay_based``: DX) whose receivers
        delay ACKs: an ACK echoes the first held segment's timestamp, so every RTT sample includes
        the receiver's hold, which the controller (DX: eqs. 1-2) reads as queueing delay.
        4 DX flows at 10 Gbps under the linux profile (2 segments / 40 ms): utilization 0.000,
        every window 1 segment, DX's Q 40 ms (an audit; the ns2 profile, no delayed ACK: 97 %)."""
        out = []
        for field, f, _ in self._flow_groups():
            d = f.delayed_ack
            if d is not None and d.segments > 1 and _protocol_facts(f.protocol_engine())["delay_based"]:
                whose = "" if "delayed_ack" in f.model_fields_set else f", the {f.profile} profile's"
                name = "DX" if f.protocol == "dx" else f.protocol
                then = ("its window falls to 1 segment and it sends almost nothing" if f.protocol == "dx"
                        else "it backs off from a queue that is not there")
                out.append(f"{field}: {name} with delayed ACKs (every {d.segments} segments, else after "
                           f"{time_str(d.timeout)}{whose}): each RTT sample includes the receiver's hold, which {name} "
                           f"reads as queueing delay, so {then}; set delayed_ack = false")
        return out

    def _dx_r0_warnings(self) -> list[str]:
        """Listed DX flows whose fixed base RTT ``R0`` is below their path's propagation RTT: every
        RTT sample then exceeds R0, so DX reads the difference as queueing delay on every round
        (eqs. 1-2) and its window never rises above its floor (a review: 4 flows, R0 = 1 ns on a
        77.5 us path, utilization 0.06 against 0.98 with R0 = "path")."""
        shortest: dict[Optional[str], tuple[str, float]] = {}  # flows[i] -> (what, its shortest path RTT, s)
        longest: dict[Optional[str], float] = {}
        for flow, _, what, rtt in self._labelled_path_rtts():
            if flow not in shortest or rtt < shortest[flow][1]:
                shortest[flow] = (what, rtt)
            longest[flow] = max(longest.get(flow, 0.0), rtt)
        net = self.network
        # A dumbbell's bottleneck queue can hold at most buffer / C of delay: an R0 further above the
        # path's RTT than that is never exceeded by a sample's mean, so DX never decreases (a review:
        # R0 = 1 ms on 40-320 us paths, p = 0, 905 drops and 9 timeouts); R0 a little above the base
        # RTT only gives DX a queueing-delay target (README, "DX in the packet engine").
        most_q = (net.buffer.bytes(net.packet_bytes) * 8 / net.bottleneck
                  if net.topology == "dumbbell" and net.buffer is not None and net.bottleneck else None)
        out = []
        for gi, f in enumerate(self.flows):
            field = f"flows[{gi}]"
            if f.protocol != "dx" or isinstance(f.R0, str) or field not in shortest:
                continue
            what, rtt = shortest[field]
            if f.R0 < rtt:
                out.append(f"{field}.R0 = {time_str(f.R0)} is below the propagation RTT of its path ({what}"
                           f"{fmt_time(rtt, 12, sep='')}): every RTT sample exceeds R0, which DX reads as queueing "
                           'delay, so its window stays at its floor; use R0 = "path" or "min"')
            elif most_q is not None and f.R0 - longest[field] > most_q:
                out.append(f"{field}.R0 = {time_str(f.R0)} is above the propagation RTT of its path "
                           f"({fmt_time(longest[field], 12, sep='')}) by more than the bottleneck's buffer can delay a "
                           f"packet ({fmt_time(most_q, 4, sep='')}): no round's mean RTT exceeds R0, so DX never "
                           'decreases and only losses stop it; use R0 = "path" or "min"')
        return out

    def _poisson_offer(self, w: "Workload", rates: dict, host_rate: Callable[[str], float]) -> tuple[dict, float, float]:
        """A Poisson workload's arrivals as the engine draws them: each sender's share of them (in
        proportion to its host-link rate with link = "hosts", else uniform; the senders are
        distinct: validated), the bit/s they offer on the wire in all (load x the capacity its
        load is of x the wire's factor, headers included), and that factor, (E[S] + header x
        E[packets]) / E[S]. ``rates``: :meth:`Network.link_rates`; ``host_rate``: a host's links'
        summed rate."""
        net = self.network
        mean_b = w.sizes.mean_bytes(net.packet_bytes, net.header_bytes)
        wire = (mean_b + net.header_bytes * w.sizes.mean_packets(net.packet_bytes, net.header_bytes)) / mean_b
        senders = list(w.senders)
        if w.link == HOST_LINKS:
            base = sum(map(host_rate, senders))
            share = {s: host_rate(s) / base for s in senders}
        else:
            a, b = (x.strip() for x in w.link.split("->"))
            base = rates[(a, b)]
            share = {s: 1 / len(senders) for s in senders}
        return share, w.load * base * wire, wire

    def _acks_per_payload(self, w: "Workload") -> float:
        """ACK bytes on the wire per payload byte of workload ``w``'s flows, at the least its
        classes send: one ACK of header_bytes (the engine's ACK; SACK options add to it) per
        delayed_ack.segments packets (1 without delayed ACKs), E[packets] x header_bytes /
        (segments x E[S]). DCTCP's CE state machine and timeouts only add ACKs."""
        net = self.network
        segments = max((c._flow.delayed_ack.segments if c._flow.delayed_ack is not None else 1) for c in w.classes())
        mean_k = w.sizes.mean_packets(net.packet_bytes, net.header_bytes)
        return mean_k * net.header_bytes / (segments * w.sizes.mean_bytes(net.packet_bytes, net.header_bytes))

    def _poisson_offering(self) -> list[tuple[int, "Workload"]]:
        """The Poisson workloads with senders, receivers and a link their load is of: (index, it)."""
        return [(wi, w) for wi, w in enumerate(self.workloads)
                if w.kind == "poisson" and w.senders and w.receivers and w.link is not None]

    def _fabric_tier_warnings(self) -> list[str]:
        """Poisson workloads that together offer a leaf-spine's or fat-tree's inner links more than
        they carry: an oversubscribed fabric saturates there, not at the host links the other
        warnings check (a review: a leaf-spine of 2:1 at load 0.9 offered its uplinks 163 % without
        a word, and its FCTs described a fabric whose queues grew for the whole run).

        Sender s draws receiver r with p(s, r) = share(s) / k_s (k_s: the receivers other than s).
        Every uplink of a ToR (leaf or edge) is on a shortest path to every host outside it, and
        ECMP splits each flow's choice evenly at every switch, so each of the n uplinks of ToR t
        carries, of the offered bit/s, (|R| - |R under t|) x A_t / n, with A_t the sum of
        share(s) / k_s over the senders under t; each of its n downlinks |R under t| x (A - A_t)
        / n (A: over every sender), the upstream splits being even as well; and each link the ACKs
        of the data on the other way's (:meth:`_acks_per_payload`). A fat-tree's pod to its cores
        likewise, over its (k/2)^2 aggregation-core links."""
        net = self.network
        if net.topology not in FABRIC_TIERS:
            return []
        if net.topology == "leaf_spine" and net.leaves == 1:
            # Every host is under leaf0: no shortest path crosses a spine (a review found such a
            # fabric accepted without a word, its spine ports reported idle as if measured).
            return [f"network.leaves = 1: every host is under leaf0, so no path crosses a spine and the "
                    f"{count_shown(net.spines, 'spine')} and their links carry nothing; give leaves >= 2 for "
                    f"a fabric"]
        poisson = self._poisson_offering()
        if not poisson:
            return []
        rates = net.link_rates()
        host_rate = net.host_rates(rates).__getitem__
        # (tier, its lower and upper levels, the group whose links add up (a ToR, a pod), ToRs per
        # group, uplinks per group, groups)
        if net.topology == "leaf_spine":
            per, tiers = net.hosts_per_leaf, [("leaf_spine", "leaf", "spine", "leaf", 1, net.spines, net.leaves)]
        else:
            half = net.k // 2
            per = half
            tiers = [("edge_agg", "edge", "agg", "edge", 1, half, net.k * half),
                     ("agg_core", "agg", "core", "pod ", half, half * half, net.k)]
        # bit/s offered to each group's uplinks and downlinks, per tier, and who offers them
        up = {t[0]: [0.0] * t[-1] for t in tiers}
        down = {t[0]: [0.0] * t[-1] for t in tiers}
        who: list[int] = []
        for wi, w in poisson:
            share, offered, wire = self._poisson_offer(w, rates, host_rate)
            ack = self._acks_per_payload(w) / wire  # the ACKs of the data going the other way
            rset = set(w.receivers)
            nr = len(rset)
            for tier, _, _, _, tors, n_up, groups in tiers:
                a_g, r_g = [0.0] * groups, [0] * groups
                for s_, ps in share.items():
                    a_g[int(s_[1:]) // per // tors] += ps / (nr - (s_ in rset))
                for r in rset:
                    r_g[int(r[1:]) // per // tors] += 1
                a_all = sum(a_g)
                for g in range(groups):
                    data_up = offered * (nr - r_g[g]) * a_g[g] / n_up
                    data_down = offered * r_g[g] * (a_all - a_g[g]) / n_up
                    up[tier][g] += data_up + ack * data_down
                    down[tier][g] += data_down + ack * data_up
            who.append(wi)
        out = []
        for tier, low, high, group, _, n_up, _ in tiers:
            rate = net.tier_rate(tier)
            x, way, g = max(((bps / rate, way, g) for way, per_g in (("up", up[tier]), ("down", down[tier]))
                             for g, bps in enumerate(per_g)), key=lambda t: t[0])  # the first of the busiest
            if x < 1:
                continue
            links = f"{low}->{high}" if way == "up" else f"{high}->{low}"
            named = f"{group}{g}'s {way}links"
            by = (f"workloads[{who[0]}]: load {self.workloads[who[0]].load:g} offers" if len(who) == 1 else
                  f"workloads {', '.join(f'[{i}]' for i in who)} together offer")
            fix = ("network.oversubscription, or network.tiers.leaf_spine.rate" if tier == "leaf_spine"
                   else f"network.tiers.{tier}.rate")
            out.append(f"{by} the {links} links up to {100 * x:.0f} % of their capacity on the wire ({named}, "
                       f"{count_shown(n_up, 'link')} of {fmt_rate(rate)}): flows queue inside the fabric and the FCTs "
                       f"grow with the run's length; lower the load, or raise the tier's capacity ({fix})")
        return out

    def _workload_load_warnings(self) -> list[str]:
        """Poisson workloads that offer a link more than it carries, or whose load does not mean
        what it says. ``load`` is of payload (the engine's lambda = load x C / (8 E[S]), as S13's
        ``traffic_gen.py``), so on the wire every link carries it times
        (E[S] + header x E[packets]) / E[S] (:meth:`Sizes.mean_packets`): 1.4 with 100 B flows,
        which a load of 0.9 pushed to 126 % of the link while the run said 90 % (a review). Each
        arrival's sender is drawn uniformly (in proportion to its host-link rate with
        link = "hosts") and its receiver uniformly among the others, so a host link may take more
        than the load; warned, per workload, for the busiest sender and receiver (a review: 12
        senders at 0.5 to 4 receivers offered them 150 %; h6 sending only to h7 of two receivers
        offered h7 108 % where the average said 95 %). A named link that some sender-receiver
        pairs never cross carries less than ``load``, and its ``realised_load`` (all generated
        bytes over its capacity) overstates it.

        A host's link toward the fabric also carries the ACKs of the flows it receives, and its
        link from the fabric those of the flows it sends: at least one ACK of header_bytes per
        delayed_ack.segments packets (:meth:`_acks_per_payload`; a review: all-to-all 50 KB flows
        at load 0.96, 98.7 % of data on the wire and 101.4 % with the ACKs, were not warned)."""
        poisson = self._poisson_offering()
        if not poisson:
            return []
        out: list[str] = []
        net = self.network
        adj, rates, hosts = net.adjacency(), net.link_rates(), set(net.host_names())
        host_rate = net.host_rates(rates).__getitem__  # all of a host's links, as the engine's load base

        def pct(x: float) -> str:
            return f"{100 * x:.0f} %"

        for wi, w in poisson:
            mean_b = w.sizes.mean_bytes(net.packet_bytes, net.header_bytes)
            mean_k = w.sizes.mean_packets(net.packet_bytes, net.header_bytes)
            senders, receivers = list(w.senders), list(w.receivers)
            share, offered, wire = self._poisson_offer(w, rates, host_rate)
            # Into each receiver: sender s picks r with probability 1 / (receivers other than s).
            # Into r: the sum over senders s != r of p_s / k_s, k_s = receivers other than s.
            rset = set(receivers)
            nr = len(rset)
            each = {s: ps / (nr - (s in rset)) for s, ps in share.items()}
            every = sum(each.values())
            into = {r: every - each.get(r, 0.0) for r in rset}
            # Each host link's share of the offered bit/s: its data, and the ACKs of the other way's.
            ack = self._acks_per_payload(w) / wire  # ACK bits on the wire per data bit on the wire
            up = {h: (share.get(h, 0.0) + ack * into.get(h, 0.0)) * offered / host_rate(h) for h in share}
            down = {r: (into[r] + ack * share.get(r, 0.0)) * offered / host_rate(r) for r in rset}
            busiest_in = max(rset, key=lambda r: (down[r], r))
            x_in = down[busiest_in]
            busiest_out = max(share, key=lambda s: (up[s], s))
            x_out = up[busiest_out]
            acks_in = " and the ACKs of the flows they receive" if ack and rset & set(share) else ""
            if w.link == HOST_LINKS:
                of = "the senders' host links"
                x_link = x_out  # the busiest sender's link (each at load x wire without ACKs)
            else:
                a, b = (x.strip() for x in w.link.split("->"))
                of = f"link {a}->{b}"
                x_link, acks_in = w.load * wire, ""
            headers = (f"{net.header_bytes} B of headers per packet, {mean_k:.3g} packet{'' if mean_k == 1 else 's'} per flow of "
                       f"{fmt_bytes(mean_b)} on average{acks_in}")
            saturated = x_link >= 1
            if saturated:
                out.append(f"workloads[{wi}].load: {w.load:g} is of payload; with {headers}, {of} carries "
                           f"{'up to ' if acks_in else ''}{pct(x_link)} of {'their' if w.link == HOST_LINKS else 'its'} "
                           "capacity on the wire: its queue grows for as long as the arrivals last; lower load")
            if x_out >= 1 and w.link != HOST_LINKS:
                out.append(f"workloads[{wi}]: load {w.load:g} of {of}, shared by {count_shown(len(senders), 'sender')}, "
                           f"offers {busiest_out}'s host link {pct(x_out)} of its capacity on the wire: its flows "
                           "queue in the host and the FCTs grow with the run's length; lower load, or add senders")
            if x_in > 1 and not (saturated and x_in <= x_link * (1 + 1e-9)):  # not the same news twice
                out.append(f"workloads[{wi}]: load {w.load:g} of {of} ({count_shown(len(senders), 'host')}) offers the "
                           f"receivers' host links ({count_shown(nr, 'host')}) up to {pct(x_in)} of their capacity "
                           f"on the wire ({busiest_in}): flows pile up at the receivers and the FCTs grow with the "
                           "run's length; lower load, or add receivers")
            elif w.link == HOST_LINKS and x_in >= RECEIVER_SKEW * (
                    avg_in := sum(down[r] * host_rate(r) for r in rset) / sum(host_rate(r) for r in rset)):
                # Receivers are drawn uniformly, senders by their link rate: on hosts of several rates
                # a slow receiver gets as many flows as a fast one (a review: 37 % into a 1 Gbps host
                # beside 10 Gbps ones at load = 0.05, without a word). Against the receivers' average,
                # so that fewer receivers than senders on equal links is not taken for it (a review).
                out.append(f"workloads[{wi}]: load {w.load:g} of the senders' host links offers {busiest_in}'s host "
                           f"link {pct(x_in)} of its capacity on the wire, {RECEIVER_SKEW:g} x or more the receivers' "
                           f"{pct(avg_in)} on average: receivers are drawn uniformly whatever their link rates, so a "
                           "host on a slower link receives as many flows as one on a faster link; choose receivers of "
                           "one rate, or give the slow ones a workload of their own")
            if w.link != HOST_LINKS:
                missed = _pairs_off_link(adj, hosts, senders, receivers, a, b)
                if missed:
                    (s, r), n = missed[0], len(missed)
                    pairs = sum(len(rset) - (x in rset) for x in set(senders))
                    out.append(f"workloads[{wi}].link: {n} of {count_shown(pairs, 'sender-receiver pair')} never cross {a}->{b} "
                               f"(e.g. {s} -> {r}), so it carries less than load = {w.load:g} of its capacity and the "
                               "workloads table's realised_load (all generated bytes over its capacity) overstates "
                               "it; list only senders and receivers whose paths cross it")
        return out

    def _initial_rto_warnings(self) -> list[str]:
        """Flows whose retransmission timer, before its first RTT sample, fires about when their
        first ACK can return: the engine starts the RTO at max(1 ms, min_rto), as the data-center
        ns-2 scripts do (``rtxcur_init_`` = ``minrto_``), and a propagation RTT near it times out
        once for nothing. One DCTCP flow, 1 Gbps, RTT 12 ms, ns2 profile (min_rto 10 ms): one
        timeout, no drop, 7.0 Mbps of goodput in 100 ms against 244 Mbps with min_rto 200 ms.
        Said from a propagation RTT of 80 % of that RTO: serialisation and queueing add to it.
        Listed flows, and workloads on a dumbbell, a tree or a fabric (their longest path)."""
        floor_s = ENGINE_DEFAULTS["initial_rto_floor_ps"] / 1e12
        longest: dict[str, tuple[str, str, float]] = {}
        for label, field, what, rtt in self._labelled_path_rtts():
            if label is not None and label.startswith("flows[") and rtt > longest.get(label, ("", "", -1.0))[2]:
                longest[label] = (field, what, rtt)
        groups = [(f"flows[{gi}]", f, longest.get(f"flows[{gi}]")) for gi, f in enumerate(self.flows)]
        if self.workloads:
            widest = self._longest_host_rtt()
            groups += [(f"workloads[{wi}]" + (f".mix[{ci}]" if w.mix is not None else ""), c._flow, widest)
                       for wi, w in enumerate(self.workloads) for ci, c in enumerate(w.classes())]
        out = []
        for label, f, path in groups:
            if path is None or f.min_rto is None:
                continue
            field, what, rtt = path
            rto = max(floor_s, f.min_rto)
            if rtt >= INITIAL_RTO_WARN_FRACTION * rto:
                given = "given" if "min_rto" in f.model_fields_set else f"the {f.profile} profile's"
                out.append(f"{label}: before its first RTT sample the retransmission timer fires {time_str(rto)} after a "
                           f"segment is sent (min_rto = {time_str(f.min_rto)}, {given}{', at least 1 ms' if f.min_rto < floor_s else ''}; "
                           f"the data-center ns-2 scripts' rtxcur_init_), but the first ACK cannot return before "
                           f"{what or 'the RTT '}{fmt_time(rtt, 12, sep='')} ({field}) plus serialisation and queueing: a "
                           f"spurious timeout (the window restarts from one segment, ssthresh halved); set min_rto well "
                           f"above the RTT")
        return out

    def _longest_host_rtt(self) -> Optional[tuple[str, str, float]]:
        """The longest propagation RTT between two hosts that a workload may pair, as ``(field,
        what, RTT in s)``: a dumbbell's longest ``network.rtt``, a tree's ``network.rtt``, a
        fabric's first and last hosts (different leaves or pods: the most hops); None elsewhere."""
        net = self.network
        if net.topology == "dumbbell":
            return ("network.rtt", "", max(net.rtt_list))
        if net.topology == "tree":
            return ("network.rtt", "", net.rtt)
        if net.topology in FABRIC_TIERS:
            hosts = net.host_names()
            hops = net.fabric_hops(hosts[0], hosts[-1]) if len(hosts) > 1 else None
            if hops is not None:
                return ("network.delay", f"the propagation RTT of {hosts[0]} -> {hosts[-1]} ",
                        2 * sum(net.tier_delay(t) for t in hops))
        return None

    def _ack_warnings(self, where: str) -> list[str]:
        """ECN-capable flows whose pure ACKs are Not-ECT (``ect_acks`` left at the ns2 profile's
        false) on a fabric, where ACKs share switch queues with other flows' data: a marking queue
        drops them at its threshold, and lost ACKs end in retransmission timeouts (a k = 8 fat-tree
        at 50 % web search: 366 RTOs and p99 slowdown 361, against none and 16 with ECT ACKs)."""
        out = []
        for field, f, _ in self._flow_groups():
            if f.ecn_capable() and not f.ect_acks and "ect_acks" not in f.model_fields_set:
                out.append(f"{field}: its pure ACKs are Not-ECT (ect_acks = false, the {f.profile} profile's) and share "
                           f"switch queues with other flows' data ({where}): a marking queue drops them where it would mark "
                           f"them (a threshold queue: at K), and lost ACKs end in retransmission timeouts; set ect_acks = "
                           f"true (as Linux DCTCP) to have them marked")
        return out

    def path_rtts(self) -> list[tuple[str, str, float]]:
        """The propagation round-trip time of each listed flow's path (``[[flows]]`` and
        ``[[l2.sources]]``), as ``(field to change, what, RTT in s)``: dumbbell: ``network.rtt``
        of the sender; tree: ``network.rtt`` across racks, half of it within one; parking lot:
        2 x (two host links' ``host_delay`` + ``delay`` per hop of the chain); graph: 2 x the sum of
        the link delays along the shortest path (hop count, as the engine routes; of several, the
        one with the least delay)."""
        return [(field, what, rtt) for _, field, what, rtt in self._labelled_path_rtts()]

    def _labelled_path_rtts(self) -> list[tuple[Optional[str], str, str, float]]:
        """:meth:`path_rtts` with the flow each comes from first (``flows[i]``, ``l2.sources[i]``;
        None for a dumbbell's longest RTT when it has no listed flow); a validated scenario's once."""
        if self._path_rtts is not None:
            return self._path_rtts
        out = self._compute_path_rtts()
        if self._validated:
            self._path_rtts = out
        return out

    def _compute_path_rtts(self) -> list[tuple[Optional[str], str, str, float]]:
        net = self.network
        out: list[tuple[Optional[str], str, str, float]] = []
        if net.topology == "dumbbell":
            rtts = net.rtt_list
            for info in self.expanded_flows():
                out.append((f"flows[{info.group}]", "network.rtt", "", rtts[int(info.src[1:])] if len(rtts) > 1 else rtts[0]))
            if not out:
                out = [(None, "network.rtt", "", max(rtts))]
            return out
        pairs = [(f"flows[{gi}]", f.src, f.dst) for gi, f in enumerate(self.flows)]
        if self.l2 is not None:
            pairs += [(f"l2.sources[{i}]", x.src, x.dst) for i, x in enumerate(self.l2.sources)]
        if net.topology == "tree":
            rack = net.rack_of()
            for field, a, b in pairs:
                across = rack.get(a) != rack.get(b) or (net.racks or 1) == 1
                out.append((field, "network.rtt", "" if across else "the RTT within a rack ", net.rtt if across else net.rtt / 2))
            return out
        if net.topology in FABRIC_TIERS:
            for field, a, b in pairs:
                hops = net.fabric_hops(a, b)
                if hops is not None:
                    rtt = 2 * sum(net.tier_delay(t) for t in hops)
                    out.append((field, "network.delay", f"the propagation RTT of {a} -> {b} ", rtt))
            return out
        if net.topology == "parking_lot":
            at, sw = net.attach or {}, net.switch_names()
            for field, a, b in pairs:
                if a in at and b in at:
                    hops = abs(sw.index(at[a]) - sw.index(at[b]))
                    rtt = 2 * (2 * net.host_delay + hops * net.delay)
                    out.append((field, "network.delay", f"the propagation RTT of {a} -> {b} ", rtt))
            return out
        delay: dict[tuple[str, str], float] = {}
        for link in net.links or []:
            delay[(link.a, link.b)] = delay[(link.b, link.a)] = link.delay
        adj, hosts = net.adjacency(), set(net.host_names())
        one_way: dict[tuple[str, str], Optional[float]] = {}  # one search per distinct pair
        for field, a, b in pairs:
            if (a, b) not in one_way:
                one_way[(a, b)] = _shortest_path_delay(adj, delay, a, b, hosts)
            d = one_way[(a, b)]
            if d is not None:
                out.append((field, field, f"the propagation RTT of its path {a} -> {b} ", 2 * d))
        return out

    def _monitor_warnings(self) -> list[str]:
        """The default monitored ports cut short: their queue series did not fit metrics.max_memory
        even at the coarsest automatic sampling, so the engine samples the first of them that fit
        (the engine's fit_sampling, made with the engine JSON)."""
        if self.metrics.monitor is not None:
            return []
        self.to_engine_json()  # made once for a validated scenario; it records the fit
        if self._monitor_first is None:
            return []
        every = len(self.network.default_monitored_ports())
        return [f"metrics.monitor: the queue series of all {every} ports monitored by default would not fit "
                f"metrics.max_memory = {self.metrics.max_memory.value / 1e6:g} MB beside the rest of the run, even at "
                f"1 000 samples a port (or the queue_interval chosen); the first {self._monitor_first} of them are "
                f"sampled (the ports table's `monitored` column); name the ports to watch in metrics.monitor, or "
                f"raise metrics.max_memory"]

    def _interval_warnings(self) -> list[str]:
        """A sampling interval written out that is longer than the run after warm-up: its series has
        at most one sample there (a review: queue_interval = 10ms in a 2 ms run gave one sample, at
        t = 0, and a queue figure of an empty queue beside a 75-packet one)."""
        span = float(self.run.duration) - float(self.run.warmup)
        out = []
        for name in ("queue_interval", "throughput_interval", "cwnd_interval"):
            v = getattr(self.metrics, name)
            if v != "auto" and float(v) > span:
                out.append(f"metrics.{name}: {time_str(v)} is longer than the run after warm-up "
                           f"({time_str(span)}): at most one sample there; \"auto\" fits the run")
        return out

    def _trace_warnings(self) -> list[str]:
        """Traced generated flows with a window interval the fit lengthened: the memory plan counts
        each traced flow for the whole run (a generated flow's lifetime is not known before it
        runs), so many traced flows lengthen the automatic interval past the life of short flows."""
        tf = self.metrics.trace_flows
        if self.metrics.cwnd_interval != "auto" or not (isinstance(tf, list) and tf and self.workloads):
            return []  # no generated flow can be traced (nothing is built for the check)
        self.to_engine_json()  # made once for a validated scenario; it records the fit
        if self._trace_fit is None:
            return []
        n, pref_ps, ps = self._trace_fit
        return [f"metrics.cwnd_interval: \"auto\" is {fmt_time(ps / 1e12, 12)}, not {fmt_time(pref_ps / 1e12, 12)}, to fit "
                f"metrics.max_memory: the plan counts each traced flow, the {n} generated ones of metrics.trace_flows "
                f"too, for the whole run; a generated flow shorter than that gets at most one window sample. Trace "
                f"fewer flows, or raise metrics.max_memory"]

    #: Most distinct hosts of L2 sources whose paths :meth:`_l2_path_warnings` searches (a search each).
    L2_PATH_CHECK_HOSTS: ClassVar[int] = 256

    def _l2_path_warnings(self) -> list[str]:
        """A source whose frames cross no congestion point (its rate is never controlled), and a
        congestion point given in l2.cps that no source's frames cross (it sends no feedback): a
        review ran both, the second with 80 % of the frames dropped, without a word. A port is on a
        source's path if it lies on a shortest path (routing is by hop count, ECMP among equals), so
        "none" is exact whatever the hash picks."""
        l2, net = self.l2, self.network
        if l2 is None:
            return []
        hosts = set(net.host_names())
        pairs = list(dict.fromkeys([(f"l2.sources[{i}]", x.src, x.dst) for i, x in enumerate(l2.sources)]
                                   + [(f"l2.poisson[{i}]", x.src, x.dst) for i, x in enumerate(l2.poisson)]))
        ends = {h for _, a, b in pairs for h in (a, b)}
        if len(ends) > self.L2_PATH_CHECK_HOSTS:
            return []
        adj = net.adjacency()
        dist = {h: _hops_from(adj, h, hosts) for h in ends}
        cps = [tuple(x.strip() for x in cp.split("->")) for cp in self._l2_cp_names(hosts)]
        crossed: set = set()
        out = []
        for fld, a, b in pairs:
            d_ab = dist[a].get(b)
            if d_ab is None:
                continue  # refused by the checks (no path)
            on = {cp for cp in cps if cp[0] in dist[a] and cp[1] in dist[b] and dist[a][cp[0]] + 1 + dist[b][cp[1]] == d_ab}
            crossed |= on
            if not on:
                out.append(f"{fld}: {a} -> {b} crosses no congestion point ({', '.join('->'.join(c) for c in cps)}): "
                           "its rate is never controlled")
        if l2.cps is not None:
            for i, cp in enumerate(cps):
                if cp not in crossed:
                    out.append(f"l2.cps[{i}]: {'->'.join(cp)} is on no source's path: it sends no feedback")
        return out

    def _l2_warnings(self) -> list[str]:
        """DSM / SMCC gains outside the DSM paper's admissible ranges, eqs. (23) and (31): allowed
        (instability is worth studying), but said, with the bound that is violated."""
        l2, net = self.l2, self.network
        if l2 is None or l2.scheme not in ("dsm", "smcc"):  # the sliding-mode schemes' bounds
            return []
        from dcsim.theory import dsm as dsm_theory

        # C: the link rate of each congestion point's port (eq. 31 depends on it).
        rates = []
        for cp in self._l2_cp_names(set(net.host_names())):
            a_, b_ = (x.strip() for x in cp.split("->"))
            C = net.link_rate(a_, b_)
            if C is not None and C not in rates:
                rates.append(C)
        # Unset parameters take the engine's defaults.
        d = l2.defaults()
        p = l2.p if l2.p is not None else d["p"]
        omega = l2.omega if l2.omega is not None else d["omega"]
        if l2.scheme == "dsm":
            m = l2.m if l2.m is not None else d["m"]
            a, b, c = dsm_theory.gains_from_h(m, l2.Ha or d["Ha"], l2.Hb or d["Hb"], l2.Hc or d["Hc"])
            given = "from Ha, Hb, Hc"
        else:
            m = 0
            a, b, c = (getattr(l2, x) if getattr(l2, x) is not None else d[x] for x in ("a", "b", "c"))
            unset = [x for x in ("a", "b", "c") if getattr(l2, x) is None]
            given = ("at their defaults" if len(unset) == 3 else "as given" if not unset
                     else f"as given, {', '.join(unset)} the defaults")
        # The detector's T (eq. 25, whose T terms multiply the last m feedbacks: none when m = 0,
        # as SMCC) is the configured one; the sampling period it stands for is 1/(p C) of each
        # congestion point (§III.A): say so where they differ (the default 80 us is §V's 10 Gbps
        # value: at 100 Gbps the period is 8 us).
        T_cfg = l2.T if l2.T is not None else d["T"] / 1e12
        frame = float(l2.frame.value)
        mismatch = []
        for C in rates if m > 0 else []:
            T_C = dsm_theory.sampling_period_s(C, p, frame)
            if abs(T_cfg - T_C) > 0.01 * T_cfg:
                mismatch.append(f"l2: T = {time_str(T_cfg)} is not the sampling period 1/(pC) = {fmt_time(T_C, 6, '')} of a "
                                f"{rate_str(C)} congestion point (p = {p:g}, {frame:g} B frames): eq. (25) then "
                                "counts the wrong time; set T to that period")
        return mismatch + [w for C in rates for w in self._eq31_warnings(C, p, m, omega, a, b, c, given)]

    def _qcn_warnings(self) -> list[str]:
        """QCN's CP at a full, steady queue (Qdelta = 0) computes |Fb| = buffer - Qeq; quantized,
        floor(64 (buffer - Qeq) / (Qeq (2w + 1))) (protocols.md section 1). Below 1 the CP sends
        nothing while its queue stays full: sources at line rate are never slowed and the queue
        drops the excess (a review: qeq = "120KB" in a 128KB buffer, five 10 Gbps sources, 80 % of
        the frames dropped at 100 % utilization; qeq = "100KB", at most qntz = 3, still 35 %)."""
        l2, net = self.l2, self.network
        if l2 is None or l2.scheme != "qcn":
            return []
        d = l2.defaults()
        qeq = float(l2.qeq.value) if l2.qeq is not None else float(d["qeq"])
        w = float(l2.w) if l2.w is not None else float(d["w"])
        out = []
        for cp in self._l2_cp_names(set(net.host_names())):
            a, b = (x.strip() for x in cp.split("->"))
            buf = net.port_buffer(a, b)
            if buf is None:
                continue
            cap = buf.value * (float(l2.frame.value) if buf.unit == "pkt" else 1.0)
            if _core.qcn_quantize(qeq, w, -(cap - qeq)) == 0:  # the engine's quantizer
                most = qeq * (1.0 + (2.0 * w + 1.0) / 64.0)
                out.append(f"l2.qeq: {qeq:g} B leaves congestion point {a}->{b} ({cap:g} B buffer) no feedback at a "
                           f"full, steady queue (|Fb| = buffer - qeq quantizes to 0 of 63): sources that fill it are "
                           f"never slowed and the queue drops the excess; give a buffer of at least {most:g} B or a "
                           f"smaller qeq; the run goes ahead")
        return out

    def _eq31_warnings(self, C: float, p: float, m: int, omega: float, a: float, b: float, c: float,
                       given: str) -> list[str]:
        from dcsim.theory import dsm as dsm_theory

        try:
            r = dsm_theory.admissible_ranges(C, p, m, omega, frame_bytes=float(self.l2.frame.value))
        except ValueError:
            return []
        bounds = {
            "a_eq23": f"a = {a:.4g} 1/s is outside eq. (23)'s 0 < a < 2/T = {r.a_max_eq23:.4g} 1/s",
            "a_eq31": f"a = {a:.4g} 1/s is above eq. (31)'s bound {r.a_max_eq31:.4g} 1/s (|u|max <= C, eq. 27)",
            "b_eq23_lower": f"b = {b:.4g} 1/s is below eq. (23)'s 1/((omega+1)T) = {r.b_min_eq23:.4g} 1/s",
            "b_eq23_upper": f"b = {b:.4g} 1/s is above eq. (23)'s 1/T = {r.b_max_eq23:.4g} 1/s",
            "b_eq31": f"b = {b:.4g} 1/s is above eq. (31)'s bound {r.b_max_eq31:.4g} 1/s (|u|max <= C)",
            "c_eq23": f"c = {c:.4g} 1/s is outside eq. (23)'s 0 < c < 2/T = {r.c_max_eq23:.4g} 1/s",
            "c_eq31": f"c = {c:.4g} 1/s is above eq. (31)'s bound {r.c_max_eq31:.4g} 1/s",
            "omega_eq31": f"omega = {omega:g} is not above eq. (31)'s m + p max(Q_v) - 1 = {r.omega_min_eq31:.4g}",
        }
        ok = dsm_theory.check_parameters(r, a, b, c)
        return [f"l2: {bounds[k]} (gains {given}; T = {1e6 * r.T_s:.4g} us at {rate_str(C)}); the run goes ahead"
                for k, good in ok.items() if not good]

    def to_engine_json(self) -> str:
        """:meth:`to_engine_spec` as JSON. A validated scenario's is built once: `dcsim run`
        checks it, then runs it (a 100 000-flow trace had its spec built and encoded three times)."""
        if self._engine_json is not None:
            return self._engine_json
        spec, text = self._engine_spec()
        text = json.dumps(spec) if text is None else text
        if self._validated:
            self._engine_json = text
        return text

    def _check_listed_flow_count(self) -> None:
        """Listed flows whose state alone exceeds metrics.max_memory, refused before their engine
        spec is built, by :meth:`_engine_spec` itself, so every path to the spec (a run, its
        resource check, the warnings' fit of the window interval) is guarded (each flow costs at
        least the engine's ``listed_flow_bytes``; the engine's own check, which counts the rest too,
        follows). A million listed flows had been refused after 45 s and 2.5 GB, more than the bound
        it enforced (a fuzz run). Called on a validated scenario."""
        n = sum(f.count for f in self.flows)
        per = ENGINE_DEFAULTS["listed_flow_bytes"]
        budget = self.metrics.max_memory.value
        if n * per <= budget:
            return
        field = "flows[0].count" if len(self.flows) == 1 else "flows"
        raise ScenarioError(f"{field}: {n:,} listed flows need at least {n * per / 1e6:,.1f} MB of state ({per / 1e3:.1f} KB "
                            f"each), more than metrics.max_memory = {budget / 1e6:,.1f} MB; allowed at most "
                            f"{int(budget // per):,} listed flows with this budget: raise metrics.max_memory, or "
                            "generate the flows with a workload (whose finished flows are freed)")

    def _check_trace_arrival_count(self) -> None:
        """Traces whose listed flows alone exceed metrics.max_memory, refused before their engine
        spec is built (as :meth:`_check_listed_flow_count`): each flow a trace lists costs the
        engine's ``trace_arrival_bytes`` at the run's peak whether it starts or not (the engine's
        memory plan counts it beside the result rows and names the workload; its check follows).
        Called on a validated scenario."""
        _refuse_trace_arrivals([len(w.arrivals) if w.kind == "trace" else 0 for w in self.workloads],
                               self.metrics.max_memory.value)

    def check_resources(self) -> dict:
        """The engine spec (a new dict), after the engine's own checks that need no run: sizes
        against its documented maxima and the memory bound (metrics.max_memory), made once for a
        validated scenario. Raises ScenarioError."""
        text = self.to_engine_json()
        if not self._resources_checked:
            try:
                _core.validate_spec(text)
            except ValueError as e:
                raise engine_error(e, self) from None
            self._resources_checked = self._validated
        return json.loads(text)

    # -- convenience for reports ---------------------------------------------------------------

    def base_rtt_min_s(self) -> float:
        """The smallest base round-trip propagation delay of the network, s (a graph: twice the
        smallest non-zero link delay; 100 us if every delay is 0)."""
        net = self.network
        if net.topology == "dumbbell":
            return min(net.rtt_list)
        if net.topology == "tree":  # hosts of one rack are half the across-racks RTT apart
            return net.rtt / 2 if (net.racks or 1) > 1 else net.rtt
        if net.topology == "parking_lot":  # two hosts on one switch
            return 4 * net.host_delay if net.host_delay > 0 else 100e-6
        if net.topology in FABRIC_TIERS:  # two hosts on one leaf / edge switch
            d = net.tier_delay("host")
            return 4 * d if d > 0 else 100e-6
        delays = [link.delay for link in net.links if link.delay > 0]
        return 2 * min(delays) if delays else 100e-6

    def marking_threshold_pkt(self) -> Optional[float]:
        """K of a dumbbell with threshold marking, packets (None otherwise)."""
        aqm = self.network.aqm
        if self.network.topology == "dumbbell" and aqm is not None and aqm.K is not None:
            return aqm.K.packets(self.network.packet_bytes)
        return None

    def describe(self) -> str:
        """One line: what runs."""
        net = self.network
        counts: dict[str, int] = {}
        for f in self.flows:
            counts[f.protocol] = counts.get(f.protocol, 0) + f.count
        l2 = [] if self.l2 is None else (
            [f"{sum(x.count for x in self.l2.sources)} x {self.l2.scheme} rate sources"] * bool(self.l2.sources)
            + [f"{self.l2.scheme} Poisson short flows ({', '.join(f'{w.rate:g}/s' for w in self.l2.poisson)})"]
            * bool(self.l2.poisson))
        groups = ", ".join([f"{n} x {p}" for p, n in counts.items()] + [w.describe() for w in self.workloads] + l2)
        if net.topology == "dumbbell":
            rtts = sorted(set(net.rtt_list))
            rtt = time_str(rtts[0]) if len(rtts) == 1 else f"{time_str(rtts[0])}..{time_str(rtts[-1])}"
            aqm = net.aqm.shown()
            where = (
                f"dumbbell, {count_shown(net.senders, 'sender')}, bottleneck {rate_str(net.bottleneck)}, RTT {rtt}, "
                f"buffer {size_shown(net.buffer)}, {aqm}"
            )
        elif net.topology == "tree":
            aqm = net.aqm.shown()
            slow = f", {rate_str(net.bottleneck)} to {', '.join(net.bottleneck_hosts)}" if net.bottleneck else ""
            sizes = net.rack_sizes()
            racks = (f"{count_shown(net.racks, 'rack')} x {count_shown(sizes[0], 'host')}" if len(set(sizes)) == 1 else
                     f"{net.racks} racks of {'+'.join(map(str, sizes))} hosts")
            where = (
                f"tree, {racks}, {rate_str(net.host_link)} links{slow}, "
                f"RTT {time_str(net.rtt)}, buffer {size_shown(net.buffer)}, {aqm}"
            )
        elif net.topology in FABRIC_TIERS:
            buf, aqm = net.tier_queue("host")
            if net.topology == "leaf_spine":
                shape = (f"leaf-spine, {count_shown(net.leaves, 'leaf', 'leaves')} x "
                         f"{count_shown(net.hosts_per_leaf, 'host')}, {count_shown(net.spines, 'spine')}, "
                         f"{rate_str(net.tier_rate('host'))} hosts, ")
                shape += (f"{fmt_rate(net.tier_rate('leaf_spine'), 6, sep='')} uplinks ({net.oversubscription:g}:1)"
                          if net.tier("leaf_spine").rate is None else f"{rate_str(net.tier_rate('leaf_spine'))} uplinks")
            else:
                shape = f"fat-tree k={net.k}, {net.fabric_hosts()} hosts, {rate_str(net.tier_rate('host'))} hosts"
            where = f"{shape}, ECMP, buffer {size_shown(buf)}, {aqm.shown()}"
            # the tiers whose queue differs from the hosts' (a probe: the header said K = 65 pkt of a
            # fabric whose uplinks mark at 130)
            for t in FABRIC_TIERS[net.topology]:
                tb, ta = net.tier_queue(t)
                if t != "host" and (tb != buf or ta != aqm):
                    where += f"; {t.replace('_', '-')} tier: buffer {size_shown(tb)}, {ta.shown()}"
        elif net.topology == "parking_lot":
            where = (f"parking lot, {count_shown(net.switches, 'switch', 'switches')} at {rate_str(net.link)}, "
                     f"{time_str(net.delay)} per hop, {count_shown(len(net.attach), 'host')}, "
                     f"buffer {size_shown(net.buffer)}, {net.aqm.shown()}")
        else:
            where = f"graph, {count_shown(len(net.nodes), 'node')}, {count_shown(len(net.links), 'link')}"
        parts = f", {self.run.partitions} partitions" if self.run.partitions > 1 else ""
        return (f"{groups} over {where}; {time_str(self.run.duration)} (warm-up {time_str(self.run.warmup)}), "
                f"seed {self.run.seed}{parts}")


def _resolve_data_files(data: Any, base: Path) -> None:
    """Files named in a scenario file (a CDF's, a trace's) are relative to that file's directory."""
    if not isinstance(data, dict) or not isinstance(data.get("workloads"), list):
        return
    for w in data["workloads"]:
        sizes = w.get("sizes") if isinstance(w, dict) else None
        for table in (sizes, w):
            if isinstance(table, dict) and isinstance(table.get("file"), str) and not Path(table["file"]).is_absolute():
                table["file"] = str(base / table["file"])


def _shortest_path_delay(adj: dict[str, list[str]], delay: dict[tuple[str, str], float], src: str,
                         dst: str, hosts: "Collection[str]") -> Optional[float]:
    """One-way propagation delay of the path the engine routes ``src -> dst`` on: fewest hops
    through switches (``hosts`` do not forward); among those, the least delay (None: no path)."""
    import heapq

    best: dict[str, tuple[int, float]] = {src: (0, 0.0)}
    todo = [(0, 0.0, src)]
    while todo:
        hops, d, node = heapq.heappop(todo)
        if node == dst:
            return d
        if best.get(node, (hops, d)) < (hops, d) or (node != src and node in hosts):
            continue
        for nxt in adj.get(node, []):
            key = (hops + 1, d + delay.get((node, nxt), 0.0))
            if nxt not in best or key < best[nxt]:
                best[nxt] = key
                heapq.heappush(todo, (*key, nxt))
    return None


#: Names an error message lists at most (a 20 000-host fabric's whole list was 149 KB of text).
NAMES_SHOWN = 20


def _names(names: "Collection[str]") -> str:
    """Names for an error message in natural order (h2 before h10), at most NAMES_SHOWN of them
    and how many there are in all (built only when an error is raised)."""
    ordered = sorted(names, key=_natural_key)
    if len(ordered) <= NAMES_SHOWN:
        return ", ".join(ordered)
    return ", ".join(ordered[:NAMES_SHOWN // 2]) + f", ... {ordered[-1]} ({len(ordered)} in all)"


def _path_exists(net: "Network", adj: Callable[[], dict], src: str, dst: str, hosts: "Collection[str]") -> bool:
    """Whether host src reaches host dst through switches (``hosts`` do not forward, as in the
    engine). Every host of a leaf-spine or fat-tree reaches every other by construction;
    elsewhere a breadth-first search over ``adj()`` (built on first use)."""
    return net.topology in FABRIC_TIERS or _reachable(adj(), src, dst, hosts)


def _reachable(adj: dict[str, list[str]], src: str, dst: str, hosts: "Collection[str]") -> bool:
    return dst in _hops_from(adj, src, hosts)


def _hops_from(adj: dict[str, list[str]], src: str, hosts: "Collection[str]") -> dict[str, int]:
    """Hops from ``src`` to every node it reaches through switches (breadth-first over ``adj``;
    ``hosts`` other than src do not forward, as in the engine, whose routes are by hop count)."""
    dist, todo = {src: 0}, deque([src])
    while todo:
        u = todo.popleft()
        if u != src and u in hosts:
            continue
        for v in adj.get(u, []):
            if v not in dist:
                dist[v] = dist[u] + 1
                todo.append(v)
    return dist


def _pairs_off_link(adj: dict[str, list[str]], hosts: "Collection[str]", senders: list[str], receivers: list[str],
                    a: str, b: str) -> list[tuple[str, str]]:
    """The sender -> receiver pairs (s != r) none of whose shortest paths cross link a -> b (the
    engine routes by hop count, hosts not forwarding; with ECMP over every shortest path, else on
    one of them, so a pair said to cross may still miss it: no false warning, a missed one): a pair
    can cross iff d(s, a) + 1 + d(b, r) = d(s, r). A host endpoint of the link must be the pair's
    own. Hosts with the same neighbours share one breadth-first search (a fabric's rack does)."""
    group: dict[frozenset, str] = {}  # neighbour set -> its first host, whose distances it shares
    dist: dict[str, dict[str, int]] = {}

    def d(x: str, y: str) -> Optional[int]:
        """Hops from host x to node y (None: unreachable)."""
        if x == y:
            return 0
        rep = group.setdefault(frozenset(adj[x]), x)
        if rep not in dist:
            dist[rep] = _hops_from(adj, rep, hosts)
        return dist[rep].get(x if y == rep else y)

    from_b = _hops_from(adj, b, hosts) if b not in hosts else {b: 0}
    missed = []
    for s in dict.fromkeys(senders):
        if a in hosts and a != s:
            missed += [(s, r) for r in dict.fromkeys(receivers) if r != s]
            continue
        da = d(s, a)
        for r in dict.fromkeys(receivers):
            if r == s:
                continue
            dr, db = d(s, r), from_b.get(r) if (b not in hosts or b == r) else None
            if da is None or dr is None or db is None or da + 1 + db != dr:
                missed.append((s, r))
    return missed


def engine_error(e: ValueError, scenario: Optional["Scenario"] = None) -> "ScenarioError":
    """An error of the engine's checks as the scenario's: the engine names its own fields, and an
    L2 parameter's is not the user's (``l2.scheme.h_a_hz`` -> ``l2.Ha``); a workload's transport
    is its one class in the engine (``workloads[0].mix[0].g``), the user's ``workloads[0].g``
    unless the workload has a mix."""
    text = re.sub(r"\bl2\.scheme\.(\w+)", lambda m: f"l2.{L2_FIELD_NAMES.get(m[1], m[1])}", str(e))
    if scenario is not None:
        plain = {i for i, w in enumerate(scenario.workloads) if w.mix is None}
        text = re.sub(r"\bworkloads\[(\d+)\]\.mix\[0\]\.",
                      lambda m: f"workloads[{m[1]}]." if int(m[1]) in plain else m[0], text)
    return ScenarioError(text)


def _read_text(path: Path, what: str = "scenario") -> str:
    """The text of a scenario file (or another of the user's TOML files, ``what``: "sweep"): UTF-8,
    a byte-order mark (Windows editors write one) dropped; a clear ScenarioError if it is missing,
    too large or not UTF-8 text."""
    from dcsim._files import read_at_most

    limit = 64 * 2**20
    try:
        raw = read_at_most(path, limit)
    except OSError as e:
        inside = path / "scenario.toml"
        run_dir = False
        with contextlib.suppress(OSError):  # the probe can fail as the read did (a name too long)
            run_dir = what == "scenario" and path.is_dir() and inside.is_file()
        hint = f"; a run's output directory: run {inside}" if run_dir else ""
        raise ScenarioError(f"{_path_shown(path)}: cannot read the {what} file ({e.strerror or e}){hint}") from None
    if raw is None:
        raise ScenarioError(f"{path}: more than 64 MiB is not a {what} file (allowed at most {limit} bytes of TOML)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ScenarioError(
            f"{path}: not a text file: byte 0x{raw[e.start]:02x} at offset {e.start} is not UTF-8; "
            f"a {what} file is a UTF-8 TOML file"
        ) from None
    if "\x00" in text:
        raise ScenarioError(f"{path}: not a text file (it contains NUL bytes); a {what} file is a UTF-8 TOML file")
    return text


def _other_file_kind(data: dict) -> Optional[str]:
    """What a table without [network] is, if it is one of dcsim's other files (a sweep file, a
    run's engine_spec.json or summary.json), as an error that names the way to run it."""
    if "base" in data and "axes" in data:
        return ("base, axes: these are a sweep's keys; this is a sweep file, not a scenario: run it with "
                "`dcsim sweep FILE` (in Python: dcsim.sweep.load_sweep and run_sweep)")
    if "duration_ps" in data and "topology" in data:
        return ("duration_ps, topology: this is the engine spec a run writes (engine_spec.json), not a scenario: "
                "run the scenario.toml written beside it")
    if "scenario" in data and "events" in data and "wall_s" in data:
        return ("scenario, events, wall_s: this is a run's summary (summary.json), not a scenario: run the "
                "scenario.toml written beside it")
    return None


def _check_changes(changes: Any, who: str) -> None:
    """``changes`` is None or a table of dotted path (text) -> value; else a ScenarioError naming
    ``who`` (load_scenario(changes=[1]) raised a bare TypeError: a review)."""
    if changes is None:
        return
    if not isinstance(changes, Mapping):
        raise ScenarioError(f"{who}: expected a table of path = value, got {type(changes).__name__}")
    for path in changes:
        if not isinstance(path, str):
            raise ScenarioError(f"{who}: {path!r} is not a path; write it as text, e.g. \"network.aqm.K\"")


def load_scenario(path: Union[str, Path], changes: Optional[dict] = None) -> Scenario:
    """Load a scenario file: ``.toml`` (the usual), or ``.json`` of the same shape; files it names
    are relative to it. ``changes`` (dotted path -> value, as :meth:`Scenario.replace` takes them;
    `dcsim run --set`) are made to the file's tables before they are validated, so they may fix or
    replace what the file gives (another trace file where its own is missing)."""
    path = Path(path)
    return Scenario.from_dict(_file_tables(path, changes, json_file=path.suffix.lower() == ".json"))


def _file_tables(path: Path, changes: Optional[dict], json_file: bool) -> dict:
    """The tables of scenario file ``path`` (TOML, or JSON), the files they name made relative to
    it, with ``changes`` made (:func:`apply_changes`): what is then validated."""
    text = _read_text(path)
    try:
        data = json.loads(text) if json_file else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as e:  # (json's error is a ValueError)
        raise ScenarioError(f"{path}: not valid {'JSON' if json_file else 'TOML'}: {e}") from None
    except RecursionError:  # the parsers recurse per level of nesting
        raise ScenarioError(f"{path}: nested too deeply to be a scenario (allowed at most {MAX_NESTING} levels)") from None
    _resolve_data_files(data, path.parent)  # (its shape is checked by Scenario.from_dict)
    _check_changes(changes, "changes")
    updates = plain(dict(changes or {}))
    return apply_changes(data, updates) if updates else data


#: A path inside a fabric tier's queue discipline (``network.tiers.leaf_spine.aqm.K``).
_TIER_AQM_PATH = re.compile(r"network\.tiers\.(\w+)\.aqm\.\w+")


def _inherit_tier_aqm(data: dict, path: Any) -> dict:
    """``data`` ready for a change inside a fabric tier's queue discipline (``network.tiers.NAME.aqm.K``):
    a tier without an ``aqm`` of its own runs the one it inherits (``network.aqm``), so the change
    starts from a copy of that, as a change of ``network.aqm.K`` starts from ``network.aqm``. Without
    it the change had made the tier a drop-tail queue with a K ("not a parameter of aqm kind
    'droptail'", though the tier ran threshold marking: a review)."""
    m = _TIER_AQM_PATH.fullmatch(path) if isinstance(path, str) else None
    net = data.get("network") if m else None
    if not isinstance(net, dict) or net.get("aqm") is None:
        return data
    tiers = net.get("tiers")
    tier = tiers.get(m.group(1)) if isinstance(tiers, dict) else None
    if tier is not None and (not isinstance(tier, dict) or tier.get("aqm") is not None):
        return data  # the tier's own (or not a table: validation says so)
    from dcsim.paths import set_path

    inherited = net["aqm"]
    inherited = dict(inherited) if isinstance(inherited, dict) else {"kind": inherited}
    return set_path(data, f"network.tiers.{m.group(1)}.aqm", inherited)


def apply_changes(data: dict, updates: dict) -> dict:
    """``data`` (a scenario's tables) with ``updates`` (dotted path -> value) made: a new protocol
    or queue discipline drops the old one's options unless the updates give them, and another file drops what the
    scenario holds from its old one (a CDF's points, a trace's arrivals). Raises
    :class:`ScenarioError` naming a path that is not one."""
    from dcsim.paths import PathError, get_path, set_path

    # A change inside a tier's inherited queue starts from network.aqm as the other changes leave it,
    # whatever the order they were given in (a review: a tier had copied the discipline before an axis
    # on network.aqm changed it): such paths go last, in their order.
    last = [p for p in updates if isinstance(p, str) and _TIER_AQM_PATH.fullmatch(p)]
    updates = {**{p: v for p, v in updates.items() if p not in last}, **{p: updates[p] for p in last}}
    for path, value in updates.items():
        try:
            data = _inherit_tier_aqm(data, path)
            data = set_path(data, path, value)
        except PathError as e:
            raise ScenarioError(str(e)) from None
        m = (re.fullmatch(r"(flows\[\d+\]|workloads\[\d+\](?:\.mix\[\d+\])?)\.protocol", path)
             if isinstance(path, str) else None)
        if m and isinstance(value, str) and value in PROTOCOLS:
            # A new protocol: drop the old one's options, unless this change gives them too (a
            # [[flows]] group, a workload or a mix class alike).
            table = m.group(1)
            foreign = set(PROTOCOL_UNITS) - set(PROTOCOL_PARAMS[value])
            group = dict(get_path(data, table))
            for key in foreign & set(group):
                if f"{table}.{key}" not in updates:
                    del group[key]
            data = set_path(data, table, group)
        m = re.fullmatch(r"(network\.(?:aqm|tiers\.\w+\.aqm|links\[\d+\]\.aqm))\.kind", path) if isinstance(path, str) else None
        if m and isinstance(value, str) and value in AQM_KINDS:
            # A new queue discipline: drop the old one's parameters, unless this change gives them.
            table = m.group(1)
            held = dict(get_path(data, table))
            for key in (set(AQM_UNITS) - set(AQM_PARAMS[value])) & set(held):
                if f"{table}.{key}" not in updates:
                    del held[key]
            data = set_path(data, table, held)
        if isinstance(path, str) and path.endswith(".file"):
            # Another file: what it holds (a CDF's points, a trace's arrivals) replaces what the
            # scenario holds from the file it was loaded with.
            table = path[: -len(".file")]
            held = get_path(data, table)
            if isinstance(held, dict):
                kept = {k: v for k, v in held.items() if k not in FILE_CONTENTS or f"{table}.{k}" in updates}
                data = set_path(data, table, kept)
    return data


# --------------------------------------------------------------------------------------------
# A small TOML writer for the scenario shape (tables, arrays of tables, inline tables, scalars).


def _toml_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, TraceFlows):  # as the list of its tables would be written, faster
        if len(v) <= _INLINE_ROWS_ON_ONE_LINE:
            return _toml_scalar([v.written(j) for j in range(len(v))])
        return "[\n" + "".join(v.toml_lines()) + "]"
    if isinstance(v, list):
        if len(v) > _INLINE_ROWS_ON_ONE_LINE and all(isinstance(x, dict) for x in v):
            return "[\n" + "".join(f"  {_toml_scalar(x)},\n" for x in v) + "]"  # a trace's flows: one a line
        return "[" + ", ".join(_toml_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_scalar(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


#: Longest array of inline tables written on one line (a mix's classes); a longer one (a trace's
#: flows) has one table a line.
_INLINE_ROWS_ON_ONE_LINE = 8
#: A string that is written between quotes as it is: no quotation mark, backslash or control
#: character (TOML 1.0 basic strings; U+007F included, which JSON leaves unescaped).
_TOML_PLAIN = re.compile(r'[^"\\\x00-\x1f\x7f]*\Z')


def _toml_str(s: str) -> str:
    """A TOML basic string: quoted as it is when nothing needs an escape (a trace's millions of
    times, hosts and sizes), else JSON's escapes, which TOML shares, and U+007F's."""
    if _TOML_PLAIN.match(s):
        return f'"{s}"'
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def _toml_table(path: str, d: dict, out: list[str]) -> None:
    nested, lines = [], []
    for k, v in d.items():
        if isinstance(v, dict) and (not path or any(isinstance(x, (dict, list)) for x in v.values())):
            nested.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            nested.append((k, v))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_scalar(v)}")
    if path and (lines or not nested):
        out.append(f"[{path}]")
    out.extend(lines)
    if lines:
        out.append("")
    for k, v in nested:  # keep the key order: [network], [[flows]], [run], [metrics]
        name = f"{path}.{_toml_key(k)}" if path else _toml_key(k)
        if isinstance(v, dict):
            _toml_table(name, v, out)
        else:
            for item in v:
                out.append(f"[[{name}]]")
                out.extend(f"{_toml_key(kk)} = {_toml_scalar(vv)}" for kk, vv in item.items())
                out.append("")


def _toml_dumps(d: dict) -> str:
    out: list[str] = []
    # top level: scalars would go first; our shape has only tables, written in a fixed order
    _toml_table("", d, out)
    return "\n".join(out).rstrip() + "\n"
