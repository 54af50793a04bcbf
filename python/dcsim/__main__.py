"""The ``dcsim`` console script and ``python -m dcsim``: :func:`dcsim.cli.entry`, imported here.

This module imports nothing heavy, so that a Ctrl-C (or SIGTERM, SIGHUP) that arrives while
``dcsim.cli`` and its libraries load (~0.2 s: typer, pydantic, rich) ends the command with one
line and status 128 + the signal's number, as it does once the command runs, instead of Python's
KeyboardInterrupt traceback (a robustness probe found one for a Ctrl-C in the first 0.2 s).
"""

from __future__ import annotations

import os
import signal
import sys

from dcsim._signals import signal_name, take_stop_signals


def entry() -> None:
    """Import the command line and run it (:func:`dcsim.cli.entry`); a signal during the import
    stops it before anything was read or written."""
    received: list[int] = []

    def on_signal(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    # SIGINT already raises KeyboardInterrupt; SIGTERM and SIGHUP would kill the process
    # silently, which is harmless here (nothing is written yet) but gives no status to tell.
    # dcsim.cli.main installs its own handlers (it checks they are still the defaults), so
    # these are put back first.
    previous = take_stop_signals(on_signal)
    try:
        from dcsim.cli import entry as run
    except KeyboardInterrupt:
        signum = received[-1] if received else signal.SIGINT
        try:
            sys.stderr.write(f"interrupted ({signal_name(signum)}) while starting: stopped before reading or writing "
                             "anything\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):  # stderr closed
            pass
        os._exit(128 + int(signum))
    finally:
        for num, handler in previous.items():
            signal.signal(num, handler)
    run()


if __name__ == "__main__":
    entry()
