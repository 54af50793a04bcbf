"""What a sweep is: a base scenario, axes over dotted paths, a combination rule and seeds.

A sweep file (TOML)::

    base = "dctcp_dumbbell.toml"     # a scenario file, relative to this file; or an inline [base] table
    combine = "grid"                 # "grid": every combination (default); "zip": the i-th values together
    seeds = 3                        # run.seed = 1, 2, 3 (seed_base = 1); or a list [1, 7, 42]

    [set]                            # fixed changes to the base (optional)
    "run.duration" = "50ms"
    "run.warmup" = "10ms"            # shorter than the duration (the base file's is 50ms)

    [axes]
    "network.aqm.K" = ["20pkt", "40pkt", "65pkt"]
    "flows[0].g" = [0.0625, 0.125]
    "network.senders, flows[0].count" = [[2, 2], [10, 10]]   # linked axis: several paths move together

Every combination is validated (:class:`~dcsim.scenario.Scenario`) before anything runs; each
run is keyed by :func:`run_key`, a content hash of its engine spec, the dcsim version and the code
that computes it (:func:`code_id`).

CDF files (``sizes = { kind = "cdf", file = "my.cdf" }``) are relative to the file that names
them, as in ``dcsim run``: the base scenario file's folder for its own workloads, the sweep file's
folder for an inline ``[base]``, ``[set]`` and the axes (the current directory for Python values
without a file). The plan reads each CDF file once and carries its points inline. A trace file
(``workloads = [{kind = "trace", file = "flows.csv"}]``) stays a file, by its absolute path: the
plan parses each once for all the combinations (:class:`~dcsim.scenario.DataFiles`) and keeps its
SHA-256. The sweep sends a worker on another machine (Dask) its content with the run, and stores
it once in OUT/traces/, where each run's directory links it beside its scenario.toml
(:meth:`~dcsim.sweep.store.RunStore.keep_trace`). So no worker needs a shared filesystem or another
current directory.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import itertools
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from dcsim.paths import PathError, format_path, model_path_error, parse_path, set_path
from dcsim.units import count_shown

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11 only
    import tomli as tomllib

__all__ = [
    "SweepError",
    "Axis",
    "SweepSpec",
    "Plan",
    "PlannedRun",
    "load_sweep",
    "plan_sweep",
    "run_key",
    "MAX_RUNS",
    "MAX_RUNS_WITHOUT_YES",
    "COMBINE",
]

#: More runs than this need ``yes=True`` / ``--yes``.
MAX_RUNS_WITHOUT_YES = 100_000
#: No sweep has more runs than this: its plan holds each combination's scenario (~2 KB) and
#: validates it (~1 ms), so 10^6 runs take ~2 GB and ~17 minutes before the first run starts.
MAX_RUNS = 1_000_000
COMBINE = ("grid", "zip")
SWEEP_KEYS = ("base", "combine", "seeds", "seed_base", "set", "axes")
#: Hex digits of the key that make a run id (64 bits: a collision among 10^6 runs has odds ~3e-8).
RUN_ID_HEX = 16


class SweepError(ValueError):
    """An invalid sweep (or one that cannot start); ``str(err)`` names the axis or key."""


@dataclass(frozen=True)
class Axis:
    """One axis: a path (or several linked paths) and its steps, one value per path in each step."""

    paths: tuple[str, ...]
    steps: tuple[tuple[Any, ...], ...]

    @property
    def name(self) -> str:
        """As written in a sweep file: ``"network.aqm.K"`` or ``"network.senders, flows[0].count"``."""
        return ", ".join(self.paths)

    def __len__(self) -> int:
        return len(self.steps)

    def label(self, step: int) -> str:
        """``network.aqm.K = "20pkt"`` for error messages."""
        return ", ".join(f"{p} = {_show(v)}" for p, v in zip(self.paths, self.steps[step]))


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, (str, bool)) or v is None else str(v)


@dataclass
class SweepSpec:
    """A sweep: ``base`` (TOML-shaped scenario dict), fixed ``set`` changes, ``axes``, seeds."""

    base: dict
    axes: list[Axis]
    combine: str = "grid"
    seeds: Optional[list[int]] = None
    set: dict = field(default_factory=dict)
    base_name: str = "<inline>"
    #: Folder that relative CDF file paths in ``set`` / the axes (and an inline base) are read
    #: from: the sweep file's; None = the current directory.
    files_dir: Optional[Path] = None

    def to_dict(self) -> dict:
        """JSON-ready description (written to OUT/sweep.json for provenance)."""
        return {
            "base": self.base,
            "base_name": self.base_name,
            "set": self.set,
            "axes": {a.name: [list(s) if len(a.paths) > 1 else s[0] for s in a.steps] for a in self.axes},
            "combine": self.combine,
            "seeds": self.seeds,
        }


# --------------------------------------------------------------------------------------------
# Building a spec (from a file or from Python arguments)


def _flatten_keys(d: Mapping, prefix: str = "") -> dict[str, Any]:
    """``{"network": {"aqm": {"K": [...]}}}`` (TOML's unquoted dotted keys) -> ``{"network.aqm.K": [...]}``."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            out.update(_flatten_keys(v, key))
        else:
            out[key] = v
    return out


def _set_changes(d: Mapping, prefix: str = "") -> dict[str, Any]:
    """A sweep's ``set`` as path -> value. A key written as a path (``"network.aqm"``, with a dot or
    an index) takes its value whole, a table too, as ``dcsim run --set 'network.aqm={...}'``
    does: the base's table is replaced, not merged. A plain key is a TOML table (``[set.network]``
    or the unquoted ``network.aqm.K = ...``), whose keys are paths below it."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping) and not re.search(r"[.\[]", str(k)):
            out.update(_set_changes(v, key))
        else:
            out[key] = v
    return out


#: Collections without an order: as axis values they would give the runs and the table's rows in
#: an order that changes from one process to the next (string hashing is salted per process).
_UNORDERED = (builtins.set, frozenset, type({}.keys()), type({}.values()), type({}.items()))


def _check_axis_length(label: Any, values: Any) -> None:
    """An axis of more values than a sweep may have runs is refused before it is copied or checked
    value by value (a range(10**9) would otherwise fill the memory); a set is refused for having no
    order."""
    if isinstance(values, _UNORDERED):
        raise SweepError(f"axis {label}: a set of values has no order (the runs and the table's rows would come "
                         "in another order in each process); give a list, e.g. sorted(values)")
    try:
        n = len(values)
    except TypeError:  # a generator: counted as it is read
        return
    if n > MAX_RUNS:
        raise SweepError(f"axis {label}: {n:,} values; a sweep has at most {MAX_RUNS:,} runs; split it into several "
                         "sweeps")


def _setting_key(v: Any) -> Any:
    """What an axis value sets, for spotting one setting written twice: numbers by value (1 and
    1.0), a string with a unit by its quantity ("10pkt" and "10 pkt", "1ms" and "1000us"), lists
    (linked axes) value by value, anything else by its JSON text."""
    from dcsim.units import UnitError, parse_rate, parse_size, parse_time

    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("number", v)  # 1 == 1.0, and they hash alike
    if isinstance(v, str):
        found = []
        for kind, fn in (("time", parse_time), ("rate", parse_rate), ("size", parse_size)):
            try:
                q = fn(v, "axis")
            except UnitError:
                continue
            found.append((kind, (q.unit, q.value) if kind == "size" else q))
        return ("quantity", *found[0]) if len(found) == 1 else ("text", v)  # a bare number parses as each kind
    if isinstance(v, (list, tuple)):
        return ("list", tuple(_setting_key(x) for x in v))
    return ("json", json.dumps(v, sort_keys=True, default=repr))


def _axis(name: Union[str, Sequence[str]], values: Any) -> Axis:
    if isinstance(name, str):
        paths = tuple(p.strip() for p in name.split(","))
    elif isinstance(name, (tuple, list)) and all(isinstance(p, str) for p in name):
        paths = tuple(p.strip() for p in name)
    else:
        raise SweepError(f"axes: key {name!r} is not a path; write a dotted path such as \"network.aqm.K\" (or a "
                         "tuple of linked paths)")
    label = ", ".join(paths)
    if not paths or any(not p for p in paths):
        raise SweepError(f"axis {label!r}: empty path; write a dotted path such as \"network.aqm.K\"")
    for p in paths:
        try:
            parse_path(p)
        except PathError as e:
            raise SweepError(f"axis {label}: {e}") from None
    if len(set(paths)) != len(paths):
        raise SweepError(f"axis {label}: a path appears twice")
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise SweepError(f"axis {label}: expected a list of values, got {_show(values) if not isinstance(values, Mapping) else 'a table'}")
    _check_axis_length(label, values)
    values = list(itertools.islice(values, MAX_RUNS + 1))  # a generator is not sized before this
    if len(values) > MAX_RUNS:
        raise SweepError(f"axis {label}: more than {MAX_RUNS:,} values; a sweep has at most {MAX_RUNS:,} runs; split it "
                         "into several sweeps")
    if not values:
        raise SweepError(f"axis {label}: empty list of values; give at least one value")
    seen: dict[Any, int] = {}
    for i, v in enumerate(values):
        if isinstance(v, _UNORDERED):
            raise SweepError(f"axis {label}: value [{i}] is a set, which has no order; give a list")
        key = _setting_key(v)
        if key in seen:  # the same runs twice, shown as two seeds of one combination
            raise SweepError(f"axis {label}: value [{i}] = {_show(v)} is the same setting as value [{seen[key]}] = "
                             f"{_show(values[seen[key]])}; give each value once (seeds repeat runs)")
        seen[key] = i
    if len(paths) == 1:
        steps = tuple((v,) for v in values)
    else:
        steps_l = []
        for i, v in enumerate(values):
            if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable) or len(list(v)) != len(paths):
                raise SweepError(
                    f"axis {label}: value [{i}] = {_show(v) if not isinstance(v, Mapping) else 'a table'} is not a list of "
                    f"{len(paths)} values (one per linked path)"
                )
            steps_l.append(tuple(v))
        steps = tuple(steps_l)
    return Axis(paths, steps)


def _seeds(seeds: Any, seed_base: Any) -> Optional[list[int]]:
    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if seeds is None:
        if seed_base is not None:
            raise SweepError("seed_base: only with seeds = N (seeds seed_base .. seed_base + N - 1)")
        return None
    if seed_base is None:
        seed_base = 1
    if not is_int(seed_base) or not (0 <= seed_base < 2**64):
        raise SweepError(f"seed_base: {seed_base!r} is out of range; allowed an integer 0 .. 2^64-1")
    if is_int(seeds):
        if seeds < 1:
            raise SweepError(f"seeds: {seeds} is out of range; allowed a number of seeds >= 1, or a list of seeds")
        # The count before the list: seeds = 10^9 had filled 24 GB building it (a fuzz run).
        if seeds > MAX_RUNS:
            raise SweepError(f"seeds: {seeds:,} is out of range; a sweep has at most {MAX_RUNS:,} runs, so allowed "
                             f"1 .. {MAX_RUNS:,} seeds; split it into several sweeps")
        if seed_base + seeds - 1 >= 2**64:
            raise SweepError(f"seeds: seed_base + seeds - 1 = {seed_base + seeds - 1} is out of range; allowed seeds < 2^64")
        return list(range(seed_base, seed_base + seeds))
    if isinstance(seeds, (list, tuple)):
        if not seeds:
            raise SweepError("seeds: empty list; give at least one seed, or a number of seeds")
        for i, s in enumerate(seeds):
            if not is_int(s) or not (0 <= s < 2**64):
                raise SweepError(f"seeds[{i}]: {s!r} is out of range; allowed integers 0 .. 2^64-1")
        if len(set(seeds)) != len(seeds):
            raise SweepError(f"seeds: {list(seeds)} repeats a seed; give each seed once")
        if seed_base not in (None, 1) and seed_base != 1:
            raise SweepError("seed_base: only with seeds = N, not with a list of seeds")
        return list(seeds)
    raise SweepError(f"seeds: {seeds!r} is not a number of seeds or a list of seeds")


def make_spec(
    base: Any,
    axes: Mapping[Any, Any],
    *,
    combine: str = "grid",
    seeds: Any = None,
    seed_base: Any = None,
    set: Optional[Mapping[str, Any]] = None,
    base_dir: Optional[Path] = None,
) -> SweepSpec:
    """A :class:`SweepSpec` from Python values (the arguments of :func:`dcsim.sweep`).

    ``base`` is a :class:`~dcsim.scenario.Scenario`, a dict of the TOML shape, or a scenario file
    path (relative to ``base_dir`` if given). ``axes`` maps a path (or a tuple of linked paths, or
    ``"path1, path2"``) to its list of values.
    """
    from dcsim.scenario import Scenario, ScenarioError, _read_text, _resolve_data_files, plain

    if isinstance(axes, Mapping):  # an axis too long for any sweep is refused before it is copied
        for k, v in axes.items():
            _check_axis_length(k, v)
    base, axes, seeds, seed_base, set = plain(base), plain(axes), plain(seeds), plain(seed_base), plain(set)
    base_name = "<inline>"
    if isinstance(base, Scenario):
        try:
            base_d = base._revalidated().to_dict()
        except ScenarioError as e:
            raise SweepError(f"base: {e}") from None
    elif isinstance(base, Mapping):
        base_d = dict(base)
    elif isinstance(base, (str, Path)):
        p = Path(base)
        if base_dir is not None and not p.is_absolute():
            p = base_dir / p
        base_name = str(p)
        try:
            text = _read_text(p)
        except ScenarioError as e:
            raise SweepError(f"base: {e}") from None
        try:
            base_d = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as e:
            raise SweepError(f"base: {p} is not valid {'JSON' if p.suffix.lower() == '.json' else 'TOML'}: {e}") from None
        if not isinstance(base_d, dict):
            raise SweepError(f"base: {p} is not a table of the scenario's shape")
        if "axes" in base_d or "base" in base_d:
            raise SweepError(f"base: {p} is a sweep file (it has {'axes' if 'axes' in base_d else 'a base'}); the base is "
                             "a scenario file, such as the base that sweep file names")
        # CDF files named in the base file are relative to its folder (as for `dcsim run`).
        _resolve_data_files(base_d, p.parent.absolute())
        # Not validated alone: set and the axes may complete it; every combination is validated.
    else:
        raise SweepError(f"base: expected a scenario (Scenario, table or file path), got {type(base).__name__}")
    if combine not in COMBINE:
        raise SweepError(f"combine: {combine!r} is not one of {', '.join(COMBINE)}")
    if not isinstance(axes, Mapping):
        raise SweepError("axes: expected a table of path = [values]")
    flat_axes: dict[Any, Any] = {}
    for k, v in axes.items():
        if isinstance(k, str) and isinstance(v, Mapping):
            flat_axes.update({f"{k}.{kk}": vv for kk, vv in _flatten_keys(v).items()})
        else:
            flat_axes[k] = v
    ax = [_axis(k, v) for k, v in flat_axes.items()]
    if not ax:
        raise SweepError('axes: no axes; give at least one, e.g. "network.aqm.K" = ["20pkt", "65pkt"]')
    if set is not None and not isinstance(set, Mapping):
        raise SweepError(f"set: expected a table of path = value, got {_show(set)}")
    sets = _set_changes(set or {})
    seen: dict[tuple, str] = {}
    for name, paths in [("set", (p,)) for p in sets] + [(a.name, a.paths) for a in ax]:
        for p in paths:
            parts = parse_path(p) if name != "set" else _set_parts(p)
            for other_parts, other in seen.items():
                n = min(len(parts), len(other_parts))
                if parts[:n] == other_parts[:n]:
                    what = f"axis {name}" if name != "set" else f"set {p}"
                    raise SweepError(f"{what}: overlaps {other} ({format_path(other_parts)}); each field may be set once")
            seen[parts] = f"axis {name}" if name != "set" else f"set {p}"
    def axis_sets_seed(a: Axis) -> bool:
        # run.seed itself, or a whole run table with a seed in some step (a review: seeds overrode it silently)
        return any(parse_path(p) == ("run", "seed")
                   or (parse_path(p) == ("run",) and any(isinstance(st[i], Mapping) and "seed" in st[i] for st in a.steps))
                   for i, p in enumerate(a.paths))

    seed_list = _seeds(seeds, seed_base)
    seed_axis = next((a for a in ax if axis_sets_seed(a)), None)
    if seed_axis is not None and seed_list is not None:
        raise SweepError(f"axis {seed_axis.name}: sets run.seed; give either run.seed in an axis or seeds, not both "
                         "(seeds replace every run's seed)")
    def sets_seed(p: str) -> bool:
        parts = _set_parts(p)
        return parts == ("run", "seed") or (parts == ("run",) and isinstance(sets[p], Mapping) and "seed" in sets[p])

    if seed_list is not None and any(sets_seed(p) for p in sets):
        raise SweepError("set run.seed: give either run.seed in set or seeds, not both (seeds replace every run's seed)")
    if combine == "zip":
        lengths = {a.name: len(a) for a in ax}
        if len(builtins.set(lengths.values())) > 1:
            detail = ", ".join(f"{n} has {k}" for n, k in lengths.items())
            raise SweepError(f"axes: combine = \"zip\" needs axes of equal length; {detail}")
    # Every path must name a scenario field (a typo is caught here, once, not per combination).
    for name, paths in [("set", (p,)) for p in sets] + [(a.name, a.paths) for a in ax]:
        for p in paths:
            err = model_path_error(Scenario, p)
            if err:
                what = f"axis {name}" if name != "set" else "set"
                raise SweepError(f"{what}: no such scenario field: {err}")
    return SweepSpec(base=base_d, axes=ax, combine=combine, seeds=seed_list, set=sets, base_name=base_name,
                     files_dir=Path(base_dir).absolute() if base_dir is not None else None)


def _set_parts(p: str) -> tuple:
    try:
        return parse_path(p)
    except PathError as e:
        raise SweepError(f"set: {e}") from None


def load_sweep(path: Union[str, Path]) -> SweepSpec:
    """Read and check a sweep file (the base scenario too); raises :class:`SweepError`."""
    from dcsim.scenario import ScenarioError, _read_text

    path = Path(path)
    try:
        text = _read_text(path, "sweep")
    except ScenarioError as e:
        raise SweepError(str(e)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not valid TOML: {e}") from None
    import difflib

    if "base" not in data and "axes" not in data and "network" in data:
        raise SweepError(f"{path}: a scenario file ([network], no base or axes), not a sweep: run it with "
                         f"`dcsim run {path}`; to sweep it, write a sweep file with base = \"{path.name}\" and an [axes] "
                         "table (see examples/sweep_k.toml)")
    for k in data:
        if k not in SWEEP_KEYS:
            close = difflib.get_close_matches(k, SWEEP_KEYS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SweepError(f"{k}: unknown key in the sweep file; {hint}allowed keys: {', '.join(SWEEP_KEYS)}")
    if "base" not in data:
        raise SweepError('base: required; a scenario file (base = "scenario.toml") or an inline [base] table')
    if "axes" not in data:
        raise SweepError('axes: required; an [axes] table of path = [values], e.g. "network.aqm.K" = ["20pkt", "65pkt"]')
    base = data["base"]
    if not isinstance(base, (str, dict)):
        raise SweepError("base: expected a scenario file path or an inline [base] table")
    if not isinstance(data.get("set", {}), dict):
        raise SweepError("set: expected a table of path = value")
    if not isinstance(data["axes"], dict):
        raise SweepError("axes: expected a table of path = [values]")
    spec = make_spec(
        base,
        data["axes"],
        combine=data.get("combine", "grid"),
        seeds=data.get("seeds"),
        seed_base=data.get("seed_base"),
        set=data.get("set"),
        base_dir=path.parent,
    )
    return spec


# --------------------------------------------------------------------------------------------
# Expansion and validation


@functools.lru_cache(maxsize=None)
def code_id() -> str:
    """The code a run's results come from: the SHA-256 of the engine's sources, built into the
    extension (``dcsim._core.__engine_sources__``, crates/dcsim-py/build.rs), and the SHA-256 of
    the dcsim package's Python files (the summary row is computed in Python), each by relative path.
    The same on every machine that installed the same dcsim; another build of changed code gives
    another id, so a run it cached is computed again (the version alone stays 0.1.0 across them)."""
    import dcsim
    from dcsim import _core

    engine = getattr(_core, "__engine_sources__", None)
    if engine is None:  # an extension built before the sources' hash existed
        raise RuntimeError("the dcsim engine (dcsim._core) is older than its Python package; rebuild it with "
                           "`pip install -e .` or `maturin develop --release`")
    return f"engine {engine} python {python_sources_digest(Path(dcsim.__file__).parent)}"


def python_sources_digest(root: Path) -> str:
    """SHA-256 (hex) over (relative path, length, bytes) of the .py files under ``root``, sorted by
    path, leaving out hidden directories (an editor's or a notebook's checkpoints)."""
    h = hashlib.sha256()
    files = [p for p in root.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(root).parts)]
    for p in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        data = p.read_bytes()
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def run_key(engine_spec: Mapping, version: Optional[str] = None, summary_inputs: Optional[Mapping] = None) -> str:
    """sha256 (hex) of the canonical engine spec JSON (sorted keys, no spaces), the dcsim version,
    the code that computes the run (:func:`code_id`), the results' format
    (:data:`dcsim.schema.RESULTS_FORMAT`) and the scenario's settings the summary row reads beyond
    the engine spec (:func:`dcsim.result.summary_inputs`: the FCT buckets)."""
    from dcsim.schema import RESULTS_FORMAT

    if version is None:
        from dcsim import __version__ as version
    text = json.dumps(engine_spec, sort_keys=True, separators=(",", ":"), allow_nan=False)
    summary = json.dumps(dict(summary_inputs or {}), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(
        f"{text}\ndcsim {version}\ncode {code_id()}\nresults {RESULTS_FORMAT}\nsummary {summary}".encode()
    ).hexdigest()


@dataclass
class PlannedRun:
    """One run of the sweep: the ``combo``-th combination with ``seed``."""

    index: int
    combo: int
    seed: int
    key: str

    @property
    def run_id(self) -> str:
        return self.key[:RUN_ID_HEX]


@dataclass
class Plan:
    """The validated runs of a sweep, in row order (combinations in order, seeds innermost)."""

    spec: SweepSpec
    combos: list[tuple[int, ...]]
    scenarios: list[dict]
    runs: list[PlannedRun]
    seed_path: tuple = ("run", "seed")
    #: The scenarios' warnings (:meth:`dcsim.Scenario.warnings`): each distinct message -> the
    #: combinations it concerns (the runs go ahead; the sweep says each once).
    warnings: dict = field(default_factory=dict)
    #: Each combination's trace files: workload index -> (absolute path, SHA-256 of the content
    #: the plan validated).
    traces: list = field(default_factory=list)
    #: The data files the plan read (:class:`~dcsim.scenario.DataFiles`): its last traces, parsed.
    files: Any = None
    #: Each combination's run.max_wall, s (None: unbounded); not in the engine spec, so runs of
    #: combinations that differ only in it share one computation (see :meth:`runner`).
    max_wall_s: list = field(default_factory=list)

    def runner(self, runs: list["PlannedRun"]) -> "PlannedRun":
        """Which of ``runs`` (one engine spec) computes it: the one with the largest run.max_wall
        (none: unbounded), so no combination's run fails for a bound another combination set."""
        if not self.max_wall_s:
            return runs[0]
        return max(runs, key=lambda r: math.inf if self.max_wall_s[r.combo] is None else self.max_wall_s[r.combo])

    def scenario(self, run: PlannedRun) -> dict:
        """The TOML-shaped scenario of ``run`` (base + set + axes + seed): CDF files are inline
        points, trace files absolute paths (:meth:`trace_files`)."""
        return set_path(self.scenarios[run.combo], self.seed_path, run.seed)

    def trace_files(self, run: PlannedRun) -> dict[int, tuple[str, str]]:
        """The trace files ``run``'s scenario names: workload index -> (absolute path, SHA-256)."""
        return self.traces[run.combo] if self.traces else {}

    def warning_scope(self, combos: list[int]) -> str:
        """" (in 3 of 10 combinations: network.aqm.K = "10pkt", ...)" for a warning that concerns
        only some combinations; "" when it concerns all of them."""
        if len(combos) == len(self.combos):
            return ""
        first = ", ".join(self.label(c) for c in combos[:2]) + (", ..." if len(combos) > 2 else "")
        return f" (in {len(combos)} of {len(self.combos)} combinations: {first})"

    def axis_values(self, combo: int) -> dict[str, Any]:
        """``{path: value}`` of a combination, in axis order."""
        out: dict[str, Any] = {}
        for a, step in zip(self.spec.axes, self.combos[combo]):
            out.update(zip(a.paths, a.steps[step]))
        return out

    def label(self, combo: int) -> str:
        return ", ".join(a.label(step) for a, step in zip(self.spec.axes, self.combos[combo]))

    @property
    def unique_keys(self) -> int:
        return len({r.key for r in self.runs})


def count_runs(spec: SweepSpec) -> int:
    """Number of runs: combinations times seeds."""
    if spec.combine == "zip":
        n = len(spec.axes[0])
    else:
        n = math.prod(len(a) for a in spec.axes)
    return n * (len(spec.seeds) if spec.seeds else 1)


def _resolve_files(d: dict, files_dir: Optional[Path], cache: dict) -> dict:
    """``d`` with every ``workloads[i].sizes = {kind = "cdf", file = F}`` replaced by the file's
    points, read once per file through ``cache``, and every trace's ``workloads[i].file = F`` made
    an absolute path (F relative to ``files_dir``, or the current directory). A CDF file that
    cannot be read is left as an absolute path: validation then names the field and the reason."""
    from dcsim.scenario import read_cdf

    works = d.get("workloads")
    if not isinstance(works, list):
        return d

    def absolute(f: str) -> Path:
        p = Path(f)
        return (p if p.is_absolute() else (files_dir if files_dir is not None else Path.cwd()) / p).absolute()

    new_works = None
    for i, w in enumerate(works):
        if not isinstance(w, dict):
            continue
        new = w
        if w.get("kind") == "trace" and isinstance(w.get("file"), str):
            new = {**w, "file": str(absolute(w["file"]))}
        sizes = w.get("sizes")
        if isinstance(sizes, dict) and isinstance(sizes.get("file"), str) and "points" not in sizes and "name" not in sizes:
            f = absolute(sizes["file"])  # (a file with other sources is left to validation, which says so)
            if f not in cache:
                try:
                    cache[f] = [list(pt) for pt in read_cdf(f)]
                except ValueError:
                    cache[f] = None
            new_sizes = {k: v for k, v in sizes.items() if k != "file"}
            if cache[f] is None:
                new_sizes["file"] = str(f)
            else:
                new_sizes["points"] = cache[f]
            new = {**new, "sizes": new_sizes}
        if new is not w:
            if new_works is None:
                new_works = list(works)
            new_works[i] = new
    return d if new_works is None else {**d, "workloads": new_works}


def _trace_files(d: dict, digests: Mapping[str, str]) -> dict[int, tuple[str, str]]:
    """The trace files of a validated scenario ``d`` (:func:`_resolve_files`): workload index ->
    (absolute path, SHA-256 of the content read, from ``digests``)."""
    works = d.get("workloads")
    return {i: (w["file"], digests[w["file"]]) for i, w in enumerate(works if isinstance(works, list) else [])
            if isinstance(w, dict) and w.get("kind") == "trace" and isinstance(w.get("file"), str)}


def _error_field(line: str) -> str:
    return line.split(": ", 1)[0].strip()


def _under(field: str, path: str) -> bool:
    """Whether the error field ``field`` is ``path`` or inside it."""
    return field == path or field.startswith(path + ".") or field.startswith(path + "[")


def axes_hidden_by_tiers(axes, base: dict) -> list[str]:
    """Warnings for axes on a network-wide field (``network.aqm...``, ``network.buffer``,
    ``network.delay``) that a tier of the base sets for its own links, when no axis sweeps the
    tier's field too: those links keep the tier's value in every run (a README walkthrough swept
    network.aqm.K on the leaf-spine example, whose leaf_spine tier keeps K = 130pkt, and was not told)."""
    from dcsim.scenario import Network, Tier

    tiers = (base.get("network") or {}).get("tiers")
    if not isinstance(tiers, dict):
        return []
    # the network-wide fields a tier overrides under the same name (a tier's rate stands for host_link
    # or the derived leaf-spine rate, which are not axes of the same path)
    overridden = [f for f in Tier.model_fields if f in Network.model_fields]
    paths = [p for a in axes for p in a.paths]
    out = []
    for a in axes:
        for path in a.paths:
            head = path.split(".")
            if len(head) < 2 or head[0] != "network" or head[1] not in overridden:
                continue
            fld = head[1]
            own = [t for t, v in tiers.items() if isinstance(v, dict) and fld in v
                   and not any(q == f"network.tiers.{t}.{fld}" or q.startswith(f"network.tiers.{t}.{fld}.") for q in paths)]
            if own:
                where = ", ".join(f"network.tiers.{t}.{fld}" for t in own)
                out.append(f"axis {a.name}: {count_shown(len(own), 'tier')} {'sets its' if len(own) == 1 else 'set their'} own "
                           f"{fld} ({where}), which this axis does not change: those links keep it in every run; move "
                           f"both with a linked axis (\"{path}, {where.split(', ')[0]}{path[len('network.' + fld):]}\" = "
                           "[[a, b], ...]), or drop the tier's value")
    return out


def plan_sweep(spec: SweepSpec, *, yes: bool = False, progress=None) -> Plan:
    """Expand and validate every combination; raises :class:`SweepError` listing the invalid ones.

    ``progress(done, total)`` is called during validation (the slow part of a very large sweep:
    about 0.7 ms per combination on a dumbbell with the engine's own size and memory checks, the
    seeds of a combination share one validation).
    """
    from dcsim import __version__
    from dcsim.result import summary_inputs
    from dcsim.scenario import DataFiles, Scenario, ScenarioError, apply_changes, reading_files

    n_runs = count_runs(spec)
    sizes = " x ".join(f"{a.name} ({len(a)})" for a in spec.axes)
    if spec.combine == "zip":
        sizes = f"zip of {len(spec.axes[0])} steps"
    seeds = f" x {count_shown(len(spec.seeds), 'seed')}" if spec.seeds else ""
    if n_runs > MAX_RUNS:
        raise SweepError(
            f"axes: the sweep has {n_runs:,} runs ({sizes}{seeds}); allowed at most {MAX_RUNS:,} (the plan holds and "
            "validates every combination before the first run: ~2 KB and ~1 ms each); split it into several sweeps"
        )
    if n_runs > MAX_RUNS_WITHOUT_YES and not yes:
        raise SweepError(
            f"axes: the sweep has {n_runs:,} runs ({sizes}{seeds}); more than {MAX_RUNS_WITHOUT_YES:,} runs "
            f"need --yes (Python: yes=True)"
        )
    try:
        base = apply_changes(dict(spec.base), dict(spec.set))
    except ScenarioError as e:
        raise SweepError(f"set: {e}") from None
    for a in spec.axes:  # a path that is none (an index past the base's list), named by its axis
        for p, v in zip(a.paths, a.steps[0]):
            try:
                set_path(base, p, v)
            except PathError as e:
                raise SweepError(f"axis {a.name}: {e}") from None
    if spec.combine == "zip":
        combos = [tuple([i] * len(spec.axes)) for i in range(len(spec.axes[0]))]
    else:
        combos = list(itertools.product(*[range(len(a)) for a in spec.axes]))

    scenarios: list[dict] = []
    traces: list[dict[int, tuple[str, str]]] = []
    max_wall_s: list[Optional[float]] = []
    runs: list[PlannedRun] = []
    cdf_cache: dict = {}  # CDF file -> its points, read once per sweep
    files = DataFiles()  # each trace file parsed once for every combination
    invalid: dict[str, list[int]] = {}  # error text -> the combinations it hits
    warned: dict[str, list[int]] = {}  # warning text -> the combinations it concerns
    for ci, combo in enumerate(combos):
        updates = {p: v for a, step in zip(spec.axes, combo) for p, v in zip(a.paths, a.steps[step])}
        # As `dcsim run --set`: a new protocol drops the old one's options (the base's g), another
        # file what the base holds from its old one.
        d = apply_changes(base, updates)
        d = _resolve_files(d, spec.files_dir, cdf_cache)
        scenarios.append(d)
        try:
            with reading_files(files):
                sc = Scenario.from_dict(d)
            eng = sc.check_resources()  # as `dcsim run`: the engine's size and memory checks too
        except ScenarioError as e:
            for line in str(e).splitlines():  # one entry per distinct field error
                invalid.setdefault(line, []).append(ci)
            traces.append({})
            continue
        traces.append(_trace_files(d, files.digests))
        max_wall_s.append(sc.run.max_wall)
        for w in sc.warnings():
            warned.setdefault(w, []).append(ci)
        if not invalid:  # keys only while everything is valid (the plan is dropped otherwise)
            # The seed is the engine spec's "seed" and nothing else: one validation per combination.
            row_inputs = summary_inputs(sc)
            for s in spec.seeds if spec.seeds is not None else [eng["seed"]]:
                runs.append(PlannedRun(index=len(runs), combo=ci, seed=int(s),
                                       key=run_key(dict(eng, seed=s), __version__, row_inputs)))
        if progress is not None and (ci % 256 == 255 or ci == len(combos) - 1):
            progress(ci + 1, len(combos))
    if invalid:
        raise SweepError(_invalid_message(spec, combos, invalid))
    for w in axes_hidden_by_tiers(spec.axes, base):
        warned.setdefault(w, list(range(len(combos))))
    return Plan(spec=spec, combos=combos, scenarios=scenarios, runs=runs, warnings=warned, traces=traces, files=files,
                max_wall_s=max_wall_s)


class _EveryValue:
    """:func:`_blame`'s answer when an error's field lies under an axis's path in every value of it."""

    def __init__(self, tables: bool) -> None:
        self.tables = tables

    def hint(self, path: str) -> str:
        return (f": a table as an axis value replaces the base's whole {path} table; give the fields it keeps, or "
                f"sweep the field itself, e.g. {path}.<field>" if self.tables else "")


def _blame(spec: SweepSpec, combos: list[tuple[int, ...]], msg: str, hits: list[int]) -> Optional[tuple[str, Any]]:
    """The axis value an error belongs to: the axis whose path holds the error's field, else the
    one axis value present in exactly the combinations the error hits (e.g. ``network.buffer =
    "10pkt"`` when the base's marking threshold K is larger)."""
    fields = [_error_field(line) for line in msg.splitlines()]
    first = combos[hits[0]]
    for ai, a in enumerate(spec.axes):
        for pi, p in enumerate(a.paths):
            if any(_under(f, p) for f in fields) and all(combos[ci][ai] == first[ai] for ci in hits):
                return p, a.steps[first[ai]][pi]
    for ai, a in enumerate(spec.axes):  # every value of one axis hit, its path holding the error's field
        if {combos[ci][ai] for ci in hits} != set(range(len(a))):
            continue
        for pi, p in enumerate(a.paths):
            if any(_under(f, p) for f in fields):
                tables = all(isinstance(st[pi], dict) for st in a.steps)
                return p, _EveryValue(tables)
    hit_set = set(hits)
    for ai, a in enumerate(spec.axes):
        step = first[ai]
        if all(combos[ci][ai] == step for ci in hits) and sum(1 for c in combos if c[ai] == step) == len(hit_set):
            if len(a) > 1:
                return a.name, a.steps[step] if len(a.paths) > 1 else a.steps[step][0]
    return None


def _invalid_message(spec: SweepSpec, combos: list[tuple[int, ...]], invalid: dict[str, list[int]]) -> str:
    """One line per distinct error: the axis value it belongs to (or a combination), then the field error."""
    lines = []
    for msg, hits in invalid.items():
        one = msg.replace("\n", "; ")
        blame = _blame(spec, combos, msg, hits)
        if blame is not None and isinstance(blame[1], _EveryValue):
            where = f"axis {blame[0]} (every value{blame[1].hint(blame[0])})"
        elif blame is not None:
            where = f"axis {blame[0]} = {_show(blame[1]) if not isinstance(blame[1], tuple) else list(blame[1])}"
            if len(hits) > 1:
                where += f" (in {len(hits)} combinations)"
        elif len(hits) == len(combos):
            where = "every combination (the base with its set changes)"
        else:
            where = f"combination {plan_label(spec, combos[hits[0]])}" + (f" (and {len(hits) - 1} more)" if len(hits) > 1 else "")
        lines.append(f"{where}: {one}")
    n_bad = len({ci for hits in invalid.values() for ci in hits})
    head = "" if len(lines) == 1 else f"{n_bad} of {len(combos)} combinations are invalid:\n"
    shown = lines[:10] + ([f"... and {len(lines) - 10} more distinct errors"] if len(lines) > 10 else [])
    return head + "\n".join(shown)


def plan_label(spec: SweepSpec, combo: tuple[int, ...]) -> str:
    return ", ".join(a.label(step) for a, step in zip(spec.axes, combo))
