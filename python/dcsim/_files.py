"""Output files that are never left half-written, and input files read with a bound.

:func:`atomic_dir` builds a directory under a temporary sibling name and renames it into place
only when everything in it is written; an exception (including Ctrl-C) removes the partial
directory and leaves any previous output untouched. :func:`atomic_write_bytes` does the same for
one file (write to a temporary name in the same directory, fsync, rename). :func:`read_at_most`
reads a user's file no further than a limit: a device (``/dev/zero``) or a pipe never ends.
:func:`exclusive_lock` keeps two processes from writing one output at the same time.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import shutil
import stat
import zlib
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

__all__ = ["atomic_write_with", "atomic_dir", "atomic_write_bytes", "read_at_most", "exclusive_lock", "LockBusy", "MANIFEST",
           "read_manifest", "read_small_json", "size_crc32", "file_checks", "not_as_listed", "frame_to_parquet"]


@contextlib.contextmanager
def atomic_dir(out: Path) -> Iterator[Path]:
    """Yield a fresh temporary directory; on success it replaces ``out`` (rename), else it is removed.
    If the rename fails, the files are kept where they were written and the OSError names that place."""
    out = Path(os.path.abspath(out))  # "-o ./x/" has a name; "-o ." is refused before the run (run.check_out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    _remove_orphans(out)
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    try:
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except OSError as e:
        if old.exists() and not out.exists():
            with contextlib.suppress(OSError):
                os.replace(old, out)  # the previous directory back in place
        raise OSError(e.errno, f"cannot put the new directory in place of {out} ({e.strerror or e}); "
                               f"its files are kept in {tmp}") from None
    shutil.rmtree(old, ignore_errors=True)


def _remove_orphans(out: Path) -> None:
    """Remove the temporary siblings of ``out`` (``.<name>.partial-<pid>``, ``.<name>.old-<pid>``)
    left by processes that no longer exist: killed (SIGKILL, a crash) before they could clean up.
    A directory of a live process (or of one this user may not signal) is left alone."""
    for kind in ("partial", "old"):
        for path in out.parent.glob(f".{glob.escape(out.name)}.{kind}-*"):
            pid = path.name.rsplit("-", 1)[-1]
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                shutil.rmtree(path, ignore_errors=True)
            except (OverflowError, OSError):  # alive but another user's (EPERM), or no pid at all
                continue


def atomic_write_with(path: Path, write: Callable[[Path], object], *, tmp: Optional[Path] = None) -> None:
    """Have ``write(tmp)`` write a file (a figure's savefig, a frame's to_csv) into a temporary
    file beside ``path`` (default ``.<name>.tmp-<pid><suffix>``: the same suffix, as a writer may
    pick its format by it), then rename it into place: a reader, a crash or a failure sees the old
    file or the new one, never a truncated one, and no temporary file is left. A path that is not
    a regular file (``/dev/stdout``, a named pipe, a device) is written through as given; a
    symbolic link to a file has its target replaced, not the link."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # through symbolic links
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        write(path)
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}{path.suffix}") if tmp is None else tmp
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True, tmp: Optional[Path] = None) -> None:
    """Write ``data`` to ``path`` as :func:`atomic_write_with` does, flushed to the disk unless
    ``fsync`` is False. An OSError that names no file names ``path`` (a write's own error names
    none: a full disk was "writing the output")."""
    def write(t: Path) -> None:
        with open(t, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())

    try:
        atomic_write_with(path, write, tmp=tmp)
    except OSError as e:
        if e.filename is None:
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        raise


def read_at_most(path: Path, limit: int) -> Optional[bytes]:
    """The bytes of ``path``, or None if it holds more than ``limit`` bytes. A regular file's size
    is checked before reading; anything else (a device, a pipe: ``dcsim run <(make-scenario)``) is
    read in chunks, no further than ``limit + 1`` bytes. Raises OSError as ``open`` does."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode):
            return None if st.st_size > limit else f.read()
        chunks, n = [], 0
        while n <= limit:
            chunk = f.read(min(1 << 20, limit + 1 - n))
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
    return None if n > limit else b"".join(chunks)


class LockBusy(Exception):
    """Another process holds the lock; ``holder``: what it wrote into the lock file ("pid 123")."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


