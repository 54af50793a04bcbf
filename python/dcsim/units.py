"""Units at the edges: parse "10Gbps", "100us", "65pkt", "256KB" into one SI unit per quantity.

Inside dcsim every quantity has exactly one unit:

* rate      -> bit/s            (float)
* time      -> seconds          (float); the Rust engine uses integer picoseconds
* size      -> bytes            (float) or packets when the user wrote "pkt"

Plain numbers are accepted and taken to be in the SI base unit (bit/s, s, bytes).
Every parse error names what was given and what is allowed.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass

__all__ = [
    "UnitError",
    "parse_rate",
    "parse_time",
    "parse_size",
    "Size",
    "to_ps",
    "fmt_rate",
    "fmt_time",
    "DEFAULT_PACKET_BYTES",
    "capacity_pps",
]

#: Packet size on the wire used by the papers (1500-byte packets), bytes.
DEFAULT_PACKET_BYTES = 1500


class UnitError(ValueError):
    """A quantity string could not be parsed; the message lists the accepted units."""


_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
_RE = re.compile(r"^\s*" + _NUM + r"\s*([A-Za-z/]*)\s*$")

_RATE_UNITS = {
    "bps": 1.0, "b/s": 1.0,
    "kbps": 1e3, "kb/s": 1e3,
    "mbps": 1e6, "mb/s": 1e6,
    "gbps": 1e9, "gb/s": 1e9,
    "tbps": 1e12, "tb/s": 1e12,
}
_TIME_UNITS = {
    # divisors: seconds = number / divisor (division keeps "100us" == 1e-4 exactly)
    "s": 1.0, "sec": 1.0,
    "ms": 1e3,
    "us": 1e6,
    "ns": 1e9,
    "ps": 1e12,
}
# Sizes: decimal SI prefixes (KB = 1000 B) as in networking; KiB etc. are binary.
_SIZE_UNITS = {
    "b": 1.0, "byte": 1.0, "bytes": 1.0,
    "kb": 1e3, "mb": 1e6, "gb": 1e9,
    "kib": 1024.0, "mib": 1024.0**2, "gib": 1024.0**3,
}
_PKT_UNITS = {"pkt", "pkts", "packet", "packets", "p"}


def _split(value: str | float | int, what: str, allowed: str) -> tuple[float, str]:
    if isinstance(value, bool):
        raise UnitError(f"{what}: expected a number or a string like {allowed}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value), ""
    if not isinstance(value, str):
        raise UnitError(f"{what}: expected a number or a string like {allowed}, got {value!r}")
    m = _RE.match(value.replace("μ", "µ").replace("µs", "us"))
    if not m:
        raise UnitError(f"{what}: cannot parse {value!r}; write a number and a unit such as {allowed}")
    return float(m.group(1)), m.group(2)


def parse_rate(value: str | float | int, what: str = "rate") -> float:
    """Parse a link rate such as "10Gbps" into bit/s. Plain numbers are bit/s."""
    allowed = '"10Gbps", "1Gbps", "100Mbps" (units: bps, Kbps, Mbps, Gbps, Tbps)'
    x, u = _split(value, what, allowed)
    if u:
        key = u.lower()
        if key not in _RATE_UNITS:
            raise UnitError(f"{what}: unknown rate unit {u!r} in {value!r}; allowed: {allowed}")
        x *= _RATE_UNITS[key]
    if not math.isfinite(x):
        raise UnitError(f"{what}: {value!r} is not finite")
    return x


def parse_time(value: str | float | int, what: str = "time") -> float:
    """Parse a duration such as "100us" into seconds. Plain numbers are seconds."""
    allowed = '"1s", "50ms", "100us", "500ns" (units: s, ms, us, ns, ps)'
    x, u = _split(value, what, allowed)
    if u:
        if u not in _TIME_UNITS:
            raise UnitError(f"{what}: unknown time unit {u!r} in {value!r}; allowed: {allowed}")
        x /= _TIME_UNITS[u]
    if not math.isfinite(x):
        raise UnitError(f"{what}: {value!r} is not finite")
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


def parse_size(value: str | float | int | Size, what: str = "size") -> Size:
    """Parse "65pkt" (packets) or "256KB" / "1500B" (bytes). Plain numbers are packets."""
    if isinstance(value, Size):
        return value
    allowed = '"65pkt", "1500B", "256KB", "1MiB" (units: pkt, B, KB, MB, GB, KiB, MiB, GiB)'
    x, u = _split(value, what, allowed)
    if not math.isfinite(x):
        raise UnitError(f"{what}: {value!r} is not finite")
    if not u or u.lower() in _PKT_UNITS:
        return Size(x, "pkt")
    key = u.lower()
    if key not in _SIZE_UNITS:
        raise UnitError(f"{what}: unknown size unit {u!r} in {value!r}; allowed: {allowed}")
    return Size(x * _SIZE_UNITS[key], "B")


def capacity_pps(C_bps: float, packet_bytes: float = DEFAULT_PACKET_BYTES) -> float:
    """Link capacity in packets/s, the papers' C: C_bps / (8 packet_bytes)."""
    for name, v in (("C_bps", C_bps), ("packet_bytes", packet_bytes)):
        if isinstance(v, bool) or not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
            raise ValueError(f"{name} = {v!r} is out of range: must be > 0")
    return C_bps / (8.0 * packet_bytes)


def to_ps(seconds: float) -> int:
    """Seconds -> integer picoseconds (the engine's time unit), rounded to nearest."""
    return int(round(seconds * 1e12))


def fmt_rate(bps: float) -> str:
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} bps"


def fmt_time(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale:
            return f"{s / scale:.4g} {unit}"
    return f"{s * 1e12:.4g} ps"
