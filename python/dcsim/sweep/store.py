"""The sweep's output directory: atomic files, a lock, finished runs, the assembled table.

Layout of OUT/::

    sweep.parquet            one row per run (written last, atomically)
    sweep.json               the sweep as run: base scenario, set, axes, seeds, dcsim version
    runs/<run_id>/row.json   a finished run's summary row; its presence marks the run finished.
                             It lists the run's files with their sizes and CRC-32 and carries a
                             CRC-32 of itself: a run whose row or files changed is run again. A
                             run a metrics.max_memory bound stopped is finished too ("stopped":
                             the same spec stops at the same instant): its row and tables are
                             those of what it simulated
    runs/<run_id>/*.parquet  the run's tables (and scenario.toml, engine_spec.json, summary.json)
    runs/<run_id>/error.json a failed run's error and traceback (failed runs are retried)
    runs/<run_id>/workload-<i>-flows.csv  the trace file its scenario.toml names: a hard link
                             to traces/<sha256>.csv (a copy where links fail)
    traces/<sha256>.csv      each trace file the runs read, once, by content
    .lock                    held while a sweep writes here

Every file is written to a temporary name in its own directory and renamed into place
(``os.replace`` is atomic on POSIX and Windows), and ``row.json`` only after the run's tables: a
process killed at any moment leaves whole files, and a run without ``row.json`` is simply run
again. Crash safety covers a killed process, not a power loss (no fsync).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from dcsim._files import atomic_write_bytes, exclusive_lock, not_as_listed, size_crc32

__all__ = ["atomic_write", "atomic_link", "trace_content", "run_record", "RunStore", "sweep_lock", "RowBuffer", "write_table"]

ROW = "row.json"
ERROR = "error.json"
TABLE = "sweep.parquet"
#: The figure of the table `dcsim sweep` draws (:meth:`dcsim.sweep.SweepResult.plot`).
FIGURE = "sweep.png"
SPEC = "sweep.json"
#: The files a sweep writes at the top of OUT (beside runs/, traces/ and .lock).
OUT_FILES = (TABLE, SPEC)
#: OUT/sweep.json read back at most this large (it holds the base scenario, inline flows included).
MAX_SPEC_BYTES = 256 << 20


def run_record(key: str, version: str, seed: int, tables: bool, run_wall_s: Optional[float], metrics: dict,
               stopped: Optional[dict] = None) -> dict:
    """The content of a finished run's row.json; ``stopped``: the ``{"field", "message"}`` of a run
    a metrics.max_memory bound stopped (its metrics those of what it simulated, empty if it kept
    nothing), kept as its result (:data:`dcsim.sweep.worker.MEMORY_STOP`)."""
    from dcsim.sweep.spec import RUN_ID_HEX

    rec = {"run_id": key[:RUN_ID_HEX], "key": key, "version": version, "seed": seed, "tables": bool(tables),
           "run_wall_s": run_wall_s, "metrics": metrics}
    if stopped is not None:
        rec["stopped"] = dict(stopped)
    return rec


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory (``.<name>.<pid>.tmp``,
    which :func:`_remove_tmp` recognises) and a rename, without fsync (a killed process, not a power
    loss: see above): :func:`dcsim._files.atomic_write_bytes`."""
    atomic_write_bytes(path, data, fsync=False, tmp=path.with_name(f".{path.name}.{os.getpid()}.tmp"))


def atomic_link(src: Path, path: Path) -> None:
    """Make ``path`` the file ``src`` is: a hard link (no copy of the bytes), or a copy where the
    filesystem has none; via a temporary name and a rename, as :func:`atomic_write`."""
    import shutil

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, path)


#: The folder of OUT that holds each trace file the runs read, once.
TRACES = "traces"


