"""dcsim: a laboratory for data-center congestion control.

Packet-level simulation (Rust engine), fluid models and theory, and reproducible experiments
of the reference papers, side by side.

Where to start (each has its own help):

* ``dcsim.Scenario`` (``from_toml``, ``from_dict``, ``replace``): a validated scenario;
  ``dcsim.simulate(scenario)`` runs it and returns a ``dcsim.Result`` (tables as DataFrames,
  ``summary()``, ``plot(kind)``, ``fct_stats()``, ``to_dir()``);
* ``import dcsim.sweep``: many runs over axes of dotted paths, on local processes or Dask;
* ``import dcsim.fluid``: the papers' delay-differential models; ``import dcsim.theory``: their
  closed forms;
* ``import dcsim.experiments``: the papers' figures and tables (``dcsim reproduce`` on the
  command line).

``Scenario``, ``Result`` and the errors are imported on first use (``import dcsim`` stays fast),
so ``help(dcsim)`` lists them only under ``__all__``.
"""

__version__ = "0.1.0"

__all__ = ["Scenario", "ScenarioError", "ScenarioWarning", "RunLimitError", "load_scenario", "simulate", "Result",
           "WriteError", "ResultDirError"]

# `simulate` is bound here (the function shadows its module's name); its heavy imports are lazy.
from dcsim.simulate import simulate  # noqa: E402

# The rest is exported lazily so that `import dcsim` (and the CLI's start-up) stays fast.
_EXPORTS = {
    "Scenario": "dcsim.scenario",
    "ScenarioError": "dcsim.scenario",
    "ScenarioWarning": "dcsim.scenario",  # what simulate warns with: filter it without the submodule
    "RunLimitError": "dcsim.scenario",
    "load_scenario": "dcsim.scenario",
    "Result": "dcsim.result",
    "WriteError": "dcsim.result",
    "ResultDirError": "dcsim.result",
}


#: The subpackages the docstring above names, imported on first use as attributes too
#: (``dcsim.sweep.sweep(...)`` after ``import dcsim``: a review found it an AttributeError).
_SUBPACKAGES = ("sweep", "fluid", "theory", "experiments")


def __getattr__(name):
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"dcsim.{name}")
    raise AttributeError(f"module 'dcsim' has no attribute {name!r}")
