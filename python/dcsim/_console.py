"""The command line's consoles and tables (rich), made in one place: :func:`wide_console`,
:func:`titled_table`, :func:`print_table`, and the streams under them
(:func:`tolerate_narrow_encodings`)."""

from __future__ import annotations

import contextlib
import os

from rich.console import Console
from rich.table import Table

__all__ = ["print_table", "say", "silence", "slow_step", "status_line", "status_note", "titled_table",
           "tolerate_narrow_encodings", "wide_console", "bar_fits", "bar_width"]


@contextlib.contextmanager
def slow_step(console: Console, text: str, after_s: float = 1.0):
    """A spinner with ``text`` on ``console`` (a terminal; elsewhere nothing) while the block runs,
    once it has run ``after_s`` seconds: reading a million-flow trace takes ~25 s with nothing else
    on the screen, and the demo's 0.1 s shows none. The timer's thread sleeps until then, and the
    spinner (rich.status, ~6 ms to import) is made only then."""
    import threading

    shown = []

    def show() -> None:
        if console.is_dumb_terminal:
            return  # it cannot redraw there: a spinner only left an empty line
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


#: The command's live status line, if one is shown: (its Progress, its task, its text with a
#: "{note}" slot). At most one live display can hold a terminal's last lines: a sweep inside
#: `dcsim reproduce` had drawn its bar on a console of its own, and the two overwrote each other
#: on every refresh and left unlabelled sweep bars behind (a probe).
_STATUS: list = []


@contextlib.contextmanager
def status_line(progress, task, text: str):
    """While the block runs, ``progress``'s ``task`` is the status line that :func:`status_note`
    writes into: ``text`` with its "{note}" replaced."""
    _STATUS.append((progress, task, text))
    progress.update(task, description=text.replace("{note}", ""))
    try:
        yield
    finally:
        _STATUS.pop()


def status_note(note: str) -> bool:
    """Show ``note`` in the command's status line; False when there is none (the caller then
    shows its progress its own way)."""
    if not _STATUS:
        return False
    progress, task, text = _STATUS[-1]
    progress.update(task, description=text.replace("{note}", note))
    return True


def silence(stream) -> None:
    """Send what is still written to ``stream`` nowhere (its reader went away, or its disk is
    full), so that the rest of the command, and Python's exit, do not fail on it."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)


#: One-column ASCII stand-ins for the symbols dcsim prints, where a stream cannot write them (the
#: rest: their NFKD base letter if it is ASCII, "é" -> "e", "²" -> "2"; else "?").
ASCII_STAND_INS = {
    "α": "a", "β": "b", "γ": "g", "δ": "d", "ε": "e", "η": "h", "θ": "t", "λ": "l", "µ": "u", "μ": "u",
    "ξ": "x", "π": "p", "ρ": "r", "σ": "s", "τ": "t", "φ": "f", "χ": "x", "ψ": "y", "ω": "w", "Δ": "D",
    "Ω": "W", "—": "-", "–": "-", "−": "-", "·": ".", "×": "x", "≤": "<", "≥": ">", "≈": "~", "∝": "~",
    "→": ">", "←": "<", "±": "+", "§": "S", "√": "V", "∞": "8", "°": "o", "…": ".", "▼": "v",
}


def _ascii_stand_in(err: UnicodeError) -> tuple[str, int]:
    """The ``dcsim-ascii`` codec error handler: each character a stream cannot write becomes as
    many columns of ASCII as it takes on the screen, so that tables keep their borders: a stand-in
    (ω -> w, ² -> 2), nothing for a combining mark (Q̂ -> Q: rich counts it as no column, and "?"
    had pushed a table's right border onto the next line), "?" otherwise."""
    import unicodedata

    from rich.cells import cell_len

    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        if unicodedata.combining(ch):
            continue
        base = ASCII_STAND_INS.get(ch) or unicodedata.normalize("NFKD", ch)[:1]
        width = cell_len(ch)
        out.append((base if base.isascii() and base.isprintable() else "?").ljust(width, "?")[:width])
    return "".join(out), err.end


def tolerate_narrow_encodings() -> None:
    """stdout and stderr, when their encoding cannot write every character (an ASCII or Latin-1
    locale, PYTHONIOENCODING=ascii), write an ASCII stand-in for one they cannot (ω -> w, ² -> 2,
    "?" for the rest; :func:`_ascii_stand_in`) instead of failing: `dcsim theory dctcp` ended in an
    internal error on such a terminal. UTF-8 streams are left as they are."""
    import codecs
    import sys

    try:
        codecs.lookup_error("dcsim-ascii")
    except LookupError:
        codecs.register_error("dcsim-ascii", _ascii_stand_in)
    for stream in (sys.stdout, sys.stderr):
        try:
            name = codecs.lookup(stream.encoding).name
        except (AttributeError, LookupError, TypeError):
            continue
        if not name.startswith("utf") and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="dcsim-ascii")


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
    table on the first print, and search every string for codes). ``COLUMNS`` sets the width on a
    terminal only: GNU readline, which pytest and Python's prompt import, writes COLUMNS = 80 into
    its process's environment, and every child inherits it, so that honouring it in a pipe had
    wrapped a command's piped output at 80 columns that nobody asked for (a review)."""
    c = _Console(stderr=stderr, emoji=False)
    return c if c.is_terminal else _Console(stderr=stderr, width=250, emoji=False)


def bar_width(console: Console, beside: int) -> int:
    """A progress bar's width, 3 to 40 characters, that ends the line short of its last column
    beside ``beside`` characters of other columns: a bar filling the line left the cursor at its
    end, a terminal's "^C" echo wrapped it, and the bar's cleanup erased the wrong line, leaving a
    stale bar above the message (a probe, at 60-80 columns)."""
    return max(3, min(40, console.width - 1 - beside))


