"""The command line's consoles and titled tables (rich), made in one place: :func:`wide_console`,
:func:`titled_table`, and the streams under them (:func:`tolerate_narrow_encodings`)."""

from __future__ import annotations

import contextlib
import os

from rich.console import Console
from rich.table import Table

__all__ = ["silence", "slow_step", "titled_table", "tolerate_narrow_encodings", "wide_console"]


@contextlib.contextmanager
def slow_step(console: Console, text: str, after_s: float = 1.0):
    """A spinner with ``text`` on ``console`` (a terminal; elsewhere nothing) while the block runs,
    once it has run ``after_s`` seconds: reading a million-flow trace takes ~25 s with nothing else
    on the screen, and the demo's 0.1 s shows none. The timer's thread sleeps until then, and the
    spinner (rich.status, ~6 ms to import) is made only then."""
    import threading

    shown = []

    def show() -> None:
        status = console.status(text)
        status.start()
        shown.append(status)

    timer = threading.Timer(after_s, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # a spinner being started is in `shown` before it is stopped below
        for status in shown:
            status.stop()


def silence(stream) -> None:
    """Send what is still written to ``stream`` nowhere (its reader went away, or its disk is
    full), so that the rest of the command, and Python's exit, do not fail on it."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)


def tolerate_narrow_encodings() -> None:
    """stdout and stderr, when their encoding cannot write every character (an ASCII or Latin-1
    locale, PYTHONIOENCODING=ascii), write "?" for one they cannot (α, —, µ) instead of failing:
    `dcsim theory dctcp` ended in an internal error on such a terminal. UTF-8 streams are left as
    they are."""
    import codecs
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            name = codecs.lookup(stream.encoding).name
        except (AttributeError, LookupError, TypeError):
            continue
        if not name.startswith("utf") and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="replace")


class _Console(Console):
    """A rich console that outlives its reader: when the reader of its stream goes away (`dcsim
    run ... | head -1`), further output goes nowhere and the command goes on, so that a run still
    writes its output directory. (Rich's own reaction is to exit at once with status 1, which
    discarded the run's half-written directory.)"""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        silence(self.file)


def wide_console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that never cuts tables at 80 columns when the output is not
    a terminal, and that prints what it is given: no ``:name:`` emoji codes (a file or flow
    named ``my:cd:run`` stays so, not a compact disc; rich would also import its 3 600-entry code
    table on the first print, and search every string for codes)."""
    c = _Console(stderr=stderr, emoji=False)
    return c if c.is_terminal else _Console(stderr=stderr, width=250, emoji=False)


def titled_table(title: str, **kwargs) -> Table:
    """A table at least as wide as its title (the terminal permitting), so that a title listing
    the inputs is not wrapped inside a quantity ("R0 = 80" / "us") when the columns are narrow."""
    return Table(title=title, min_width=len(title), **kwargs)
