"""Strict JSON of what dcsim computes (summaries, theory and fluid results): numpy scalars and
arrays as Python numbers and lists, NaN and infinities as null (strict JSON has neither), so that
every ``--json`` output and JSON file parses with any reader."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["jsonable", "dumps"]


def jsonable(v: Any) -> Any:
    """``v`` with numpy scalars and arrays made Python values and non-finite floats None."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, int):
        return v
    # numpy, without importing it where it is not loaded yet
    kind = getattr(getattr(v, "dtype", None), "kind", None)
    if kind is not None and hasattr(v, "tolist"):
        return jsonable(v.tolist())  # a numpy scalar gives a Python scalar, an array nested lists
    return v


def dumps(obj: Any, **kw: Any) -> str:
    """``json.dumps`` of :func:`jsonable` ``(obj)``, refusing anything else non-finite."""
    return json.dumps(jsonable(obj), allow_nan=False, **kw)