def trace_content(path: str, digest: str) -> bytes:
    """The bytes of trace file ``path``, which must still be the content the sweep planned with
    (SHA-256 ``digest``); SweepError otherwise."""
    import hashlib

    from dcsim.scenario import read_data_file
    from dcsim.sweep.spec import SweepError

    try:
        data = read_data_file(Path(path), "trace")  # bounded, as when the sweep planned with it
    except ValueError as e:
        raise SweepError(f"{e}; finished runs are kept") from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise SweepError(f"{path}: the trace file changed after the sweep validated it; finished runs are kept, "
                         "run the sweep again to plan with its new content")
    return data


#: A temporary file untouched for this long is stale whoever wrote it (a run's file is written in
#: one go, in milliseconds; the writer's pid may be alive again as another process), s.
STALE_TMP_S = 60.0


def _pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie, killed but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ")"
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (not Linux): alive as far as we can tell


#: A temporary file of :func:`atomic_write`: ".<name>.<pid>.tmp".
_TMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)\.tmp")


def _remove_tmp(d: Path, now: Optional[float] = None, names: Optional[Callable[[str], bool]] = None) -> None:
    """Remove temporary files of :func:`atomic_write` (of files ``names`` accepts, if given) left
    by processes that died while writing, and any older than :data:`STALE_TMP_S` (not fresh ones
    of live writers: after a kill, a worker of the old sweep may still be writing the same run).
    Nothing else: OUT may be a directory of the user's, whose own ".notes.tmp" is not ours."""
    import time

    now = time.time() if now is None else now
    try:
        with os.scandir(d) as it:
            for p in it:
                m = _TMP.fullmatch(p.name)
                if m is None or (names is not None and not names(m["name"])):
                    continue
                pid = m["pid"]
                live = int(pid) != os.getpid() and _pid_alive(int(pid))
                try:
                    stale = now - p.stat(follow_symlinks=False).st_mtime > STALE_TMP_S
                except FileNotFoundError:
                    continue
                if not live or stale:
                    try:
                        os.unlink(p.path)
                    except FileNotFoundError:
                        pass
    except (FileNotFoundError, NotADirectoryError):
        pass


def _record_check(rec: dict) -> int:
    """CRC-32 of a row.json record without its "check" (keys sorted): a row damaged after it was
    written is computed again, not read as a result."""
    body = {k: v for k, v in rec.items() if k != "check"}
    return zlib.crc32(json.dumps(body, allow_nan=False, sort_keys=True, separators=(",", ":")).encode())


def _tables_whole(d: Path) -> bool:
    """Whether run directory ``d`` holds its scenario and whole Parquet files (the magic bytes at
    both ends: a file cut short, or edited, is computed again rather than read as a result)."""
    if not (d / "scenario.toml").is_file():
        return False
    try:
        for p in d.glob("*.parquet"):
            with open(p, "rb") as f:
                head = f.read(4)
                f.seek(-4, os.SEEK_END)
                if head != b"PAR1" or f.read(4) != b"PAR1":
                    return False
    except OSError:  # shorter than 4 bytes (seek before the start), unreadable
        return False
    return True


def sweep_lock(out: Path) -> contextlib.AbstractContextManager:
    """An exclusive lock on OUT/.lock (released by the OS if the process dies):
    :func:`dcsim._files.exclusive_lock`, its refusal said as the sweep's."""
    from dcsim.sweep.spec import SweepError

    def busy(holder: str) -> SweepError:
        return SweepError(f"out: another dcsim sweep is writing to {out} ({holder}); wait for it or use another --out")

    return exclusive_lock(Path(out) / ".lock", busy=busy)


