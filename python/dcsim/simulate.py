"""``simulate(scenario) -> Result``: run the Rust packet-level engine on a scenario."""

from __future__ import annotations

import numbers
import os
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Union

if TYPE_CHECKING:  # imported lazily: `import dcsim` must stay fast (pandas, pydantic)
    from dcsim.result import Result
    from dcsim.scenario import Scenario

__all__ = ["simulate", "engine"]

Progress = Callable[[float, float], None]

#: Events the engine handles per call before control returns to Python (about 0.1 s of engine
#: time at 10^7 events/s): Ctrl-C and the progress callback answer within that.
EVENTS_PER_CALL = 1 << 20
#: Fields of the bounds a run checks as it runs (the engine's run-time `field: message` errors
#: that are the scenario's, not a bug): raised as :class:`~dcsim.scenario.RunLimitError`.
RUN_LIMIT_FIELDS = ("metrics.max_memory:",)


def engine():
    """The engine binding ``dcsim._core``; a clear error if it is missing or too old."""
    try:
        from dcsim import _core
    except ImportError as e:  # pragma: no cover - only on a broken install
        raise RuntimeError(
            f"the dcsim engine (dcsim._core) cannot be imported ({e}); build it with "
            "`maturin develop --release` or `pip install .`"
        ) from None
    if not hasattr(_core, "Simulation"):
        raise RuntimeError(
            "the installed dcsim engine (dcsim._core) has no Simulation; rebuild it with "
            "`maturin develop --release` or `pip install .`"
        )
    return _core


#: Returns to Python per run at most (each a progress callback and a check for Ctrl-C).
MAX_CHUNKS = 1_000_000


def simulate(
    scenario: Union[Scenario, dict, str, Path],
    *,
    progress: Optional[Progress] = None,
    chunks: int = 100,
) -> Result:
    """Run ``scenario`` (a :class:`Scenario`, a dict of the TOML shape, or a scenario file path).

    The engine advances in ``chunks`` equal steps of simulated time, and returns to Python at
    least every :data:`EVENTS_PER_CALL` events, so Ctrl-C (KeyboardInterrupt) stops a run within
    a fraction of a second; ``progress(now_s, duration_s)`` is called after each step (for a
    progress bar). Raises :class:`ScenarioError` for an invalid scenario before anything runs,
    and :class:`RunLimitError` (a ScenarioError) if the run outgrows ``metrics.max_memory`` as it
    runs (its queues, or its generated flows running at once, take more than the bound leaves
    room for) or takes longer than
    ``run.max_wall`` of wall-clock time (checked each time the engine returns, at least every
    :data:`EVENTS_PER_CALL` events); the engine's other ``field: message`` errors pass through
    unchanged. A run stopped after its warm-up by ``run.max_wall``, or by ``metrics.max_memory``
    (one world, at the end of an instant), keeps what it simulated: the error's ``partial`` is
    the :class:`Result` of 0 .. t (its engine spec's duration is t, its scenario the one given,
    and ``partial.stopped`` says both); None for every other stop.
    """
    from dcsim.scenario import Scenario, ScenarioWarning, engine_error, load_scenario

    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(scenario)
    elif isinstance(scenario, dict):
        scenario = Scenario.from_dict(scenario)
    elif not isinstance(scenario, Scenario):
        raise TypeError(f"simulate: expected a Scenario, dict or path, got {type(scenario).__name__}")
    else:
        scenario = scenario._revalidated()  # one that model_copy(update=...) or model_construct made
    if not (isinstance(chunks, numbers.Integral) and not isinstance(chunks, bool) and 1 <= chunks <= MAX_CHUNKS):
        raise ValueError(f"chunks: {chunks!r} is out of range; allowed an integer 1 .. {MAX_CHUNKS}")  # numpy's too
    chunks = int(chunks)
    if progress is not None and not callable(progress):  # it had failed after the engine started (a review)
        raise TypeError(f"progress: expected a function progress(now_s, duration_s) or None, got {progress!r}")
    spec = scenario.check_resources()
    for line in scenario.warnings():
        warnings.warn(line, ScenarioWarning, stacklevel=2)
    core = engine()
    t0 = time.perf_counter()
    try:
        sim = core.Simulation(scenario.to_engine_json())  # the JSON checked above (built once)
    except ValueError as e:
        raise engine_error(e, scenario) from None
    duration_ps = int(sim.duration_ps)
    max_wall = scenario.run.max_wall

    def step() -> None:
        """After each return of the engine: the wall-clock bound, then the progress callback."""
        if max_wall is not None and int(sim.now_ps) < duration_ps and time.perf_counter() - t0 > max_wall:
            raise _WallStop()
        if progress is not None:
            progress(int(sim.now_ps) / 1e12, duration_ps / 1e12)

    try:
        for i in range(1, chunks + 1):
            target = duration_ps * i // chunks
            while not sim.run_until(target, EVENTS_PER_CALL):
                step()
            step()
    except _WallStop:
        raise _wall_stop(scenario, spec, sim, max_wall, time.perf_counter() - t0) from None
    except ValueError as e:
        if str(e).startswith(RUN_LIMIT_FIELDS):
            raise _memory_stop(scenario, spec, sim, str(e), time.perf_counter() - t0) from None
        raise
    # Imported only now: `dcsim run` imports it (numpy) in another thread while the engine runs.
    from dcsim.result import Result

    raw = sim.results()
    wall_s = time.perf_counter() - t0
    return Result.from_engine(scenario, raw, wall_s=wall_s, engine_spec=spec)


class _WallStop(Exception):
    """run.max_wall was exceeded (turned into a RunLimitError with the part simulated)."""


