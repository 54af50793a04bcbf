"""The signals that stop a command as Ctrl-C does, and how a message names them (imports only
``signal``: :mod:`dcsim.__main__` uses it before the command line loads)."""

from __future__ import annotations

import signal
from typing import Any, Callable

#: SIGTERM (a batch scheduler, `timeout`, `kill`) and SIGHUP (a closed terminal): their default
#: action kills the process where it stands; a command takes them over and stops as on Ctrl-C.
STOP_SIGNALS = ("SIGTERM", "SIGHUP")

#: The stop signals (Ctrl-C's SIGINT too) a command has received while it runs, in order: by the
#: command line's handler and by a sweep's, which stops at a safe point (``StopSignals``). Once one
#: has come, the command is stopping, and the command line's handler leaves a further one to that
#: stop (see :func:`dcsim.cli.main`). The command line clears it when a command starts.
RECEIVED: list = []


def take_stop_signals(handler: Callable[[int, Any], Any]) -> dict[int, Any]:
    """Install ``handler`` for each of STOP_SIGNALS that this platform has and that still has its
    default action; returns {signal: the handler it had}, to put back."""
    previous = {}
    for name in STOP_SIGNALS:
        num = getattr(signal, name, None)
        if num is not None and signal.getsignal(num) is signal.SIG_DFL:
            previous[num] = signal.signal(num, handler)
    return previous


def signal_name(signum: int) -> str:
    """"Ctrl-C" for SIGINT, else the signal's name ("SIGTERM")."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