class RunStore:
    """Finished runs under OUT/runs/<run_id>/."""

    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.runs = self.out / "runs"

    def run_dir(self, run_id: str) -> Path:
        return self.runs / run_id

    def load_row(self, run_id: str, key: str, *, need_tables: bool) -> Optional[dict]:
        """The finished row of ``run_id`` if it is there, whole, of this ``key`` (and has tables if needed)."""
        path = self.run_dir(run_id) / ROW
        try:
            rec = json.loads(path.read_bytes())
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError):
            return None  # unreadable: run again (cannot happen with atomic writes, but never trust it)
        if not isinstance(rec, dict) or rec.get("key") != key or not isinstance(rec.get("metrics"), dict):
            return None
        stopped = rec.get("stopped")
        if stopped is not None and not (isinstance(stopped, dict) and isinstance(stopped.get("message"), str)):
            return None
        # every run that ended has its summary's metrics: an emptied row is no result (a stopped run
        # may have none: it stopped before its warm-up ended)
        if not rec["metrics"] and stopped is None:
            return None
        if "check" in rec and rec["check"] != _record_check(rec):
            return None  # the row was damaged (or edited) after it was written
        if need_tables and (rec["metrics"] or stopped is None):  # a stop that kept nothing has no tables either way
            if not rec.get("tables"):
                return None
            listed = rec.get("files")
            whole = not_as_listed(self.run_dir(run_id), listed) is None if isinstance(listed, dict) else \
                _tables_whole(self.run_dir(run_id))  # a row written before the files were listed
            if not whole:
                return None
        return rec

    def save_ok(self, run_id: str, rec: dict, files: dict[str, bytes], links: Optional[dict[str, str]] = None) -> None:
        """Tables first (``links``: run file -> a file of OUT it is, :meth:`keep_trace`), then
        row.json (the mark of a finished run)."""
        d = self.run_dir(run_id)
        d.mkdir(parents=True, exist_ok=True)
        _remove_tmp(d)
        for name, data in files.items():
            atomic_write(d / name, data)
        for name, src in (links or {}).items():
            atomic_link(self.out / src, d / name)
        rec = {**rec, "files": {name: size_crc32(data) for name, data in files.items()}}
        rec["check"] = _record_check(rec)
        atomic_write(d / ROW, json.dumps(rec, allow_nan=False, separators=(",", ":")).encode())
        (d / ERROR).unlink(missing_ok=True)

    def keep_trace(self, path: str, digest: str) -> str:
        """Store trace file ``path`` once as OUT/traces/<digest>.csv (if it is not there yet) and
        return that name, relative to OUT. Raises SweepError if the file cannot be read or its
        content is no longer the one the sweep planned with (SHA-256 ``digest``)."""
        from dcsim.sweep.spec import SweepError

        rel = f"{TRACES}/{digest}.csv"
        dst = self.out / rel
        if not dst.is_file():
            data = trace_content(path, digest)
            try:
                dst.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(dst, data)
            except OSError as e:
                raise SweepError(f"out: cannot write {dst} ({e.strerror or e}); finished runs are kept") from None
        return rel

    def save_error(self, run_id: str, rec: dict) -> None:
        d = self.run_dir(run_id)
        d.mkdir(parents=True, exist_ok=True)
        _remove_tmp(d)
        (d / ROW).unlink(missing_ok=True)  # --force over a finished run that now fails
        atomic_write(d / ERROR, json.dumps(rec, indent=2, allow_nan=False).encode())

    def forget(self, run_id: str) -> None:
        """--force: the old result no longer counts."""
        (self.run_dir(run_id) / ROW).unlink(missing_ok=True)

    def other_sweep(self, described: dict) -> Optional[str]:
        """If OUT's table belongs to another sweep than ``described`` (a :meth:`SweepSpec.to_dict`),
        a short description of that sweep (its base and axes), which this one is about to replace;
        None if OUT has no sweep.json or it describes the same sweep (any dcsim version)."""
        from dcsim._files import read_at_most

        try:
            data = read_at_most(self.out / SPEC, MAX_SPEC_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as e:
            return f"an unreadable {SPEC} ({e.strerror or e})"
        try:
            old = json.loads(data) if data is not None else None
        except ValueError:
            old = None
        if not isinstance(old, dict):
            return f"a damaged {SPEC}"
        old = {k: v for k, v in old.items() if k not in ("dcsim_version", "tables")}
        if old == json.loads(json.dumps(described, default=str)):
            return None
        axes = old.get("axes")
        axes = " x ".join(f"{k} ({len(v) if isinstance(v, list) else '?'})" for k, v in axes.items()) \
            if isinstance(axes, dict) and axes else "no axes"
        return f"{old.get('base_name', '?')} over {axes}"

    def write_json(self, name: str, obj: Any) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        atomic_write(self.out / name, json.dumps(obj, indent=2, allow_nan=False, default=str).encode())

    def clean_tmp(self) -> None:
        """Remove stale temporary files in OUT, OUT/traces and every run's directory, finished (cached)
        runs included: those are never written again, so nothing else would clean them."""
        import time

        now = time.time()
        _remove_tmp(self.out, now, names=lambda n: n in OUT_FILES)
        _remove_tmp(self.out / TRACES, now, names=lambda n: n.endswith(".csv"))
        try:
            with os.scandir(self.runs) as it:
                for e in it:
                    if e.is_dir(follow_symlinks=False):
                        _remove_tmp(Path(e.path), now)
        except (FileNotFoundError, NotADirectoryError):
            pass


def _column(vals: list):
    """A pyarrow array of one column's values, its type inferred; integers beyond int64 (a seed up
    to 2^64 - 1) as unsigned 64-bit; mixed kinds (numbers and text) every value kept, as text."""
    import pyarrow as pa

    try:
        return pa.array(vals)
    except OverflowError:
        try:
            return pa.array(vals, type=pa.uint64())
        except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
            return pa.array([None if v is None else str(v) for v in vals])
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in vals])


