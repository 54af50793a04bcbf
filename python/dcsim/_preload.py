"""Start-up of ``dcsim run``: numpy imported with one BLAS thread, and the modules needed after
the engine's run (numpy) imported on the other core while the engine runs.

The engine releases the GIL while it runs (``Simulation.run_until``), so a second thread can
spend that time importing what comes next; without it these imports (~60 ms) come on top of
the run. Kept out of :mod:`dcsim.cli` and :mod:`dcsim.run` so that importing them stays cheap.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Iterator, Optional, Sequence

__all__ = ["blas_single_threaded", "import_in_background", "AFTER_RUN"]

#: What ``dcsim run`` imports after the engine's run: the result tables (numpy; the engine writes
#: their Parquet files, so pyarrow is not imported).
AFTER_RUN = ("dcsim.result",)

#: GIL switch interval while a background import runs (the default is 5 ms). The engine's run
#: returns to Python ~100 times (progress, Ctrl-C); each time this thread waits for the importing
#: one to hand the GIL back, up to one switch interval: 100 x 5 ms would cost more than the
#: overlap gains.
SWITCH_INTERVAL_S = 1e-4


@contextlib.contextmanager
def blas_single_threaded() -> Iterator[None]:
    """Import numpy inside this block with one OpenBLAS thread (unless the user set
    OPENBLAS_NUM_THREADS): `dcsim run` does no linear algebra, and OpenBLAS starts its thread
    pool when numpy is imported, which took 0.117 s instead of 0.060 s (medians of 12) with the
    other core busy. OpenBLAS reads the variable once, when it loads; it is removed again on the
    way out, so processes started later (the plotter) see the user's environment."""
    if "OPENBLAS_NUM_THREADS" in os.environ or "numpy" in sys.modules:
        yield
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def _import_all(modules: Sequence[str], interval_s: float) -> None:
    try:
        with blas_single_threaded():
            for name in modules:
                try:
                    __import__(name)
                except BaseException:  # noqa: BLE001 - the caller's own import raises it (see below)
                    return
    finally:
        sys.setswitchinterval(interval_s)


def import_in_background(modules: Sequence[str] = AFTER_RUN) -> Optional[threading.Thread]:
    """Import ``modules`` (in order; numpy with one BLAS thread) in a thread of their own, and
    return it (None when they are all imported already). Join it before starting a process that
    should see the user's environment (the BLAS variable is set while numpy is imported).

    Meant to run while this thread waits without the GIL (the engine's run). Code that imports
    one of these modules meanwhile waits for the thread's import to finish (Python's per-module
    import lock), so nothing is used half-imported. A failed import stops the thread quietly: it
    is not lost, the caller's own ``import`` of that module raises the same error where the
    module is needed."""
    todo = [m for m in modules if m not in sys.modules]
    if not todo:
        return None
    interval_s = sys.getswitchinterval()
    sys.setswitchinterval(min(interval_s, SWITCH_INTERVAL_S))
    t = threading.Thread(target=_import_all, args=(todo, interval_s), name="dcsim-import", daemon=False)
    t.start()
    return t
