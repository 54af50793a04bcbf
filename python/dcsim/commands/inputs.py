"""Input checks shared by the theory and fluid commands: every mistake exits with status 2 and a
one-line message naming the option and what is allowed, before anything is computed.

* :func:`quantity` parses a value with a unit ("10Gbps", "80us", "1500B") and checks its range
  (:mod:`dcsim.theory.limits`);
* :func:`number` checks a plain number option (--N, --g, --p);
* :func:`output_file` / :func:`output_dir` check an output path (parent exists, extension known)
  so that a run never ends in a traceback after minutes of work;
* :func:`fail` puts the message on one line and hands it to :func:`dcsim.cli.fail`, which prints
  user text such as ``[[network.links]]`` as is (escaped, never read as Rich markup).
"""

from __future__ import annotations

import math

import os
from pathlib import Path
from typing import Callable, NoReturn, Optional

from dcsim.theory.limits import Limit

__all__ = ["fail", "quantity", "number", "parse_bytes", "output_file", "output_dir", "CSV_SUFFIXES", "plot_suffixes"]

CSV_SUFFIXES = (".csv",)


def fail(msg: str) -> NoReturn:
    """Exit with status 2 printing ``error: msg`` on stderr, on one line; dcsim.cli.fail shows it
    literally (escaped, never read as Rich markup)."""
    from dcsim.cli import fail as cli_fail

    cli_fail(" ".join(str(msg).split()))
    raise AssertionError("unreachable")  # pragma: no cover - cli.fail raises typer.Exit


def quantity(text: str, option: str, parse: Callable[[str, str], float], limit: Limit) -> float:
    """Parse ``text`` with ``parse`` (e.g. units.parse_rate) and check it against ``limit``."""
    from dcsim.units import NotFiniteError, UnitError

    try:
        value = parse(text, option)
    except NotFiniteError:
        value = math.inf  # "1e400us": refused by the limit below, which names the allowed range (a probe)
    except UnitError as e:
        fail(str(e))
    try:
        return limit.check(value, option, given=text)
    except ValueError as e:
        fail(str(e))


def number(value: float, option: str, limit: Limit) -> float:
    try:
        return limit.check(value, option)
    except ValueError as e:
        fail(str(e))


def parse_bytes(text: str, option: str) -> float:
    """A size that must be given in bytes ("1500B", "9KB"): a packet or segment size."""
    from dcsim.units import UnitError, parse_size

    size = parse_size(text, option)
    if size.value == 0:  # a bare 0 (the one number allowed without a unit) is 0 bytes, not "0pkt" (a review)
        return 0.0
    if size.unit != "B":
        raise UnitError(f"{option}: {text} is in packets; give the size in bytes, such as 1500B")
    return size.value


def plot_suffixes() -> tuple[str, ...]:
    """File types matplotlib can write here (".png", ".pdf", ".svg", ...): ".pgf" only where its
    TeX system (rcParams["pgf.texsystem"], xelatex by default) is installed, without which it failed
    after the run (a review)."""
    import shutil

    import matplotlib
    from matplotlib.backend_bases import FigureCanvasBase

    kinds = set(FigureCanvasBase.get_supported_filetypes())
    if shutil.which(matplotlib.rcParams["pgf.texsystem"]) is None:
        kinds.discard("pgf")
    return tuple(sorted("." + k for k in kinds))


def whole_bytes(text: str, option: str) -> int:
    """A packet, segment or frame size: a size in bytes within theory.limits.PACKET, in whole bytes
    (`theory dctcp --packet-size 1.5B` had shown 1 B and computed with 1.5 B)."""
    from dcsim.theory import limits as L

    b = quantity(text, option, parse_bytes, L.PACKET)
    if not float(b).is_integer():
        fail(f"{option}: {text.strip()} is not a whole number of bytes; allowed 1 B .. 65535 B in whole bytes")
    return int(b)


def output_file(path: Optional[Path], option: str, suffixes: tuple[str, ...]) -> Optional[Path]:
    """Check that ``path`` can be written: known extension, existing parent directory, not a directory."""
    if path is None:
        return None
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        shown = ", ".join(suffixes) if len(suffixes) <= 6 else ", ".join(s for s in suffixes if s in (".png", ".pdf", ".svg")) + ", ..."
        fail(f"{option}: {path} has an unsupported extension {path.suffix or '(none)'!s}; allowed {shown}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"{option}: cannot write {path}: {parent} is a file, not a directory" if parent.exists() else
             f"{option}: cannot write {path}: directory {parent} does not exist (create it first)")
    if path.is_dir():
        fail(f"{option}: {path} is a directory; give a file name such as {path / ('out' + suffixes[0])}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option}: {path} is not writable")
    return path


def output_dir(path: Path, option: str) -> Path:
    """Create the output directory now (parents too), so a bad path fails before any computation."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        fail(f"{option}: {path} exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"{option}: cannot create directory {path}: {e.strerror or e}")
    if not os.access(path, os.W_OK):
        fail(f"{option}: directory {path} is not writable")
    return path
