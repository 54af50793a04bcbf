"""Running a planned sweep on an executor: local processes, Dask, or any ``concurrent.futures.Executor``.

The loop keeps a bounded number of runs in flight (a 100 000-run sweep never creates 100 000
futures), records each result as it arrives (tables, then ``row.json``; see
:mod:`dcsim.sweep.store`), and reacts to Ctrl-C within one wait interval (0.2 s): pending runs
are cancelled, the local worker processes are terminated, finished runs stay on disk.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import gc
import json
import multiprocessing
import os
import signal
import sys
import time
import uuid
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from dcsim._signals import RECEIVED
from dcsim.sweep.spec import Plan, PlannedRun, SweepError, code_id
from dcsim.sweep.worker import _noop, run_one, worker_info
from dcsim.units import count_shown

__all__ = ["Stats", "LocalPool", "RunTraces", "check_jobs_with_dask", "connect_dask", "execute", "default_jobs", "DASK_INSTALL", "DASK_TIMEOUT_S"]

#: How to install the optional Dask extra (quoted in the error when it is missing).
DASK_INSTALL = "pip install 'dcsim[dask]'"
#: Time allowed to reach a Dask scheduler (and for its first worker), s.
DASK_TIMEOUT_S = 5.0
#: Longest wait for a ``--dask local`` cluster to be up (its process started, Dask imported, its
#: workers started), s: 1 to 2 s on 2 cores; up to 4 workers per core take longer.
LOCAL_CLUSTER_START_S = 120.0
#: Longest wait for the first handshake with a ``--dask local`` cluster once it is up, s: its
#: scheduler is our own process, known to be running, so a slow answer is load, not a wrong
#: address (on a busy 2-core VM it took more than DASK_TIMEOUT_S: a CI run, 2026-12-02).
LOCAL_CLUSTER_CONNECT_S = 30.0
#: Longest time the loop waits for a result before it looks at Ctrl-C and the progress bar, s.
WAIT_S = 0.2
#: A sweep on Dask whose cluster has had no worker for this long, runs still to do, stops (s): its
#: workers all left mid-sweep, and nothing would ever compute the rest. Looked at every
#: NO_WORKER_LOOK_S.
DASK_NO_WORKER_S = 60.0
NO_WORKER_LOOK_S = 1.0


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class Stats:
    """Counts for the progress bar and the final report (runs = rows of the table)."""

    total: int = 0
    to_compute: int = 0
    cached: int = 0
    computed: int = 0  # computations (runs sharing an engine spec are one)
    failed: int = 0  # computations that failed
    failed_rows: int = 0  # the table's rows they leave failed (the progress bar's count)
    stopped_rows: int = 0  # rows of runs metrics.max_memory stopped (kept, status "stopped")
    done: int = 0
    run_wall_s: float = 0.0  # sum over runs computed now, s
    started: float = field(default_factory=time.perf_counter)

    @property
    def mean_run_wall_s(self) -> Optional[float]:
        n = self.computed + self.failed
        return self.run_wall_s / n if n else None

    def eta_s(self) -> Optional[float]:
        """Remaining runs at the rate of the runs computed so far (cached runs do not count)."""
        n = self.computed + self.failed
        if not n:
            return None
        return (time.perf_counter() - self.started) / n * max(self.to_compute - n, 0)


def _worker_init(parent: Optional[int] = None) -> None:
    """Local workers leave Ctrl-C and SIGTERM to the sweep, which stops them itself (SIGKILL),
    and die with it (Linux: the parent-death signal): a sweep killed with `kill -9` left its
    workers waiting on their pipes, holding OUT/.lock (inherited), so that no sweep could resume."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        if parent is not None and os.getppid() != parent:  # the sweep died before prctl took effect
            os._exit(1)


