"""Units at the edges: parse "10Gbps", "100us", "65pkt", "256KB" into one SI unit per quantity.

Inside dcsim every quantity has exactly one unit:

* rate      -> bit/s            (float)
* time      -> seconds          (float); the Rust engine uses integer picoseconds
* size      -> bytes            (float) or packets when the user wrote "pkt"

A quantity must carry its unit ("100" alone could be seconds or microseconds); only 0 may be
written bare. Units are case-sensitive: b is a bit and B a byte ("10Gbps" is gigabits per
second, "1.25GBps" gigabytes per second, "1Mb" a megabit), m would be milli, so "10mbps" or
"10GBPS" are refused with a hint rather than guessed. Every parse error names what was given
and what is allowed.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Optional

__all__ = [
    "UnitError",
    "parse_rate",
    "parse_time",
    "parse_size",
    "Size",
    "to_ps",
    "fmt_rate",
    "fmt_time",
    "fmt_wall",
    "DEFAULT_PACKET_BYTES",
    "capacity_pps",
    "closest_name",
    "did_you_mean",
    "count_shown",
]

#: Packet size on the wire used by the papers (1500-byte packets), bytes.
DEFAULT_PACKET_BYTES = 1500


class UnitError(ValueError):
    """A quantity string could not be parsed; the message lists the accepted units."""


class NotFiniteError(UnitError):
    """A quantity's number is infinite or NaN ("1e400s" overflows a double): a caller that knows the
    field's range says it."""


_NUM = r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"  # ASCII digits (\d takes "１")
_RE = re.compile(r"^\s*" + _NUM + r"\s*([A-Za-z/µμ]*)\s*$")

# Units are case-sensitive, as in the SI and IEC conventions: b is a bit and B a byte; k (or K)
# is kilo, M mega, G giga, T tera; m would be milli. Anything else is rejected (with a hint when
# the spelling looks like a known unit in another case), never guessed.
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def shown(value: Any) -> str:
    """A user's value in an error, as they wrote it: true/false as in TOML (not Python's True, also
    inside a list), a table as "a table", anything else as its repr, cut to one line."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, dict):
        text = "a table"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(shown(v) for v in value[:20]) + (", ..." if len(value) > 20 else "") + "]"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def exact_num(v: float) -> str:
    """A number in an error message, never rounded into the range it broke: "%g" when that is the
    value exactly ("1e+07", "0.5"), else its shortest exact form ("10000001", "1.0000000001"; a review:
    init_cwnd = 10000001 was shown as "1e+07 is out of range; allowed 1 .. 1e+07")."""
    v = float(v)
    g = f"{v:g}"
    if float(g) == v or not math.isfinite(v):
        return g
    return str(int(v)) if v.is_integer() and abs(v) < 2**63 else repr(v)


def _rate_units() -> dict[str, float]:
    out = {}
    for p, mult in _PREFIX.items():
        for bit in ("bps", "b/s", "bit/s"):
            out[p + bit] = mult
        for byte in ("Bps", "B/s"):
            out[p + byte] = 8.0 * mult
    return out


_RATE_UNITS = _rate_units()  # -> bit/s per unit
_TIME_UNITS = {
    # divisors: seconds = number / divisor (division keeps "100us" == 1e-4 exactly)
    "s": 1.0,
    "ms": 1e3,
    "us": 1e6,
    "µs": 1e6,
    "μs": 1e6,
    "ns": 1e9,
    "ps": 1e12,
}


def _size_units() -> dict[str, float]:
    out = {"B": 1.0, "byte": 1.0, "bytes": 1.0, "b": 0.125, "bit": 0.125, "bits": 0.125}
    for p, mult in _PREFIX.items():
        if p:
            out[p + "B"] = mult  # KB = 1000 B: decimal, as in networking
            out[p + "b"] = mult / 8.0  # Mb = 10^6 bit
            out[p + "bit"] = mult / 8.0
    for p, mult in (("Ki", 1024.0), ("Mi", 1024.0**2), ("Gi", 1024.0**3), ("Ti", 1024.0**4)):
        out[p + "B"] = mult
    return out


_SIZE_UNITS = _size_units()  # -> bytes per unit
_PKT_UNITS = {"pkt", "pkts", "packet", "packets"}

RATE_FORMS = '"10Gbps", "100Mbps", "1.25GBps" (b = bit, B = byte; prefixes k/K, M, G, T)'
TIME_FORMS = '"1s", "50ms", "100us", "500ns", "10ps"'
SIZE_FORMS = '"65pkt", "1500B", "256KB", "1MiB", "1Mb" (B = byte, b = bit)'
#: Sizes counted in bytes only (a memory bound, flow-size bucket edges).
BYTE_FORMS = '"1500B", "100KB", "1GB", "1MiB" (B = byte, b = bit)'


def _hint(unit: str, known) -> str:
    """A did-you-mean for a unit spelled in the wrong case, e.g. 'gbps' -> 'Gbps'."""
    same = [k for k in known if k.lower() == unit.lower()]
    return f"; did you mean {' or '.join(repr(k) for k in same)}?" if same else ""


def _not_finite(what: str, value, x: float) -> str:
    """The message for a quantity that is not a finite number: a number written too large for a
    double ("1e400pkt") is out of its range; "inf" or "nan" written as such is not finite."""
    if math.isinf(x) and "inf" not in str(value).lower():
        return f"{what}: {value!r} is out of range; allowed within ±1.8e308 (a double), and each field has its own narrower bound"
    return f"{what}: {value!r} is not finite"


def _split(value, what: str, forms: str) -> tuple[float, str]:
    """(number, unit) of a quantity; a number without a unit is refused unless it is 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UnitError(f"{what}: expected a quantity with a unit such as {forms}, got {shown(value)}")
    if isinstance(value, (int, float)):
        try:
            x, u = float(value), ""
        except OverflowError:  # an integer beyond a double's range
            digits = int(value.bit_length() * math.log10(2)) + 1
            raise UnitError(f"{what}: an integer of about {digits} digits is out of range; write a number "
                            f"and a unit such as {forms}") from None
    else:
        m = _RE.match(value)
        if not m:
            raise UnitError(f"{what}: cannot parse {value!r}; write a number and a unit such as {forms}")
        x, u = float(m.group(1)), m.group(2)
    if not math.isfinite(x):
        raise NotFiniteError(_not_finite(what, value, x))
    if not u and x != 0:
        raise UnitError(f"{what}: {value!r} has no unit; write a number and a unit such as {forms}")
    return x, u


