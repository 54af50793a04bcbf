"""The install and test commands of the README stay true."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_test_requirements_match_the_test_extra():
    reqs = [line.strip() for line in (ROOT / "tests" / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert sorted(reqs) == sorted(extra)


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("```")[0].strip() for b in readme.split("```bash")[1:3]]
    ci = (ROOT / ".ci" / "run").read_text()
    for cmd in blocks:
        assert cmd in ci, cmd