class StopSignals:
    """While active (main thread only), SIGINT, SIGTERM and SIGHUP only set :attr:`received`; the
    sweep loop looks at it every :data:`WAIT_S` and stops at a safe point (an exception raised
    inside the executor's code could leave one of its locks held). A second Ctrl-C stops at once.
    (SIGHUP had been left to the command line's handler, which raised wherever the sweep was and
    named it Ctrl-C, status 130: a review.)"""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.received: Optional[int] = None
        self._old: dict = {}
        self._held = False

    def _handler(self, signum, frame) -> None:  # noqa: ARG002
        RECEIVED.append(signum)  # the command line's handler, back after the sweep, knows it is stopping
        if self.received is not None and signum == signal.SIGINT and not self._held:
            raise KeyboardInterrupt
        self.received = self.received or signum

    def hold(self) -> None:
        """From now on a signal is only recorded, a second Ctrl-C too: while the workers are
        stopped, a second Ctrl-C had raised there and replaced the interrupted sweep's message
        ("9 of 20 runs finished and kept ...; run the same command again to resume") by the
        generic one (a probe, two Ctrl-C 0.1 s apart)."""
        self._held = True

    def __enter__(self) -> "StopSignals":
        import threading

        if threading.current_thread() is threading.main_thread():
            for name in self.SIGNALS:
                sig = getattr(signal, name, None)
                # a signal the process ignores stays ignored: nohup's SIGHUP, a script's background
                # job's SIGINT (a review: a hangup under nohup stopped a sweep, exit 129)
                if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
                    self._old[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}