def parse_rate(value: str | float | int, what: str = "rate") -> float:
    """Parse a link rate such as "10Gbps" (bits) or "1.25GBps" (bytes) into bit/s."""
    x, u = _split(value, what, RATE_FORMS)
    if u:
        if u not in _RATE_UNITS:
            raise UnitError(f"{what}: unknown rate unit {u!r} in {value!r}{_hint(u, _RATE_UNITS)}; allowed: {RATE_FORMS}")
        x *= _RATE_UNITS[u]
    return x


def parse_time(value: str | float | int, what: str = "time") -> float:
    """Parse a duration such as "100us" into seconds."""
    x, u = _split(value, what, TIME_FORMS)
    if u:
        if u not in _TIME_UNITS:
            raise UnitError(f"{what}: unknown time unit {u!r} in {value!r}{_hint(u, _TIME_UNITS)}; allowed: {TIME_FORMS}")
        x /= _TIME_UNITS[u]
    return x


@dataclass(frozen=True)
class Size:
    """A buffer size or threshold: either a packet count or a byte count."""

    value: float
    unit: str  # "pkt" or "B"

    def packets(self, packet_bytes: int = DEFAULT_PACKET_BYTES) -> float:
        return self.value if self.unit == "pkt" else self.value / packet_bytes

    def bytes(self, packet_bytes: int = DEFAULT_PACKET_BYTES) -> float:
        return self.value if self.unit == "B" else self.value * packet_bytes

    def __str__(self) -> str:
        return f"{self.value:g}{'pkt' if self.unit == 'pkt' else 'B'}"


