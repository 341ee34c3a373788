"""Every script in examples/ runs headless (in --quick mode) and writes its figures.

The documentation's gallery (sphinx-gallery, ``doc/conf.py``) runs the same
scripts with ``--quick --out-dir <temporary folder>``, with ``__doc__`` set to
"" and its module docstring rendered as the page's text; the static checks
below keep them valid gallery examples.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).parents[1] / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
# over a minute each in --quick mode; the documentation's build (CI's second
# command) runs every example too, and fails on an error in any of them
SLOW = {"adult_utility_vs_epsilon.py", "plot_kme_release.py", "digits_images.py"}


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in EXAMPLES],
    ids=lambda p: p.name,
)
def test_example_runs_and_writes_figures(script, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    args = [sys.executable, str(script), "--quick", "--out-dir", str(out)]
    res = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=tmp_path,
                         env={"MPLBACKEND": "Agg", **os.environ})
    assert res.returncode == 0, res.stderr[-3000:]
    pngs = list(out.glob("*.png"))
    assert pngs and all(p.stat().st_size > 1000 for p in pngs)
    assert not list(tmp_path.glob("*.png"))  # nothing written outside --out-dir


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_is_a_gallery_example(script):
    text = script.read_text()
    doc = ast.get_docstring(ast.parse(text), clean=False)
    assert doc, "the module docstring is the gallery page's text"
    lines = doc.strip("\n").splitlines()
    if set(lines[0]) == {"="}:  # overlined title
        over, title, under = lines[:3]
        assert over == under
    else:
        title, under = lines[:2]
    assert title.strip() and set(under) == {"="} and len(under) >= len(title), (
        "sphinx-gallery needs the docstring to start with a title underlined with '='"
    )
    # sphinx-gallery sets __doc__ to "" and passes --quick --out-dir DIR
    assert "__doc__" not in text
    assert '"--quick"' in text and '"--out-dir"' in text


def test_gallery_header_exists():
    assert (EXAMPLES_DIR / "README.txt").is_file()
