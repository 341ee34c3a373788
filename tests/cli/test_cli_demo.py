"""``skdpgen demo`` says what it is doing on standard error (issue 66: it was silent
for 12 s, then 10 s more), and nothing with ``--quiet``.

In-process ``main`` with small synthesizers (``fast_fits`` of conftest.py) on the
first rows of each Adult split, so that the test takes seconds.
"""

import re

import pytest

from skdpgen.cli import main


@pytest.fixture
def small_adult(monkeypatch):
    """``load_adult`` gives the first 2,000 rows of its split (the demo imports it
    when it runs)."""
    import skdpgen.datasets as datasets

    load = datasets.load_adult

    def small(**kwargs):
        bunch = load(**kwargs)
        bunch.data, bunch.target = bunch.data.iloc[:2000], bunch.target[:2000]
        return bunch

    monkeypatch.setattr(datasets, "load_adult", small)


def _steps(err):
    return re.findall(r"^demo: (.+) \(at \d+ s\)$", err, re.M)


def test_the_demo_says_each_step_on_standard_error(fast_fits, small_adult, capsys,
                                                   tmp_path):
    out = tmp_path / "adult_syn.csv"
    assert main(["demo", "--random-state", "0", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    steps = _steps(printed.err)
    assert steps == [
        "loading the bundled UCI Adult data",
        "fitting Marginal synthesizer on 2,000 rows at epsilon = 1",
        "sampling 2,000 synthetic rows",
        "utility: a logistic regression trained on the synthetic rows",
        "utility: a logistic regression trained on the real rows, for comparison",
        f"writing {out}",
        "done",
    ], printed.err
    assert "Marginal synthesizer:" in printed.err  # the fit's progress bar
    # standard output keeps the results only
    assert "demo:" not in printed.out and "private: yes" in printed.out
    assert "ROC-AUC" in printed.out and out.exists()


def test_a_quiet_demo_says_nothing_on_standard_error_but_warnings(fast_fits, small_adult,
                                                                  capsys):
    assert main(["demo", "--quiet", "--random-state", "0"]) == 0
    printed = capsys.readouterr()
    assert _steps(printed.err) == []
    assert "Marginal synthesizer:" not in printed.err  # no bar either
    assert "ROC-AUC" in printed.out
    # the old switch did nothing once progress became the default: it is gone
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--progress", "--quiet", "--random-state", "0"])
    assert exit_.value.code == 2