@contextlib.contextmanager
def exclusive_lock(path: Path, *, remove: bool = False,
                   busy: Callable[[str], BaseException] = LockBusy) -> Iterator[None]:
    """Hold an exclusive advisory lock (``flock``) on file ``path`` (created if need be) for the
    block, with "pid <this process>" written in it; raise ``busy(holder)`` (:class:`LockBusy`, or
    the caller's own error) at once if another process (or another open of the file in this one)
    holds it; ``holder`` is what it wrote there ("pid 123", or "pid unknown"). The system releases the lock when
    its process ends, however it ends. With ``remove``, the file is deleted as the lock is let go
    (a sibling of a directory that is replaced whole, not to be left beside it); a process that
    opened the file just before that locks a deleted file, sees so, and locks the new one. Without
    ``fcntl`` (Windows) there is no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        yield
        return
    path = Path(path)
    while True:
        # (again on each try: the holder of a lock file it deletes may remove its folder too, as a
        # sweep that wrote nothing does: a review saw FileNotFoundError here)
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path, "a+", encoding="utf-8")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                f.close()
                raise  # no lock on this file system (ENOLCK): said, not ignored
            holder = ""
            with contextlib.suppress(OSError, ValueError):
                f.seek(0)
                holder = f.read().strip()
            f.close()
            raise busy(holder or "pid unknown") from None
        try:
            current = os.stat(path).st_ino == os.fstat(f.fileno()).st_ino
        except FileNotFoundError:
            current = False
        if current:
            break
        f.close()  # its holder deleted it as it let go: lock the file now at that name
    try:
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}")
        f.flush()
        yield
    finally:
        if remove:
            with contextlib.suppress(OSError):
                os.unlink(path)
        f.close()


#: The file in which a run lists the files it wrote (itself not included), with each file's size
#: and CRC-32 ("sizes_crc32"); see :func:`dcsim.run.unexpected_files` and
#: :meth:`dcsim.result.Result.from_dir`.
MANIFEST = "dcsim-manifest.json"


def dir_path(out, field: str = "out") -> Path:
    """``out`` (a str or path-like) as a Path; anything else (None: an API audit) raises
    ValueError naming ``field``."""
    if not isinstance(out, (str, os.PathLike)) or not str(out):
        raise ValueError(f"{field}: {out!r} is not a directory path")
    return Path(out)


def given_path(path, field: str) -> Path:
    """``path`` (a str or path-like) as a Path, or a ValueError naming ``field``."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ValueError(f"{field}: {path!r} is not a file path")
    return Path(path)


def file_path(path, field: str) -> Path:
    """``path`` (a str or path-like) as a Path whose folder exists (made, as ``Result.to_dir``
    makes its own): a missing folder had failed after the work, in PIL or pathlib (an API audit).
    Raises ValueError naming ``field``."""
    p = given_path(path, field)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{field}: cannot create the folder {str(p.parent)!r} ({e.strerror or e})") from None
    return p


#: A run's small JSON files (its manifest, its summary) hold kilobytes: more is not one of them.
SMALL_JSON_MAX_BYTES = 16 << 20


def read_small_json(path: Path):
    """The JSON value of file ``path``, or None: none, unreadable, not JSON, larger than
    SMALL_JSON_MAX_BYTES, or not a regular file (a pipe or a device is never opened: opening a
    pipe waits for a writer, /dev/zero never ends)."""
    f = Path(path)
    try:
        if not f.is_file():
            return None
        data = read_at_most(f, SMALL_JSON_MAX_BYTES)
        return None if data is None else json.loads(data.decode("utf-8"))
    except (OSError, ValueError):
        return None


def read_manifest(path: Path) -> Optional[dict]:
    """Directory ``path``'s manifest, or None (see :func:`read_small_json`; or not a table)."""
    m = read_small_json(Path(path) / MANIFEST)
    return m if isinstance(m, dict) else None


def size_crc32(data: bytes) -> list[int]:
    """How a run lists one of its files: [size in bytes, CRC-32]."""
    return [len(data), zlib.crc32(data)]


def file_checks(paths: Iterable[Path]) -> dict[str, list[int]]:
    """{file name: :func:`size_crc32` of its content} of the files ``paths`` (read back)."""
    return {Path(p).name: size_crc32(Path(p).read_bytes()) for p in paths}


def frame_to_parquet(df, path: Path) -> None:
    """Write DataFrame ``df`` as a Parquet file through a file Python opened: a path that is not
    UTF-8 is a str Arrow refuses (an output path of a probe ended `sweep` and `reproduce` in an
    internal error). The bytes are made in memory first: given the open file, pandas 2.3 and
    pyarrow 21 on Python 3.9 read its name and failed on such a path too."""
    import io

    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    # renamed into place: a failure leaves the earlier file, not a truncated one
    atomic_write_bytes(Path(path), buf.getvalue(), fsync=False)


#: A listed file larger than both its listed size and this is compared by its size alone (not read).
LISTED_READ_MAX_BYTES = 1 << 30


def not_as_listed(d: Path, listed: dict) -> Optional[tuple[str, str]]:
    """The first file of ``listed`` ({name: [size, CRC-32]}, as a run listed what it wrote) that
    directory ``d`` does not hold as listed, and why: (name, reason); None if each is there, of
    its size and CRC-32 (a file missing, cut short, changed in place, or another run's)."""
    for name, meta in listed.items():
        if (not (isinstance(meta, list) and len(meta) == 2 and all(type(x) is int for x in meta))
                or "/" in name or "\\" in name or name.startswith(".")):
            return str(name), f"listed as {meta!r}, not as a file name with its size and CRC-32"
        f = Path(d) / name
        try:
            if f.exists() and not f.is_file():  # a pipe would never open, a device never end
                return name, "not a regular file"
            data = read_at_most(f, max(meta[0], LISTED_READ_MAX_BYTES))
        except OSError as e:
            return name, f"cannot be read ({e.strerror or e})"
        if data is None:
            return name, f"{f.stat().st_size} bytes, where the run wrote {meta[0]} bytes"
        got = size_crc32(data)
        if got != meta:
            return name, f"{got[0]} bytes, CRC-32 {got[1]:08x}, where the run wrote {meta[0]} bytes, CRC-32 {meta[1]:08x}"
    return None
