"""Dotted paths into a TOML-shaped dict: ``"network.aqm.K"``, ``"flows[1].protocol"``.

A path is what an error message of :mod:`dcsim.scenario` calls a field: names joined by dots,
each optionally followed by list indices in brackets (``network.links[0].aqm.K``,
``network.rtt[2]``). The functions here work on plain dicts and lists (the shape of a scenario
file, ``Scenario.to_dict()``), never on the pydantic model, so they serve the scenario, sweep
files and anything else of that shape::

    >>> d = {"network": {"aqm": {"kind": "threshold", "K": "65pkt"}}, "flows": [{"protocol": "dctcp"}]}
    >>> get_path(d, "network.aqm.K")
    '65pkt'
    >>> set_path(d, "flows[0].protocol", "newreno")["flows"][0]["protocol"]
    'newreno'
    >>> d["flows"][0]["protocol"]            # the input is never changed
    'dctcp'

:func:`model_path_error` checks a path against a pydantic model's fields (which keys *may* exist,
with a did-you-mean hint), for paths to fields that a file leaves at their default.

Every error is a :class:`PathError` whose message starts with the path, like the scenario's
``field: problem; allowed ...`` lines.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, Iterable, Mapping, Optional, Union

from dcsim.units import did_you_mean

__all__ = [
    "PathError",
    "Part",
    "parse_path",
    "format_path",
    "get_path",
    "has_path",
    "set_path",
    "set_paths",
    "model_path_error",
]

Part = Union[str, int]
"""One step of a path: a key (str) or a list index (int)."""

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_SEGMENT = re.compile(rf"({_NAME})((?:\[\d+\])*)")
_INDEX = re.compile(r"\[(\d+)\]")


class PathError(ValueError):
    """A malformed path, or one that does not lead anywhere; ``str(err)`` starts with the path."""

    def __init__(self, path: str, msg: str) -> None:
        super().__init__(f"{path}: {msg}")
        self.path = path


def parse_path(path: Union[str, Iterable[Part]]) -> tuple[Part, ...]:
    """``"flows[1].protocol"`` -> ``("flows", 1, "protocol")``; a tuple of parts passes through.

    Keys are names (letters, digits, ``_``, ``-``; not starting with a digit); indices are
    non-negative integers.
    """
    if not isinstance(path, str):
        parts = tuple(path)
        for p in parts:
            ok = (isinstance(p, int) and not isinstance(p, bool) and p >= 0) or (isinstance(p, str) and re.fullmatch(_NAME, p))
            if not ok:
                raise PathError(format_path(parts, strict=False), f"bad path part {p!r}; allowed names and indices >= 0")
        if not parts or not isinstance(parts[0], str):
            raise PathError(format_path(parts, strict=False), "a path starts with a key name")
        return parts
    if not path:
        raise PathError(repr(path), 'empty path; write keys joined by dots, e.g. "network.aqm.K" or "flows[0].protocol"')
    parts: list[Part] = []
    for seg in path.split("."):
        m = _SEGMENT.fullmatch(seg)
        if not m:
            raise PathError(
                path,
                f"cannot parse {seg!r}; write keys joined by dots with list indices in brackets, "
                'e.g. "network.aqm.K" or "flows[0].protocol"',
            )
        parts.append(m.group(1))
        parts.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return tuple(parts)


def format_path(parts: Iterable[Part], *, strict: bool = True) -> str:
    """``("flows", 1, "protocol")`` -> ``"flows[1].protocol"`` (the inverse of :func:`parse_path`)."""
    out = ""
    for p in parts:
        if isinstance(p, int) and not isinstance(p, bool):
            out += f"[{p}]"
        else:
            if strict and not (isinstance(p, str) and re.fullmatch(_NAME, p)):
                raise PathError(str(p), f"bad key {p!r}; allowed names of letters, digits, _ and -")
            out += ("." if out else "") + str(p)
    return out


def _describe(v: Any) -> str:
    if isinstance(v, Mapping):
        return "a table"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    # In the words of a scenario file (a probe: "network.rtt is str '100us', not a table")
    kind = {bool: "the boolean", str: "the text", int: "the number", float: "the number"}.get(type(v), "the value")
    return f"{kind} {str(v).lower() if isinstance(v, bool) else repr(v)}"


def _keys_hint(d: Mapping, key: str) -> str:
    keys = [str(k) for k in d]
    hint = did_you_mean(key, keys)
    return f"{hint}keys there: {', '.join(keys) if keys else '(none)'}"


def _step(cur: Any, part: Part, parts: tuple[Part, ...], i: int) -> Any:
    """``cur[part]`` with an error naming the path so far."""
    here = format_path(parts[: i + 1])
    if isinstance(part, int):
        if not isinstance(cur, list):
            raise PathError(here, f"{format_path(parts[:i])} is {_describe(cur)}, not a list")
        if part >= len(cur):
            n, base = len(cur), format_path(parts[:i])
            allowed = f"{base}[0] .. {base}[{n - 1}]" if n else "none (the list is empty)"
            raise PathError(here, f"index out of range; {base} has {n} {'entry' if n == 1 else 'entries'}; allowed {allowed}")
        return cur[part]
    if not isinstance(cur, Mapping):
        where = format_path(parts[:i]) if i else "the document"
        raise PathError(here, f"{where} is {_describe(cur)}, not a table")
    if part not in cur:
        raise PathError(here, f"no such key; {_keys_hint(cur, part)}")
    return cur[part]


def get_path(data: Any, path: Union[str, Iterable[Part]]) -> Any:
    """The value at ``path``; :class:`PathError` names the first step that does not exist."""
    parts = parse_path(path)
    cur = data
    for i, part in enumerate(parts):
        cur = _step(cur, part, parts, i)
    return cur


def has_path(data: Any, path: Union[str, Iterable[Part]]) -> bool:
    """Whether ``path`` leads to a value in ``data`` (a malformed path raises :class:`PathError`)."""
    parts = parse_path(path)
    try:
        get_path(data, parts)
    except PathError:
        return False
    return True


def set_path(data: Mapping, path: Union[str, Iterable[Part]], value: Any, *, create: bool = True) -> dict:
    """A copy of ``data`` with ``value`` at ``path``; ``data`` itself is not changed.

    Containers along the path are copied (shallow); everything else is shared with ``data``, so
    treat both as read-only or copy them deeply. With ``create`` (the default) missing keys are
    added (as nested tables where the path goes on); list entries are never created: an index
    must exist. Validation of what was set is the caller's business (``Scenario.from_dict``).
    """
    parts = parse_path(path)
    if not isinstance(data, Mapping):
        raise PathError(format_path(parts), f"the document is {_describe(data)}, not a table")

    def put(cur: Any, i: int) -> Any:
        part = parts[i]
        last = i == len(parts) - 1
        if isinstance(part, int):
            old = _step(cur, part, parts, i)
            new = list(cur)
            new[part] = value if last else put(old, i + 1)
            return new
        if not isinstance(cur, Mapping):
            _step(cur, part, parts, i)  # raises: not a table
        if part in cur:
            old = cur[part]
        elif create:
            if not last and isinstance(parts[i + 1], int):
                raise PathError(format_path(parts[: i + 2]), f"{format_path(parts[: i + 1])} is not in the document; cannot index a missing list")
            old = {}
        else:
            _step(cur, part, parts, i)  # raises: no such key
        new = dict(cur)
        new[part] = value if last else put(old, i + 1)
        return new

    return put(data, 0)


def set_paths(data: Mapping, values: Mapping[str, Any], *, create: bool = True) -> dict:
    """:func:`set_path` for each ``path: value`` in order."""
    out = dict(data)
    for path, value in values.items():
        out = set_path(out, path, value, create=create)
    return out


# --------------------------------------------------------------------------------------------
# Paths against a pydantic model: which fields may exist at all.


def _arms(tp: Any) -> list:
    """The alternatives of a type: Optional/Union arms, Annotated unwrapped."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _arms(typing.get_args(tp)[0])
    if origin is Union or origin is getattr(types, "UnionType", Union):
        out = []
        for a in typing.get_args(tp):
            out.extend(_arms(a))
        return out
    return [tp]


