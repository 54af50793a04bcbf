"""Reproducible experiments: one module per paper, each registering ids in the registry."""

from dcsim.experiments.registry import Claim, ExperimentResult, all_experiments, experiment, get, verdict

__all__ = ["Claim", "ExperimentResult", "all_experiments", "experiment", "get", "verdict"]