def bar_fits(console: Console, beside: int) -> bool:
    """Whether a bar of :func:`bar_width`'s least, 3 characters, fits beside ``beside`` characters
    of other columns; where it does not, a progress display leaves the bar out (and rich does not
    cut its other fields to "…")."""
    return console.width - 1 - beside >= 3


def say(console: Console, text: str) -> None:
    """Print a message (an error, a warning, the files written): on a terminal wrapped between
    words at its width, elsewhere on one line, however long (a log or a pipe reads it whole).
    Left to the terminal, a message had been broken mid-word, mid-unit and mid-number ("at least
    11." / "1786 us", "flows.pa" / "rquet" in an 80-column terminal: a probe)."""
    console.print(text, soft_wrap=not console.is_terminal)


def titled_table(title: str, **kwargs) -> Table:
    """A table at least as wide as its title (the terminal permitting), so that a title listing
    the inputs is not wrapped inside a quantity ("R0 = 80" / "us") when the columns are narrow."""
    return Table(title=title, min_width=len(title), **kwargs)


def _column_widths(console: Console, table: Table) -> list[tuple[int, int]]:
    """Each column's (least, natural) width of content, padding apart: its widest word (a number is
    one word; a header may wrap between words), and its widest header or cell on one line."""
    from rich.measure import Measurement

    options = console.options.update_width(10**6)
    out = []
    for col in table.columns:
        got = [Measurement.get(console, options, r) for r in (col.header, *col.cells)]
        least = max([m.minimum for m in got] + [col.min_width or 0])
        out.append((least, max([m.maximum for m in got] + [least])))
    return out


def _frame_width(table: Table, columns: int) -> int:
    """What a table of ``columns`` columns adds to its contents: their padding and the box's lines."""
    _, pad_right, _, pad_left = table.padding
    padding = columns * (pad_left + pad_right) - (0 if table.pad_edge else pad_left + pad_right)
    return padding + ((columns - 1 + (2 if table.show_edge else 0)) if table.box else 0)


def _fitted(least: list[int], natural: list[int], room: int) -> list[int]:
    """Widths from ``least`` toward ``natural`` within ``room`` characters, shared max-min fairly:
    every column gets its natural width up to a common level, the level as high as the room allows
    (each at least its ``least``), the characters left one each to the first columns still short.
    The room had gone a character at a time to the column furthest from its natural width, so a
    claims table's 400-character detail took it all and the value beside it was folded to its
    widest word, 11 lines for "peaks at wbar = 2.36, 2.36, 2.36" (a review)."""
    natural = [max(n, lw) for lw, n in zip(least, natural)]

    def used(level: int) -> int:
        return sum(max(lw, min(n, level)) for lw, n in zip(least, natural))

    if not least or used(0) >= room:
        return list(least)
    lo, hi = 0, max(natural)  # the highest level whose widths fit: used(lo) <= room
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if used(mid) <= room else (lo, mid - 1)
    widths = [max(lw, min(n, lo)) for lw, n in zip(least, natural)]
    spare = room - sum(widths)
    for i in range(len(widths)):  # one more to the first columns still short at the level (not above it)
        if spare <= 0:
            break
        if widths[i] < natural[i] and widths[i] <= lo:
            widths[i] += 1
            spare -= 1
    return widths


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` without cutting a number: rich, short of room, narrows every column alike
    and cuts what no longer fits ("100.…" for 100.00 %, "390…" for 39 097 marks in an 80-column
    terminal: a probe). Where the columns do not fit side by side on one line each, they get
    widths of their own (each at least its widest word, so a header wraps between words and no
    cell is cut); where not even that fits, the table is printed as several tables of the same
    rows, each with the first column (the row's name) and as many of the next as fit, as pandas
    prints a wide frame."""
    n = len(table.columns)
    widths = _column_widths(console, table)
    if n == 0 or sum(w for _, w in widths) + _frame_width(table, n) <= console.width:
        console.print(table)
        return

    def fits(cols: list[int]) -> bool:
        return sum(widths[i][0] for i in cols) + _frame_width(table, len(cols)) <= console.width

    parts: list[list[int]] = [[]]
    for i in range(1, n):  # all in one part where they fit at their least widths
        if parts[-1] and not fits([0, *parts[-1], i]):
            parts.append([])
        parts[-1].append(i)
    cells = [list(col.cells) for col in table.columns]
    for k, part in enumerate(parts):
        cols = [0, *part]
        room = console.width - _frame_width(table, len(cols))
        sized = _fitted([widths[i][0] for i in cols], [widths[i][1] for i in cols], room)
        title = table.title if k == 0 else (f"{table.title} (continued)" if table.title else None)
        caption = table.caption if k == len(parts) - 1 else None
        # As wide as its title and caption (rich caps it at the line): a piece of one narrow column
        # had wrapped them over ten lines of 17 characters (a probe).
        piece = Table(title=title, caption=caption, box=table.box, show_lines=table.show_lines,
                      show_edge=table.show_edge, pad_edge=table.pad_edge, padding=table.padding,
                      min_width=max(len(str(title or "")), len(str(caption or ""))))
        for i, width in zip(cols, sized):
            col = table.columns[i]
            piece.add_column(col.header, justify=col.justify, style=col.style, header_style=col.header_style,
                             overflow=col.overflow, vertical=col.vertical, width=width)
        for r in range(table.row_count):
            piece.add_row(*(cells[i][r] for i in cols))
        console.print(piece)
