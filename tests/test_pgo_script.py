"""scripts/pgo_wheel.py (the profile-guided wheel): its training workload runs on the installed
package (a scenario key or an example it names that changed would only show when someone builds
the wheel, ~2 minutes), and a rustc without LLVM's tools is told how to get them, before any build."""

from __future__ import annotations

import runpy
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "pgo_wheel.py"


def test_the_training_workload_runs_on_the_installed_package(capsys):
    mod = runpy.run_path(str(SCRIPT), run_name="pgo_wheel")
    code = mod["TRAINING"]
    import sys

    argv = sys.argv
    sys.argv = ["training", str(SCRIPT.parent.parent)]
    try:
        exec(compile(code, "training", "exec"), {})
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    # Every example it names, and the large case: 10 lines.
    assert out.count("trained on") == 10, out


def test_a_rustc_without_llvm_tools_is_told_how_to_get_them(monkeypatch, tmp_path, capsys):
    mod = runpy.run_path(str(SCRIPT), run_name="pgo_wheel")

    def fake_run(cmd, **kw):
        text = str(tmp_path) if cmd[1:] == ["--print", "sysroot"] else "rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\n"
        return subprocess.CompletedProcess(cmd, 0, stdout=text, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(SystemExit) as e:
        mod["llvm_profdata"]()
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert "llvm-profdata is missing" in err and "rustup component add llvm-tools" in err, err
