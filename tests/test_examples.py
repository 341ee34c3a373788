"""Every script in examples/ runs headless (in --quick mode) and writes its figures."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.py"))
SLOW = {"adult_utility_vs_epsilon.py", "plot_kme_release.py"}


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in EXAMPLES],
    ids=lambda p: p.name,
)
def test_example_runs_and_writes_figures(script, tmp_path):
    args = [sys.executable, str(script), "--quick"]
    text = script.read_text()
    if "--out-dir" in text:
        args += ["--out-dir", str(tmp_path)]
    res = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=tmp_path,
                         env={"MPLBACKEND": "Agg", **__import__("os").environ})
    assert res.returncode == 0, res.stderr[-3000:]
    if ".png" in text:
        pngs = list(tmp_path.glob("*.png"))
        assert pngs and all(p.stat().st_size > 1000 for p in pngs)
