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


def test_readme_schema_is_the_generated_one():
    from dcsim.schema import markdown

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- schema:begin (generated from python/dcsim/schema.py; a test keeps it equal) -->\n")[1]
    block = block.split("<!-- schema:end -->")[0]
    assert block == markdown(), "README's Result tables differ from dcsim.schema: regenerate them"


def test_every_engine_column_is_in_the_schema():
    """The engine's tables have exactly the schema's columns, in order (labels come from dcsim)."""
    import dcsim
    from dcsim.schema import SCHEMA

    res = dcsim.simulate({
        "network": {"senders": 2, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "100pkt",
                    "aqm": {"kind": "threshold", "K": "20pkt"}},
        "flows": [{"count": 2, "protocol": "dctcp"}],
        "run": {"duration": "2ms"},
    })
    assert set(res.tables) == set(SCHEMA)
    for table, cols in SCHEMA.items():
        assert list(res.tables[table].columns) == [c.name for c in cols], table
    assert "Tables and their columns" in (res.__class__.__doc__ or "") and "cwnd_mean_pkt" in res.__class__.__doc__
