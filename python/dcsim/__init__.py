"""dcsim: a laboratory for data-center congestion control.

Packet-level simulation (Rust engine), fluid models and theory, and reproducible experiments
of the reference papers, side by side.
"""

__version__ = "0.1.0"

__all__ = ["Scenario", "ScenarioError", "RunLimitError", "load_scenario", "simulate", "Result", "WriteError",
           "ResultDirError"]

# `simulate` is bound here (the function shadows its module's name); its heavy imports are lazy.
from dcsim.simulate import simulate  # noqa: E402

# The rest is exported lazily so that `import dcsim` (and the CLI's start-up) stays fast.
_EXPORTS = {
    "Scenario": "dcsim.scenario",
    "ScenarioError": "dcsim.scenario",
    "RunLimitError": "dcsim.scenario",
    "load_scenario": "dcsim.scenario",
    "Result": "dcsim.result",
    "WriteError": "dcsim.result",
    "ResultDirError": "dcsim.result",
}


def __getattr__(name):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'dcsim' has no attribute {name!r}")
