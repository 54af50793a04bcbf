"""Write the typical runtimes that `dcsim reproduce --list` shows on a machine that has measured
none of its own (python/dcsim/data/runtimes.json).

The numbers come from a real timing run, not from estimates: run every experiment with an empty
runtime cache, full size and quick, then point this script at the runtimes that
`dcsim reproduce` recorded (``$DCSIM_CACHE/runtimes.json``)::

    export DCSIM_CACHE=/tmp/dcsim-timing            # empty: only this run's times
    dcsim reproduce --all --out /tmp/rep-full-out --html /tmp/rep-full
    dcsim reproduce --all --quick --out /tmp/rep-quick-out --html /tmp/rep-quick
    python benchmarks/ship_runtimes.py /tmp/dcsim-timing/runtimes.json \
        --load "load average 4.9-5.8 on 2 cores: other work ran alongside"

Say how busy the machine was (``--load``): on a shared machine the times are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "dcsim" / "data" / "runtimes.json"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("measured", type=Path, help="runtimes.json recorded by dcsim reproduce ($DCSIM_CACHE)")
    ap.add_argument("--load", required=True, help="how busy the machine was during the timing run")
    ap.add_argument("--date", default=time.strftime("%Y-%m-%d"), help="when the timing run was made")
    ap.add_argument("--commit", help="the commit the timing run used (default: HEAD)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()

    import dcsim
    from dcsim.experiments.registry import all_experiments

    try:
        measured = json.loads(args.measured.read_text())
    except (OSError, ValueError) as e:  # a missing or broken file, said in one line (a review)
        ap.error(f"measured: cannot read {args.measured} as runtimes.json ({getattr(e, 'strerror', None) or e})")
    ids = [e.id for e in all_experiments()]
    missing = [k for i in ids for k in (i, f"{i} --quick") if k not in measured]
    if missing:
        raise SystemExit(f"not measured: {', '.join(missing)}; run reproduce --all and --all --quick first")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", args.commit or "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    data = {
        "about": "typical wall times of dcsim reproduce, s; shown by reproduce --list until this machine has its own",
        "machine": f"{os.cpu_count()} cores, {cpu_model()}, {platform.system()} {platform.machine()}",
        "load": args.load,
        "date": args.date,
        "dcsim": f"{dcsim.__version__} (commit {commit})",
        "full_total_s": round(sum(measured[i] for i in ids), 1),
        "quick_total_s": round(sum(measured[f"{i} --quick"] for i in ids), 1),
        "runtimes": {k: measured[k] for k in sorted(measured) if k.split(" ")[0] in ids},
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{args.out}: {len(data['runtimes'])} times; full {data['full_total_s']} s, quick {data['quick_total_s']} s")


if __name__ == "__main__":
    main()
