"""Fixtures shared by the test modules."""

from importlib.metadata import version

import pytest
from typer.testing import CliRunner


@pytest.fixture
def split_runner() -> CliRunner:
    """A (typer) CliRunner whose ``result.stdout`` holds only what the command wrote to stdout (a table, a
    JSON document) and ``result.stderr`` its messages. Click >= 8.2 keeps them apart by default; click
    8.1, the last for Python 3.9, mixed stderr into stdout unless asked (a run on Python 3.9 with the
    lowest dependencies: warnings inside the CSV and the JSON the tests parse)."""
    major, minor = (int(x) for x in version("click").split(".")[:2])
    return CliRunner() if (major, minor) >= (8, 2) else CliRunner(mix_stderr=False)