def _wall_stop(scenario, spec: dict, sim, max_wall: float, wall_s: float):
    """The RunLimitError of a run that ``run.max_wall`` stopped at t = now, with the Result of 0 .. t
    as its ``partial`` when t is past the warm-up (before it nothing was measured after warm-up).
    The engine's tables close every statistic at t already (a port's utilization, a flow's goodput
    after warm-up, the workloads' realised load all divide by t - warm-up); the partial Result's
    engine spec (with the sampling intervals the run used) says duration t, so what the Result
    derives agrees with them. Its scenario stays the one given: one of run.duration t would be
    another scenario (flows that start after t are refused in it, and its automatic intervals
    are fitted to t: a probe), and ``stopped`` says what was asked for and reached."""
    from dcsim.scenario import time_str

    # Where a workload fired at now, the run ends 1 ps later, as a run to that time would (a
    # chunk's end at a trace flow's start had kept the flow: 201 flows against a fresh run's 200).
    sim.end_here()
    now_ps, duration_ps = int(sim.now_ps), int(spec["duration_ps"])
    from dcsim.units import fmt_time

    # in the unit that reads ("39.464 us of 5 ms", not "3.9464e-05 s of 0.005 s": a review)
    message = (f"run.max_wall: the run stopped at t = {fmt_time(now_ps / 1e12, 6)} of {fmt_time(duration_ps / 1e12, 6)} simulated "
               f"after {wall_s:.3g} s of wall-clock time, more than run.max_wall = {time_str(max_wall)}; raise it, "
               f"or shorten run.duration")
    return _stop_keeping(scenario, spec, sim, message, wall_s, {"field": "run.max_wall", "max_wall_s": float(max_wall)})


def _stop_keeping(scenario, spec: dict, sim, message: str, wall_s: float, stopped: dict):
    """The RunLimitError ``message`` of a run stopped at t = now at an instant's end, with the
    Result of 0 .. t as its ``partial`` when t is past the warm-up (see :func:`_wall_stop`);
    ``partial.stopped`` is ``stopped`` with the durations asked for and simulated."""
    from dcsim.result import Result

    now_ps, duration_ps = int(sim.now_ps), int(spec["duration_ps"])
    partial, lost = None, False
    if now_ps > int(spec["warmup_ps"]):
        try:
            raw = sim.results()
            partial = Result.from_engine(scenario, raw, wall_s=wall_s, engine_spec={**spec, "duration_ps": now_ps})
        except (ValueError, MemoryError) as e:  # said, not hidden: the stop is reported either way
            message += f" (what it simulated could not be kept: {type(e).__name__}: {e})"
            lost = True
        else:
            partial.stopped = {**stopped, "duration_s": duration_ps / 1e12, "simulated_s": now_ps / 1e12}
    else:
        message += f" (before the warm-up ended at {int(spec['warmup_ps']) / 1e12:g} s: nothing was measured)"
    return _limit_error(message, stopped["field"], spec, partial, partial_lost=lost)


def _limit_error(message: str, field: str, spec: dict, partial=None, partial_lost: bool = False):
    """A :class:`~dcsim.scenario.RunLimitError` of the bound ``field`` for the run of ``spec``."""
    from dcsim.scenario import RunLimitError

    err = RunLimitError(message)
    err.partial, err.field, err.engine_spec, err.partial_lost = partial, field, spec, partial_lost
    return err


def _memory_stop(scenario, spec: dict, sim, message: str, wall_s: float):
    """The RunLimitError of a run metrics.max_memory stopped. A stop by the queues or by generated
    flows running at once ends at an instant's end within the bound (the plan counts the tables,
    the stop's allowance the rings and histogram rows; the engine frees each running flow's state
    and each port's packets as it takes their rows): it keeps the Result of 0 .. t as
    run.max_wall's stop does. The engine says when it may (``Simulation.stop_keeps_run``): not in
    a partitioned run, whose worlds stop at different times, nor inside an instant."""
    message += _auto_interval_hint(scenario, spec, message)
    if not sim.stop_keeps_run:
        return _limit_error(message, "metrics.max_memory", spec)
    return _stop_keeping(scenario, spec, sim, message, wall_s,
                         {"field": "metrics.max_memory", "max_memory_bytes": int(spec["metrics"]["max_memory_bytes"])})


def _auto_interval_hint(scenario, spec: dict, message: str) -> str:
    """For a run its queues or running flows stopped: automatic sampling intervals grow into a
    larger max_memory as well (leaving the queues and the running flows an eighth of the rest), so
    raising it alone helps little (an
    audit: 13.5 and 28 MB both stopped a run that 57 MB held). Names the intervals to write out."""
    auto = scenario.metrics.auto_fields()
    if not message.startswith("metrics.max_memory: the run stopped") or not auto:
        return ""
    from dcsim.scenario import time_str

    key = {"metrics.queue_interval": "queue_interval_ps", "metrics.throughput_interval": "throughput_interval_ps",
           "metrics.cwnd_interval": "cwnd_interval_ps"}
    # Only the series that sample something take memory: a run without traced flows (a workload's
    # flows are traced only when trace_flows names them) has no goodput or window series to write out.
    traced = spec["metrics"]["trace_flows"]
    if not (len(spec["flows"]) if traced is None else len(traced)):
        key = {"metrics.queue_interval": key["metrics.queue_interval"]}
    used = [f"{f} = \"{time_str(spec['metrics'][key[f]] / 1e12)}\"" for f in auto if f in key]
    if not used:
        return ""
    return ("; the automatic sampling intervals take most of a larger max_memory too (the queues and the running "
            "flows keep an eighth of what is left): to give them all of it, also write the intervals out as this run "
            "used them: "
            + ", ".join(used))