class LocalPool:
    """A process pool over ``jobs`` cores, whose workers ignore Ctrl-C and can be killed at once.

    On Linux the workers are forked (they start in milliseconds with everything imported); they
    are all started by :meth:`start`, before any progress-bar thread exists.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.executor: Optional[cf.ProcessPoolExecutor] = None

    def start(self) -> cf.ProcessPoolExecutor:
        # Import what a run needs before forking, once, rather than in every worker.
        import dcsim.result  # noqa: F401
        import dcsim.simulate  # noqa: F401

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") and "fork" in methods else None)
        self.executor = cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=_worker_init,
                                               initargs=(os.getpid(),))
        # With fork every worker starts at the first submit; elsewhere they start on demand.
        # gc.freeze: the workers' garbage collector leaves the inherited objects alone, so their
        # memory pages stay shared instead of being copied into every worker.
        gc.freeze()
        try:
            for f in [self.executor.submit(_noop) for _ in range(self.jobs)]:
                f.result()
        finally:
            gc.unfreeze()
        return self.executor

    def kill(self) -> None:
        """Terminate the workers now (Ctrl-C, broken pool) and drop the executor."""
        ex, self.executor = self.executor, None
        if ex is None:
            return
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for p in procs:
            try:
                p.kill()
            except Exception:
                pass
        # The executor's manager thread closes its wake-up pipe when it sees the workers gone.
        # Joined here, that has happened before the interpreter's exit hook for executors writes
        # to the pipe; otherwise the two race and the hook can print an OSError traceback.
        manager = getattr(ex, "_executor_manager_thread", None)
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.join(timeout=1.0)
        if manager is not None:
            manager.join(timeout=2.0)

    def close(self) -> None:
        ex, self.executor = self.executor, None
        if ex is not None:
            ex.shutdown(wait=True, cancel_futures=True)


#: Most workers per core of a ``--dask local`` cluster. Each is a Python process of its own that
#: imports Dask and dcsim: 256 on 2 cores took 12 minutes to start and 11.7 GB (a probe), for no
#: speed, since the runs are bound by the cores.
LOCAL_CLUSTER_WORKERS_PER_CORE = 4


def check_jobs_with_dask(address: str, jobs: Optional[int], cli: bool = False) -> None:
    """``jobs`` sizes only a local cluster: with a scheduler address the cluster's workers decide.
    A local cluster has at most :data:`LOCAL_CLUSTER_WORKERS_PER_CORE` workers per core. The
    message names the options as the caller wrote them (``cli``: --jobs, --dask)."""
    cores = default_jobs()
    most = LOCAL_CLUSTER_WORKERS_PER_CORE * cores
    if jobs is not None and address.strip() == "local" and jobs > most:
        field = "--jobs" if cli else "jobs"
        raise SweepError(f"{field}: {jobs} workers for a local Dask cluster on {cores} cores; allowed 1 .. {most} "
                         f"({LOCAL_CLUSTER_WORKERS_PER_CORE} per core: each is a process of its own, and the runs are "
                         "bound by the cores)")
    if jobs is not None and address.strip() != "local":
        if cli:
            raise SweepError(f"--jobs: not with --dask {address}; the cluster's workers decide (use --dask local --jobs N "
                             "for a local cluster)")
        raise SweepError(f"jobs: not with dask={address!r}; the cluster's workers decide (use dask=\"local\", jobs=N for "
                         "a local cluster)")


def connect_dask(address: str, jobs: Optional[int] = None, timeout_s: float = DASK_TIMEOUT_S,
                 should_stop: Optional[Callable[[], bool]] = None):
    """A Dask client: ``"local"`` starts a ``LocalCluster`` of ``jobs`` single-threaded worker
    processes, in a process of its own session (:mod:`dcsim.sweep.local_cluster`), which ``close``
    ends; anything else is a scheduler address. Returns ``(client, close)``. While a local
    cluster starts, ``should_stop()`` is asked every :data:`WAIT_S`: True (a signal the caller
    recorded) kills it and raises KeyboardInterrupt.

    Fails within about ``timeout_s`` (a local cluster's first handshake: at least
    :data:`LOCAL_CLUSTER_CONNECT_S`) with a :class:`SweepError` that says what happened if the
    scheduler cannot be reached (nothing answered in time, or something that is not a Dask
    scheduler answered), has no worker, or its workers cannot run this dcsim.
    """
    try:
        import distributed
    except ImportError:
        raise SweepError(f"--dask: Dask is an optional extra that is not installed; install it with: {DASK_INSTALL}") from None
    from dcsim import __version__

    cluster = None
    try:
        if address == "local":
            # In a process of its own session: the terminal's Ctrl-C reaches only this process,
            # which stops the cluster itself (see dcsim.sweep.local_cluster).
            cluster = _LocalClusterProcess(jobs or default_jobs(), should_stop)
            client = _client_within(distributed, cluster.address, max(timeout_s, LOCAL_CLUSTER_CONNECT_S))
        else:
            check_jobs_with_dask(address, jobs)
            t0 = time.perf_counter()
            try:
                client = _client_within(distributed, address, timeout_s)
            except Exception as e:
                raise SweepError(_unreachable(address, e, time.perf_counter() - t0, timeout_s)) from None
    except SweepError:
        raise
    except Exception as e:  # the LocalCluster could not start, or be connected to
        if cluster is not None:
            cluster.close()
        raise SweepError(f"--dask local: cannot start a Dask LocalCluster ({type(e).__name__}: {e})") from None
    except BaseException:  # Ctrl-C while it started
        if cluster is not None:
            cluster.close()
        raise

    def close() -> None:
        try:
            client.close(timeout=2)
        finally:
            if cluster is not None:
                cluster.close()

    try:
        try:
            client.wait_for_workers(1, timeout=timeout_s)
        except (TimeoutError, OSError) as e:
            raise SweepError(f"--dask {address}: the scheduler has no worker after {timeout_s:g} s ({type(e).__name__}); start one with: dask worker {address}") from None
        try:
            infos = client.run(worker_info, on_error="return")
        except Exception as e:  # the scheduler itself failed the call
            raise SweepError(
                f"--dask {address}: the workers cannot run dcsim ({type(e).__name__}: {e}); install it on every worker: pip install dcsim=={__version__}"
            ) from None
        failed = {w: i for w, i in infos.items() if isinstance(i, BaseException)}
        if failed:
            w, e = next(iter(failed.items()))
            # Dask hands back an error it cannot rebuild here as Exception("ModuleNotFoundError('...')").
            why = str(e) if type(e) is Exception else f"{type(e).__name__}: {e}"
            raise SweepError(
                f"--dask {address}: {len(failed)} of {len(infos)} worker(s) cannot run dcsim (e.g. {w}: {why}); "
                f"install it on every worker: pip install dcsim=={__version__}"
            )
        # The version first (the likelier difference), then the code of the same version (another build).
        for what, here in (("version", __version__), ("code", code_id())):
            other = {w: i.get(what) for w, i in infos.items() if i.get(what) != here}
            if other:
                w, theirs = next(iter(other.items()))
                raise SweepError(
                    f"--dask {address}: {len(other)} worker(s) run dcsim {what} {theirs} (e.g. {w}), this machine "
                    f"{here}; results would differ: install the same build of dcsim on every worker (pip install "
                    f"dcsim=={__version__})"
                )
    except BaseException:
        close()
        raise
    return client, close


def served_dashboard(client, timeout_s: float = 1.0) -> Optional[str]:
    """The scheduler's dashboard link if a page answers there within ``timeout_s``, else None: a
    scheduler started with ``--no-dashboard`` still names one (its HTTP server keeps /health), and
    a link to a 404 is worse than none."""
    import urllib.error
    import urllib.request

    link = getattr(client, "dashboard_link", None)
    if not link:
        return None
    try:
        with urllib.request.urlopen(link, timeout=timeout_s) as answer:  # noqa: S310 - the scheduler's own http URL
            return link if answer.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):  # 404, refused, timed out, not an http URL
        return None


class _LocalClusterProcess:
    """``--dask local``'s cluster: :func:`dcsim.sweep.local_cluster.main` in a process of its own
    session, with this process's module path and Dask configuration; it says its scheduler's
    address once the cluster is up and keeps it until its stdin ends. Waiting for it is bounded
    (:data:`LOCAL_CLUSTER_START_S`) and stops when ``should_stop()`` says so; :meth:`close` ends
    it, and it ends itself if this process dies."""

    def __init__(self, workers: int, should_stop: Optional[Callable[[], bool]] = None) -> None:
        import subprocess

        import dask.config

        from dcsim.sweep.local_cluster import command

        env = {**os.environ, "DASK_INTERNAL_INHERIT_CONFIG": dask.config.serialize(dask.config.global_config)}
        self.address: Optional[str] = None
        self.proc = subprocess.Popen(command(workers), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     start_new_session=True, env=env)
        try:
            answer = self._answer(LOCAL_CLUSTER_START_S, should_stop)
            if "address" not in answer:
                raise RuntimeError(answer.get("error", answer))
            self.address = str(answer["address"])
        except BaseException:
            self.close()
            raise

    def _answer(self, timeout_s: float, should_stop: Optional[Callable[[], bool]] = None) -> dict:
        """The cluster process's answer: the first line of its stdout that is a JSON object, read
        within ``timeout_s``; ``{"error": ...}`` if its stdout ended without one. Its other lines
        (something else in that process may print) are passed on to stderr, as is what it prints
        later, by a thread that ends with the process. KeyboardInterrupt once ``should_stop()``."""
        import queue
        import threading

        answers: queue.Queue = queue.Queue()

        def read() -> None:
            answered = False
            with self.proc.stdout as out:
                for line in out:
                    if not answered:
                        try:
                            answer = json.loads(line)
                        except ValueError:
                            answer = None
                        if isinstance(answer, dict):
                            answered = True
                            answers.put(answer)
                            continue
                    sys.stderr.write(line)
            answers.put(None)

        threading.Thread(target=read, name="dcsim-local-cluster-stdout", daemon=True).start()
        deadline = time.monotonic() + timeout_s
        while True:
            if should_stop is not None and should_stop():
                raise KeyboardInterrupt
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"it was not up after {timeout_s:g} s")
            try:
                answer = answers.get(timeout=min(WAIT_S, left))
            except queue.Empty:
                continue
            if answer is None:
                try:
                    status = f"status {self.proc.wait(timeout=5)}"
                except Exception:
                    status = "its stdout closed"
                return {"error": f"its process ended ({status}) before the cluster was up"}
            return answer

    def close(self) -> None:
        """End the cluster: its stdin closed, it closes the cluster (up to 5 s; one that never
        said it was up is killed at once); after 10 s its session's processes (it and its
        workers) are killed."""
        import subprocess

        try:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            if self.address is not None and self.proc.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=10)
        finally:
            killpg = getattr(os, "killpg", None)  # POSIX; elsewhere the process alone
            with contextlib.suppress(OSError):  # the workers too, had any outlived it
                if killpg is not None:
                    killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            self.proc.wait()


class NoHandshake(TimeoutError):
    """Something accepted the connection but never answered as a Dask scheduler."""


def _client_within(distributed, address: str, timeout_s: float):
    """``distributed.Client(address)``, given up after ``timeout_s`` (+1 s) even when something at
    the address accepts the connection and never answers (an HTTP server, say), where the
    client's own timeout does not apply and it would wait for ever."""
    import threading

    box: dict = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(address, timeout=timeout_s)
        except BaseException as e:  # handed to the caller
            box["error"] = e

    t = threading.Thread(target=connect, name="dcsim-dask-connect", daemon=True)
    t.start()
    t.join(timeout_s + 1.0)
    if t.is_alive():
        raise NoHandshake(f"the connection was accepted, but no Dask handshake came back within {timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["client"]


def _accepts_connections(address: str, timeout_s: float = 1.0) -> bool:
    """Whether a plain TCP connection to ``address`` (``tcp://HOST:PORT``) is accepted."""
    import socket
    from urllib.parse import urlsplit

    try:
        u = urlsplit(address)
        if u.scheme != "tcp" or not u.hostname or u.port is None:
            return False
        with socket.create_connection((u.hostname, u.port), timeout=timeout_s):
            return True
    except (OSError, ValueError):
        return False


def _unreachable(address: str, e: BaseException, elapsed_s: float, timeout_s: float) -> str:
    """What happened when connecting to ``address`` failed: nothing answered in time, something
    that is not a Dask scheduler answered (and how fast), or the address is not one."""
    hint = "give its address as tcp://HOST:PORT (the scheduler prints it), or --dask local"
    detail = f"{type(e).__name__}: {e}"
    if isinstance(e, NoHandshake):
        what = f"something at this address accepted the connection but is not a Dask scheduler: {e}"
    elif isinstance(e, ValueError):
        what = f"not a Dask scheduler address ({detail})"
    elif isinstance(e, TypeError) and "TLS" in str(e):  # nothing was tried: no TLS settings here
        what = f"a tls:// scheduler needs Dask's TLS settings (certificates) on this machine, which are not set ({detail})"
        hint = "set them in Dask's configuration (distributed.comm.tls), or use a tcp:// address"
    elif (isinstance(e, TimeoutError) or "Timed out" in str(e)) and _accepts_connections(address):
        # Dask retries until its timeout when the connection is reset during its own connect
        # step, so a server that closes at once can look like silence: a plain connection says which.
        what = f"something at this address accepts connections but did not answer as a Dask scheduler within {timeout_s:g} s ({detail})"
    elif isinstance(e, TimeoutError) or "Timed out" in str(e):
        what = f"no Dask scheduler answered within {timeout_s:g} s; nothing accepted a connection there ({detail})"
    elif isinstance(e, MemoryError) or type(e).__name__ == "error":  # struct.error
        # Dask read a stranger's bytes as its frame header ("Unable to allocate 2.82 EiB for an
        # array": an SSH banner, a proxy's "HTTP/1.1 400"; a probe): say that, not the allocation.
        what = (f"something answered after {elapsed_s:.1f} s, but not as a Dask scheduler: it sent bytes that are not "
                f"Dask's protocol ({type(e).__name__})")
    else:
        what = f"something answered after {elapsed_s:.1f} s, but not as a Dask scheduler ({detail})"
    return f"--dask {address}: {what}; {hint}"


def _scheduler_gone(e: Optional[BaseException], local_cluster: bool = False) -> SweepError:
    """The error for a Dask client whose scheduler went away (``ClosedClientError``, or the
    client's status "closed"); of a ``--dask local`` cluster, its process ended (a review: the
    advice to start the scheduler again misled where the sweep had started it)."""
    why = f" ({_first_line(e)})" if e is not None else ""
    if local_cluster:
        return SweepError(f"dask: the local Dask cluster's process ended{why}; finished runs are kept: run the same "
                          "command again to resume")
    return SweepError(f"dask: the connection to the Dask scheduler is closed{why}; finished runs are kept: start the "
                      "scheduler and its workers again and run the same command to resume")


def _first_line(e: BaseException) -> str:
    """The first line of ``e``'s message."""
    text = str(e).strip()
    return text.splitlines()[0] if text else ""


def _exc_error(e: BaseException) -> dict:
    text = str(e).strip()
    if type(e).__name__ == "RuntimeError" and text.startswith("Error during deserialization of the task graph"):
        # Dask's, on a worker whose environment differs (e.g. without dcsim): its first line had been
        # cut mid-sentence ("... This frequently"), leaving out what it means (a probe).
        return _error("RuntimeError: a Dask worker could not read the run (error during deserialization of the task "
                      "graph): its Python environment differs from this one; install the same dcsim (and numpy, "
                      f"pandas) on every worker: pip install dcsim=={_version()}")
    return _error(f"{type(e).__name__}: {_first_line(e)}" if text else type(e).__name__)


def _version() -> str:
    from dcsim import __version__

    return __version__


class RunTraces:
    """What a run needs of its plan's trace files (:meth:`Plan.trace_files`): with ``store``, their
    files in OUT, each written once when a run first needs it (:meth:`RunStore.keep_trace`), which
    the run's directory links; with ``ship`` (a worker that may not share this filesystem), their
    content, read once for the last few (and with a Dask ``client`` sent to the cluster once, as a
    task it can compute again)."""

    def __init__(self, plan: Plan, store: Any = None, ship: bool = False, client: Any = None) -> None:
        from dcsim.scenario import TRACES_KEPT

        self.plan, self.store, self.ship, self.client = plan, store, ship, client
        self._content: dict[str, Any] = {}  # digest -> bytes (or their Dask future), the newest last
        self._keep = TRACES_KEPT

    def __call__(self, run: PlannedRun) -> dict[str, Any]:
        """The trace arguments of :func:`run_one` for ``run``: ``digests`` (path -> the SHA-256
        planned with), ``links`` (workload index -> file in OUT; with a store) and ``data``
        (path -> content; when shipped)."""
        files = self.plan.trace_files(run)
        if not files:
            return {}
        kw: dict[str, Any] = {"digests": dict(files.values())}
        if self.store is not None:
            kw["links"] = {i: self.store.keep_trace(path, digest) for i, (path, digest) in files.items()}
        if self.ship:
            kw["data"] = {path: self.content(path, digest) for path, digest in files.values()}
        return kw

    def content(self, path: str, digest: str) -> Any:
        from dcsim.sweep.store import trace_content

        got = self._content.pop(digest, None)
        if got is None:
            got = trace_content(path, digest)
            if self.client is not None:
                # Sent to the cluster once as a task that returns it, not scattered: the scheduler
                # keeps the task and computes it again where the workers holding its result died.
                # Scattered data is lost with them, and a run being computed again then waited on
                # it for ever (a review: a sweep hung at 59 of 60 runs once its workers were killed).
                from dcsim.sweep.worker import trace_bytes

                got = self.client.submit(trace_bytes, got, key=f"dcsim-trace-{digest[:16]}-{uuid.uuid4().hex[:8]}",
                                         pure=False)
        self._content[digest] = got
        while len(self._content) > self._keep:
            del self._content[next(iter(self._content))]
        return got

    def forget(self) -> None:
        """Send the traces' content again from the next run on: a run was cancelled because a
        worker left, maybe the last that held the content sent once (a review: runs on a cluster
        whose two workers were killed failed "cancelled 3 times", each retry asking for the lost
        data, and once the sweep hung)."""
        self._content.clear()


#: Times a run the executor cancelled is sent (a Dask worker or scheduler that went away cancels
#: the runs it held) before it is recorded as failed.
CANCELLED_TRIES = 3

DIED = (
    "BrokenProcessPool: the worker process died while running this run alone (a crash in the engine, "
    "or out of memory); see OUT/runs/<run_id>/error.json; it is tried again by the next sweep"
)


def execute(
    plan: Plan,
    todo: list[PlannedRun],
    *,
    executor: Optional[cf.Executor],
    local: Optional[LocalPool],
    max_in_flight: int,
    tables: bool,
    on_result: Callable[[PlannedRun, dict], None],
    on_tick: Callable[[], None],
    stop: Optional[StopSignals] = None,
    save_to: Optional[str] = None,
    traces: Optional[RunTraces] = None,
    workers: Optional[Callable[[], int]] = None,
    local_cluster: bool = False,
    client: Any = None,
) -> None:
    """Run ``todo`` on ``executor`` (or on ``local``'s pool; ``local_cluster``: a Dask cluster
    ``--dask local`` started, which its errors name as such).

    ``on_result(run, res)`` gets :func:`run_one`'s dict (or an error dict made here if the
    executor failed the future); ``on_tick()`` is called at least every :data:`WAIT_S`.

    If a local worker process dies (a crash, the OOM killer), every run in flight in that pool
    is lost; the pool is restarted and those runs are tried again one at a time, so that only
    the run that kills its worker when alone is recorded as failed. KeyboardInterrupt (or a
    signal seen by ``stop``) cancels the pending runs, kills local workers, and propagates as
    KeyboardInterrupt.

    ``save_to``: the sweep's OUT, given only for local workers, which then write finished runs
    themselves (in parallel) instead of sending the files back. ``traces``: what each run gets of
    its trace files (:class:`RunTraces`). ``workers()``: how many workers a Dask cluster has (None
    once its client closed: the scheduler went away, which ends the sweep with a SweepError);
    when every worker it had left and none came back for :data:`DASK_NO_WORKER_S` while runs are
    in flight, a :class:`SweepError` says so (finished runs are kept).

    ``client``: the Dask client behind ``executor``, if any. Each run is given a stop name that a
    stopped sweep tells every worker process (:func:`stop_running_runs`), so the runs already
    executing on the cluster stop themselves (Dask cannot stop a running task) instead of keeping
    their workers busy to their end.
    """
    if local is not None:
        executor = local.executor
    assert executor is not None
    it = iter(todo)
    suspects: deque[PlannedRun] = deque()  # in flight when a worker died: rerun one at a time
    unsent: deque[PlannedRun] = deque()  # refused by a local pool that had just broken: sent again
    in_flight: dict[cf.Future, PlannedRun] = {}
    exhausted = False
    # When the cluster was first seen without a worker, after one had been seen: an adaptive
    # cluster may start with none (an audit), and connect_dask waits for the first itself.
    last_look, none_since, seen = time.monotonic(), None, False

    def watch_workers() -> None:
        nonlocal last_look, none_since, seen
        now = time.monotonic()
        if workers is None or not in_flight or now - last_look < NO_WORKER_LOOK_S:
            return
        last_look = now
        try:
            n = workers()
        except Exception as e:
            if type(e).__name__ == "ClosedClientError":  # the scheduler went away: say so now, not in 60 s
                raise _scheduler_gone(e, local_cluster) from None
            n = 0  # no answer: no worker either
        if n is None:  # the client closed (its scheduler went away and did not come back within 5 s)
            raise _scheduler_gone(None, local_cluster)
        if n:
            none_since, seen = None, True
        elif not seen:
            return
        elif none_since is None:
            none_since = now
        elif now - none_since >= DASK_NO_WORKER_S:
            raise SweepError(f"dask: every worker of the Dask cluster left, and none came back for {DASK_NO_WORKER_S:g} s, "
                             f"with {count_shown(len(in_flight), 'run')} in flight; finished runs are kept: start workers "
                             "and run the same command again to resume")

    def submit(run: PlannedRun, back: deque) -> bool:
        """Send ``run``; False if a local pool broke before it could take it (a worker died
        between two looks: the run goes back to the front of ``back``, the queue it came from,
        and the pool is restarted)."""
        payload = json.dumps(plan.scenario(run), separators=(",", ":"))
        kw = traces(run) if traces is not None else {}
        if stop_name is not None:
            kw["stop_name"] = stop_name
        try:
            fut = executor.submit(run_one, payload, tables, save_to, run.key, **kw)
        except BrokenProcessPool:
            if local is None:
                raise SweepError("executor: cannot submit more runs (its process pool broke); finished runs are kept, "
                                 "run the sweep again to resume") from None
            back.appendleft(run)
            return False
        except RuntimeError as e:  # an executor that was shut down or broke (BrokenExecutor included)
            raise SweepError(f"executor: cannot submit more runs ({type(e).__name__}: {e}); finished runs are kept, run the sweep again to resume") from None
        except Exception as e:
            if type(e).__name__ == "ClosedClientError":  # distributed's: its scheduler went away (a probe: kill -9)
                raise _scheduler_gone(e, local_cluster) from None
            raise SweepError(f"executor: cannot submit more runs ({type(e).__name__}: {_first_line(e)}); finished runs "
                             "are kept, run the sweep again to resume") from None
        in_flight[fut] = run
        return True

    def next_run() -> Optional[PlannedRun]:
        return unsent.popleft() if unsent else next(it, None)

    def cancelled(run: PlannedRun) -> bool:
        """A run the executor cancelled (a Dask cluster whose worker or scheduler went away): sent
        again, up to :data:`CANCELLED_TRIES` times, then recorded as failed. (Each had been recorded
        as failed at once, so a scheduler's loss showed as "8 failed" although no run had failed.)"""
        nonlocal exhausted
        if traces is not None:
            traces.forget()
        tries[run.run_id] = tries.get(run.run_id, 0) + 1
        if tries[run.run_id] >= CANCELLED_TRIES:
            return False
        unsent.append(run)
        exhausted = False  # next_run gives it before the plan's next
        return True

    tries: dict[str, int] = {}
    stop_name = f"dcsim-sweep-stop-{uuid.uuid4().hex}" if client is not None else None

    try:
        while True:
            broken = False
            if suspects:
                if not in_flight:
                    broken = not submit(suspects.popleft(), suspects)  # a suspect still runs alone
            else:
                while not exhausted and len(in_flight) < max_in_flight:
                    run = next_run()
                    if run is None:
                        exhausted = True
                        break
                    if not submit(run, unsent):
                        broken = True
                        break
            if not in_flight and not broken:
                if suspects or unsent:
                    continue
                break
            lost: list[PlannedRun] = []
            if in_flight:
                done, _ = cf.wait(list(in_flight), timeout=WAIT_S, return_when=cf.FIRST_COMPLETED)
                lost = _collect(done, in_flight, on_result, local is not None, cancelled)
            if lost and stop is not None:
                time.sleep(0.05)  # workers killed by the same signal as the sweep are not failures
            if stop is not None and stop.received is not None:
                raise KeyboardInterrupt
            if lost or broken:
                # The dead pool fails every run still in it (promptly); collect those too.
                rest, _ = cf.wait(list(in_flight), timeout=5.0)
                lost += _collect(rest, in_flight, on_result, True)
                lost += list(in_flight.values())
                in_flight.clear()
                if len(lost) == 1:  # it was alone in its pool: it is the one that kills its worker
                    on_result(lost[0], _error(DIED))
                else:
                    suspects.extend(lost)
                executor = _restart(local)
            on_tick()
            watch_workers()
    except BaseException:
        if stop is not None:
            stop.hold()  # a third Ctrl-C here had ended the process before the workers were told (a review)
        if stop_name is not None and in_flight:
            stop_running_runs(client, stop_name)
        for fut in in_flight:
            fut.cancel()
        if local is not None:
            local.kill()
        raise


#: How long a stopped sweep waits, at most, for its Dask workers to be told (:func:`stop_running_runs`).
STOP_TELL_S = 2.0


def stop_running_runs(client: Any, name: str, timeout_s: float = STOP_TELL_S) -> bool:
    """Tell every worker process of ``client``'s cluster that the sweep whose runs were given the
    stop name ``name`` stopped (:func:`dcsim.sweep.worker.mark_stopped`, through ``Client.run``,
    which a worker's event loop answers while its task threads run): the sweep's runs executing
    there stop after the engine's current step. Bounded by ``timeout_s`` (a scheduler that does not
    answer does not hold up the stop); False if the workers were not told in time, or the client is
    not running (its scheduler went away: nothing to tell, and no wait)."""
    import threading

    if getattr(client, "status", None) != "running":
        return False
    done = threading.Event()

    def tell() -> None:
        with contextlib.suppress(Exception):
            from dcsim.sweep.worker import mark_stopped

            client.run(mark_stopped, name)  # (a worker that fails it: the others were told all the same)
            done.set()

    threading.Thread(target=tell, name="dcsim-sweep-stop", daemon=True).start()
    try:
        return done.wait(timeout_s)
    except KeyboardInterrupt:  # a signal while waiting (no StopSignals held): the stop goes on
        return done.is_set()


def _collect(done, in_flight: dict, on_result, restartable: bool,
             cancelled: Optional[Callable[[PlannedRun], bool]] = None) -> list[PlannedRun]:
    """Hand the finished futures' results to ``on_result``; return the runs a dead local pool lost.
    A cancelled run goes to ``cancelled``, which may take it back to send it again (True)."""
    lost: list[PlannedRun] = []
    for fut in done:
        run = in_flight.pop(fut)
        try:
            res = fut.result()
        except BrokenProcessPool as e:
            if restartable:
                lost.append(run)
                continue
            res = _exc_error(e)
        except cf.CancelledError:
            if cancelled is not None and cancelled(run):
                continue
            res = _error(f"CancelledError: the executor cancelled this run {CANCELLED_TRIES} times")
        except Exception as e:
            res = _exc_error(e)
        on_result(run, res)
    return lost


def _restart(local: LocalPool) -> cf.Executor:
    local.kill()
    return local.start()


def _error(msg: str) -> dict:
    return {"key": None, "version": None, "seed": None, "row": None, "files": {}, "error": msg, "traceback": None, "wall_s": None}
