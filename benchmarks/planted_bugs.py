"""Planted bugs: does the test suite catch each privacy bug an attacker found?

Issue 38 planted sixteen realistic bugs and found seven the suite did not
catch reliably. This script plants each of those seven again, one at a time
(a textual edit of one source line), runs the tests that should catch it,
and restores the file, whatever happens. Run from the repository root::

    python benchmarks/planted_bugs.py            # all seven
    python benchmarks/planted_bugs.py kind-exact # one

It prints one line per bug, ``CAUGHT`` (the tests failed) or ``NOT CAUGHT``,
and exits 1 if any bug was not caught. Each bug is planted in the working
tree: do not run it while editing the same files.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> (file, line as it is, line with the bug, tests that must fail)
BUGS = {
    "selections-delta": (
        "skdpgen/privacy/_budget.py",
        "    gaussian_delta = delta - sum(selections)",
        "    gaussian_delta = delta",
        ["tests/privacy/test_budget.py"]),
    "refusal-not-sticky": (
        "skdpgen/privacy/_budget.py",
        "        if self._refused is not None:\n            raise BudgetExceededError(self._refused)\n"
        "        self._check_guards(at_exit=False)",
        "        self._check_guards(at_exit=False)",
        ["tests/privacy/test_budget.py"]),
    "kind-exact": (
        "skdpgen/schema/_text.py",
        "        return KINDS[kind_from_forms(noisy, s)]",
        "        return KINDS[kind_from_forms(__import__('numpy').asarray(statistic, float), s)]",
        ["tests/test_replay.py"]),
    "numeric-exact": (
        "skdpgen/schema/_kind.py",
        "        return self.estimate(key, noisy, s, n, context)",
        "        if self.name in ('numeric', 'datetime'):\n"
        "            noisy = __import__('numpy').asarray(statistic, dtype=float)\n"
        "        return self.estimate(key, noisy, s, n, context)",
        ["tests/test_replay.py"]),
    "stretch-without-sd": (
        "skdpgen/schema/_ranges.py",
        "if rest > max(POLICY.decade_stds * s * math.sqrt(1 + inside.size), least):",
        "if rest > max(POLICY.decade_stds * math.sqrt(1 + inside.size), least):",
        ["tests/schema/test_schema_longtail.py"]),
    "share-from-complete-rows": (
        "skdpgen/synthesizers/_kme.py",
        "plan.auto_share(table.n_rows, budget.epsilon,",
        "plan.auto_share(int(__import__('pandas').DataFrame(X).notna().all(axis=1).sum()), "
        "budget.epsilon,",
        ["tests/test_replay.py"]),
    "refusal-after-output": (
        "skdpgen/cli.py",
        "    if any(map(is_guess, issues)) and not args.allow_guesses:",
        "    if any(map(is_guess, issues)) and not args.allow_guesses:\n"
        "        Path(args.out).write_text('written before the refusal')",
        ["tests/cli/test_cli_front_door.py"]),
}


def plant(name):
    """Plant one bug, run its tests, restore the file; True if the tests failed."""
    path, line, bug, tests = BUGS[name]
    source = ROOT / path
    text = source.read_text()
    if text.count(line) != 1:
        raise RuntimeError(f"{name}: the line to change is not in {path} exactly once")
    try:
        source.write_text(text.replace(line, bug))
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p",
                              "no:cacheprovider", *tests], cwd=ROOT, capture_output=True,
                             text=True)
    finally:
        source.write_text(text)
    summary = [s for s in run.stdout.splitlines() if "passed" in s or "failed" in s][-1:]
    print(f"{name:26s} {'CAUGHT' if run.returncode else 'NOT CAUGHT':11s} {' '.join(summary)}",
          flush=True)
    return run.returncode != 0


def main(argv=None):
    names = (argv if argv is not None else sys.argv[1:]) or list(BUGS)
    caught = [plant(name) for name in names]
    return 0 if all(caught) else 1


if __name__ == "__main__":
    sys.exit(main())