def rows_to_table(rows: Iterable[dict]):
    """A pyarrow Table from row dicts (columns in first-seen order; missing values null)."""
    import pyarrow as pa

    rows = list(rows)
    cols: dict[str, None] = {}
    for r in rows:
        for k in r:
            cols.setdefault(k, None)
    return pa.table({c: _column([r.get(c) for r in rows]) for c in cols})


def _concat(chunks: list):
    """Chunks of rows as one table; a column typed differently in two chunks (int64 in one,
    uint64 or text in another) is inferred again from all its values, as in one chunk."""
    import pyarrow as pa

    try:
        return pa.concat_tables(chunks, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        names: dict[str, None] = {}
        for t in chunks:
            for n in t.column_names:
                names.setdefault(n, None)

        def values(n: str) -> list:
            return [v for t in chunks for v in (t.column(n).to_pylist() if n in t.column_names else [None] * t.num_rows)]

        return pa.table({n: _column(values(n)) for n in names})


class RowBuffer:
    """Rows collected in completion order, kept as Arrow chunks (a 100 000-run sweep stays small
    in memory), returned in plan order by :meth:`table`."""

    CHUNK = 2048

    def __init__(self) -> None:
        self._rows: list[dict] = []
        self._chunks: list = []
        # Each column's first place in plan order: (run index, position in that run's row). The
        # table's columns follow it, so that it does not depend on which run finished first (runs
        # of different topologies have different port columns; a review found the column order
        # changing with --jobs and on resume).
        self._first: dict[str, tuple[int, int]] = {}

    def add(self, index: int, row: dict) -> None:
        first = self._first
        for pos, k in enumerate(row):
            at = first.get(k)
            if at is None or (index, pos) < at:
                first[k] = (index, pos)
        self._rows.append({"_index": index, **row})
        if len(self._rows) >= self.CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            self._chunks.append(rows_to_table(self._rows))
            self._rows = []

    def __len__(self) -> int:
        return sum(t.num_rows for t in self._chunks) + len(self._rows)

    def table(self, metadata: Optional[dict] = None):
        import pyarrow as pa

        self._flush()
        if not self._chunks:
            return pa.table({})
        t = _concat(self._chunks) if len(self._chunks) > 1 else self._chunks[0]
        t = t.sort_by("_index").select(sorted(self._first, key=self._first.__getitem__))
        if metadata:
            t = t.replace_schema_metadata({k.encode(): json.dumps(v, default=str).encode() for k, v in metadata.items()})
        return t


def write_table(out: Path, table) -> Path:
    """OUT/sweep.parquet, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(out) / TABLE
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    atomic_write(path, sink.getvalue().to_pybytes())
    return path