def parse_size(value: str | float | int | Size, what: str = "size", *, bare: str | None = None,
               forms: str = SIZE_FORMS) -> Size:
    """Parse "65pkt" (packets) or "256KB" / "1500B" / "1Mb" (bytes; b = bit).

    A plain number needs ``bare="pkt"`` (fields counted in packets by definition, such as
    windows); otherwise it is refused unless it is 0. ``forms``: the examples a message shows
    (BYTE_FORMS for a field counted in bytes only).
    """
    if isinstance(value, Size):
        return value
    if bare == "pkt" and isinstance(value, (int, float)) and not isinstance(value, bool):
        x, u = float(value), "pkt"
        if not math.isfinite(x):
            raise NotFiniteError(_not_finite(what, value, x))
    else:
        x, u = _split(value, what, forms)
    if not u or u in _PKT_UNITS:
        return Size(x, "pkt")
    if u not in _SIZE_UNITS:
        raise UnitError(f"{what}: unknown size unit {u!r} in {value!r}{_hint(u, _SIZE_UNITS)}; allowed: {forms}")
    return Size(x * _SIZE_UNITS[u], "B")


def capacity_pps(C_bps: float, packet_bytes: float = DEFAULT_PACKET_BYTES) -> float:
    """Link capacity in packets/s, the papers' C: C_bps / (8 packet_bytes)."""
    for name, v in (("C_bps", C_bps), ("packet_bytes", packet_bytes)):
        if isinstance(v, bool) or not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
            shown = f"{float(v):g}" if isinstance(v, numbers.Real) and not isinstance(v, bool) else repr(v)
            raise ValueError(f"{name} = {shown} is out of range: must be a finite number > 0")
    return C_bps / (8.0 * packet_bytes)


def to_ps(seconds: float) -> int:
    """Seconds -> integer picoseconds (the engine's time unit), rounded to nearest."""
    if isinstance(seconds, (str, bytes, bool)):  # "1us" had failed in a multiplication (an API audit)
        raise UnitError(f"to_ps: expected seconds as a number, got {seconds!r} (parse_time reads \"1us\")")
    return int(round(seconds * 1e12))


def closest_name(word: str, names: list[str], cutoff: float = 0.6) -> Optional[str]:
    """The name ``word`` was probably meant to be: the same name in another case first (difflib
    sees no likeness between letters of different case), then the closest by difflib; or None."""
    import difflib

    same = [n for n in names if n.lower() == word.lower() and n != word]
    close = same or difflib.get_close_matches(word, names, n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, names: list[str]) -> str:
    """"did you mean 'K'? " for a mistyped name (:func:`closest_name`), or ""."""
    close = closest_name(word, names)
    return f"did you mean {close!r}? " if close else ""


def count_shown(n: int, noun: str, plural: Optional[str] = None) -> str:
    """A count with its noun in the right number: "1 rack", "3 racks", "2 leaves"."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


# The display forms: to `digits` significant digits, for reading ("132.2 us"), where the exact
# forms of dcsim.scenario (time_str, rate_str) parse back to the same float and so show a computed
# value's floating-point noise ("131.99999999999997us"). `sep=""` gives the compact form of
# scenario files and messages ("132.2us").


def fmt_rate(bps: float, digits: int = 4, sep: str = " ") -> str:
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.{digits}g}{sep}{unit}"
    return f"{bps:.{digits}g}{sep}bps"


def fmt_bytes(n: float, digits: int = 4, sep: str = " ") -> str:
    """Bytes in decimal units (10^3 per step, as the scenario's sizes): "1.711 MB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.{digits}g}{sep}{unit}"
    return f"{n:.{digits}g}{sep}B"


def fmt_wall(s: float) -> str:
    """A wall-clock duration for a person waiting: s (and below) as :func:`fmt_time`, then min
    and h ("22.54 h", where :func:`fmt_time` wrote a sweep's ETA as "8.113e+04 s")."""
    if abs(s) < 60:
        return fmt_time(s)
    return f"{s / 60:.4g} min" if abs(s) < 3600 else f"{s / 3600:.4g} h"


def fmt_time(s: float, digits: int = 4, sep: str = " ") -> str:
    if s == 0:
        return f"0{sep}s"  # not "0 ps": no unit is more right than another for nothing
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale:
            return f"{s / scale:.{digits}g}{sep}{unit}"
    return f"{s * 1e12:.{digits}g}{sep}ps"
