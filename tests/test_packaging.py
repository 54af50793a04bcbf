"""The install and test commands of the README stay true."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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


def test_every_python_name_the_readme_gives_exists():
    """A README walkthrough found `WriteError` (said to be raised by Result.to_dir) importable only
    as dcsim.result.WriteError, and `engine_defaults()` nowhere a user would look: every
    `dcsim.<name>` the README writes must resolve."""
    import importlib
    import re

    names = sorted(set(re.findall(r"`(dcsim(?:\.[A-Za-z_]\w*)+)", (ROOT / "README.md").read_text())))
    assert len(names) >= 5, names
    missing, absent = [], object()
    for name in names:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, absent)
            if obj is absent:
                missing.append(name)
                break
    assert not missing, missing


def test_the_readmes_sweep_file_is_the_example_it_names():
    """The README's sweep snippet, labelled examples/sweep_k.toml, had lost the file's run.warmup:
    copied as written, it was refused (warm-up 50 ms not shorter than the 50 ms run)."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("(`examples/sweep_k.toml`):\n\n```toml\n")[1].split("```")[0]
    assert tomllib.loads(block) == tomllib.loads((ROOT / "examples" / "sweep_k.toml").read_text())


def test_readme_schema_is_the_generated_one():
    from dcsim.schema import markdown

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- schema:begin (generated from python/dcsim/schema.py; a test keeps it equal) -->\n")[1]
    block = block.split("<!-- schema:end -->")[0]
    assert block == markdown(), "README's Result tables differ from dcsim.schema: regenerate them"


def test_every_summary_key_is_a_column_or_documented():
    """summary.json's flows and ports entries: columns of those tables, or listed in SUMMARY_DERIVED."""
    import dcsim
    from dcsim.schema import SCHEMA, SUMMARY_DERIVED

    res = dcsim.simulate(dcsim.load_scenario(ROOT / "examples" / "dx_special_state.toml").replace(
        {"run.duration": "20ms", "run.warmup": "5ms"}))
    summary = res.summary()
    for table in ("flows", "ports"):
        known = {c.name for c in SCHEMA[table]} | {c.name for c in SUMMARY_DERIVED[table]}
        assert summary[table]
        for entry in summary[table]:
            assert set(entry) <= known, set(entry) - known
    assert summary["flows"][0]["p_queued_per_ack"] is not None


@pytest.mark.parametrize("example", ["dctcp_dumbbell", "fat_tree", "dsm_dumbbell", "incast"])
def test_every_top_level_summary_key_is_documented(example):
    """An API probe found goodput_total_bps, flows_finished, after_warmup and others nowhere in the
    README's summary table (and goodput_total_bps over every flow beside a mean over the listed
    ones): each top-level key is in SUMMARY_TOP, a table's list, or SUMMARY_DERIVED."""
    import dcsim
    from dcsim.schema import SCHEMA, SUMMARY_DERIVED, SUMMARY_TOP

    sc = dcsim.load_scenario(ROOT / "examples" / f"{example}.toml")
    sc = sc.replace({"run.duration": "3ms", "run.warmup": "1ms"} if example != "incast" else {})
    known = {c.name for c in SUMMARY_TOP} | set(SCHEMA) | set(SUMMARY_DERIVED)
    keys = set(dcsim.simulate(sc).summary())
    assert keys <= known, keys - known


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


def test_readme_everyday_tasks_run(tmp_path, monkeypatch):
    """The README's three tasks run as written (each block <= 5 lines of code), on a shorter run."""
    import shutil

    import dcsim

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- tasks:begin (a test runs these blocks) -->")[1].split("<!-- tasks:end -->")[0]
    codes = [b.split("```")[0] for b in block.split("```python\n")[1:]]
    assert len(codes) == 3
    for code in codes:
        lines = [ln for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        statements = [ln for ln in lines if not ln.startswith(" ")]  # continuation lines belong to one
        assert len(statements) <= 5, code
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    real_load = dcsim.load_scenario
    monkeypatch.setattr(dcsim, "load_scenario", lambda p: real_load(p).replace({"run.duration": "60ms", "run.warmup": "20ms"}))
    env: dict = {}
    for code in codes:
        exec(compile(code, "README", "exec"), env)
    assert (tmp_path / "queues.png").read_bytes()[:4] == b"\x89PNG"
    assert env["res40"].scenario.network.aqm.K.value == 40
    shown = eval('res40.flows[["flow_label", "cwnd_mean_pkt", "goodput_bps"]]', env)
    assert list(shown.columns) == ["flow_label", "cwnd_mean_pkt", "goodput_bps"] and len(shown) == 10


def _calls(files, feature_version=None):
    """(path, call node, called name) for every call in ``files``: a name (``open``) or the last
    attribute (``Path.write_text`` -> ``write_text``); None for other callees."""
    import ast

    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=feature_version)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                yield path, node, f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def test_the_package_stays_within_the_oldest_python_it_declares():
    """pyproject declares Python >= 3.9. Every module of the package (and of the tests) parses
    with that version's grammar, and uses none of the keywords that 3.10 added to calls the code
    base makes: `dataclass(slots=..., kw_only=..., match_args=...)` and `zip(strict=...)` (a
    `slots=True` on a dataclass once made `import dcsim.scenario` fail on 3.9), nor
    `entry_points(group=...)` (3.9 returns a dict of groups), nor `traceback.format_exception(e)`
    with one argument (a failed experiment of `dcsim reproduce` raised TypeError there on 3.9). A
    partial guard, checked by hand on 3.9 too: runtime differences beyond these are not caught here."""
    import re

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    m = re.fullmatch(r">=\s*3\.(\d+)", declared.strip())
    assert m, f"requires-python {declared!r}: expected the form >=3.N"
    oldest = (3, int(m.group(1)))
    newer_keywords = {"dataclass": {"slots", "kw_only", "match_args"}, "zip": {"strict"}, "entry_points": {"group"}}
    # the one-argument forms of 3.10 (3.9 needs the exception's type, value and traceback)
    three_args = {"format_exception", "print_exception"}
    found = []
    files = sorted((ROOT / "python" / "dcsim").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))
    assert len(files) > 20
    for path, node, name in _calls(files, feature_version=oldest):  # parsing with the old grammar is the first check
        if oldest >= (3, 10):
            continue
        bad = {k.arg for k in node.keywords} & newer_keywords.get(name, set())
        if bad:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}({', '.join(sorted(bad))}=...)")
        if name in three_args and len(node.args) + len(node.keywords) == 1:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}(exc) with one argument")
    assert not found, f"needs Python > {oldest[0]}.{oldest[1]}:\n" + "\n".join(found)


def test_the_package_reads_and_writes_text_files_as_utf8_whatever_the_locale():
    """Every text file the package opens names its encoding: without it Python uses the locale's
    (cp1252 on Windows, Latin-1 in such a locale), and the HTML report's "≤" or a claim's "α"
    failed to encode there. Binary opens, and `os.open`, are not text."""
    import ast

    found = []
    for path, node, name in _calls(sorted((ROOT / "python" / "dcsim").rglob("*.py"))):
        if name == "open" and isinstance(node.func, ast.Name):  # the builtin (not os.open)
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and "b" in str(mode.value):
                continue
        elif name not in ("read_text", "write_text"):
            continue
        if not any(k.arg == "encoding" for k in node.keywords):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "text file opened without encoding=:\n" + "\n".join(found)
