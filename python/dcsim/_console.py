"""The command line's consoles (rich), made in one place: :func:`wide_console`."""

from __future__ import annotations

import contextlib
import os

from rich.console import Console

__all__ = ["wide_console"]


class _Console(Console):
    """A rich console that outlives its reader: when the reader of its stream goes away (`dcsim
    run ... | head -1`), further output goes nowhere and the command goes on, so that a run still
    writes its output directory. (Rich's own reaction is to exit at once with status 1, which
    discarded the run's half-written directory.)"""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.file.fileno())


def wide_console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that never cuts tables at 80 columns when the output is not
    a terminal."""
    c = _Console(stderr=stderr)
    return c if c.is_terminal else _Console(stderr=stderr, width=250)