def _model_fields(tp: Any) -> Optional[dict]:
    fields = getattr(tp, "model_fields", None)
    return fields if isinstance(tp, type) and isinstance(fields, dict) else None


def model_path_error(model: type, path: Union[str, Iterable[Part]]) -> Optional[str]:
    """``None`` if ``path`` names a field of the pydantic ``model`` (following nested models,
    lists and Optional/Union arms), else an error line ``path: ...; allowed keys ...``.

    It says only whether such a field can exist, not whether a value there is valid.
    """
    try:
        parts = parse_path(path)
    except PathError as e:
        return str(e)
    arms: list = [model]
    for i, part in enumerate(parts):
        here = format_path(parts[: i + 1])
        nxt: list = []
        if isinstance(part, int):
            for a in arms:
                if a is Any:  # a free-form value (e.g. one time, a list of times or {lo, hi})
                    nxt.append(Any)
                elif typing.get_origin(a) in (list, tuple) or a in (list, tuple):
                    args = typing.get_args(a)
                    nxt.extend(_arms(args[0]) if args else [Any])
            if not nxt:
                return f"{here}: {format_path(parts[:i])} is not a list"
        else:
            names: list[str] = []
            for a in arms:
                if a is Any:
                    nxt.append(Any)
                    continue
                if typing.get_origin(a) is dict:  # a table of user-chosen keys (network.attach.S1)
                    args = typing.get_args(a)
                    nxt.extend(_arms(args[1]) if len(args) == 2 else [Any])
                    continue
                fields = _model_fields(a)
                if fields is None:
                    continue
                names.extend(n for n in fields if n not in names)
                if part in fields:
                    nxt.extend(_arms(fields[part].annotation))
            if not nxt:
                where = format_path(parts[:i]) if i else "the top level"
                if not names:
                    return f"{here}: {where} is a value, not a table"
                hint = did_you_mean(part, names)
                return f"{here}: {part!r} is not a field of {where}; {hint}allowed keys: {', '.join(names)}"
        arms = nxt
    return None
