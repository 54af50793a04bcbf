"""Registry of reproducible experiments and the claims table each one prints.

An experiment is a function ``run(out_dir: Path, quick: bool) -> ExperimentResult`` registered
under an id such as ``"dctcp-fig7"``. It writes PNG + CSV into ``out_dir`` and returns the list
of the paper's claims with our numbers and a verdict.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

__all__ = [
    "Claim",
    "ExperimentResult",
    "Experiment",
    "experiment",
    "get",
    "all_experiments",
    "verdict",
    "ok",
    "save_figure",
]

#: Modules that define experiments; each registers itself on import.
EXPERIMENT_MODULES = [
    "dcsim.experiments.dctcp_analysis",
    "dcsim.experiments.dx_analysis",
    "dcsim.experiments.coexistence",
    "dcsim.experiments.dctcp_packet",
    "dcsim.experiments.coexistence_packet",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"


def verdict(paper: float, ours: float, rel_tol: float) -> tuple[str, float]:
    """Compare our number with the paper's: (verdict, relative difference)."""
    if paper == 0:
        diff = abs(ours)
    else:
        diff = abs(ours - paper) / abs(paper)
    ok = math.isfinite(ours) and diff <= rel_tol
    return (REPRODUCED if ok else DIFFERS), diff


def ok(cond: bool) -> str:
    """The verdict of a claim checked as a condition."""
    return REPRODUCED if cond else DIFFERS


def save_figure(fig, out_dir: Path, name: str) -> Path:
    """Write a matplotlib figure as PNG into ``out_dir`` and close it."""
    import matplotlib.pyplot as plt

    path = out_dir / name
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


@dataclass
class Claim:
    """One statement of a paper, checked numerically."""

    statement: str  # the paper's words, short
    paper: str  # the paper's number or condition, as printed
    ours: str  # our number, with units
    verdict: str  # "reproduced" or "differs"
    detail: str = ""  # by how much, or why

    def as_dict(self) -> dict:
        return dict(statement=self.statement, paper=self.paper, ours=self.ours, verdict=self.verdict, detail=self.detail)


@dataclass
class ExperimentResult:
    id: str
    title: str
    claims: list[Claim] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def all_reproduced(self) -> bool:
        return all(c.verdict == REPRODUCED for c in self.claims)


@dataclass
class Experiment:
    id: str
    title: str
    paper: str
    run: Callable[[Path, bool], ExperimentResult]


_REGISTRY: dict[str, Experiment] = {}


def experiment(id: str, title: str, paper: str):
    """Decorator: register ``fn(out_dir, quick) -> ExperimentResult`` under ``id``."""

    def deco(fn: Callable[[Path, bool], ExperimentResult]):
        if id in _REGISTRY:
            raise ValueError(f"experiment id {id!r} registered twice")
        _REGISTRY[id] = Experiment(id, title, paper, fn)
        return fn

    return deco


def _load() -> None:
    for mod in EXPERIMENT_MODULES:
        importlib.import_module(mod)


def all_experiments() -> list[Experiment]:
    _load()
    return sorted(_REGISTRY.values(), key=lambda e: e.id)


def get(id: str) -> Experiment:
    _load()
    if id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown experiment id {id!r}; known ids: {known}")
    return _REGISTRY[id]
