"""Planted bugs: does the test suite catch each bug found by planting one?

Issues 38 and 54 planted realistic privacy bugs one at a time and listed
those the suite did not catch; issue 66 planted slips in the documented rules
of the code added since febfc3a (a share, a noise level, a margin) and listed
the 7 that survived, with a ``value_share`` slip only a doctest caught. This
script plants each of them again (textual edits of one source file, where the
code lives now), runs the tests that read the rule it breaks (chosen per bug:
a file, or test ids, so that the whole run stays within minutes), and
restores the file, whatever happens. Run from the repository root::

    python benchmarks/planted_bugs.py                 # every bug
    python benchmarks/planted_bugs.py kind-exact ...  # some of them
    python benchmarks/planted_bugs.py --no-baseline   # skip the unplanted runs

It prints one line per bug:

* ``CAUGHT``: the tests fail with the bug planted (the first failure shown);
* ``NOT CAUGHT``: they pass;
* ``DID NOT RUN``: the bug could not be planted (an edit's text is not in
  the file exactly once) or did not run as meant: the planted file does not
  compile, reads a name it does not define (checked in the source: a test
  may catch the ``NameError`` as an outcome, as the replay audit does), or
  the tests fail with a ``NameError``, ``SyntaxError`` or ``ImportError``
  (the edit is broken; a crash is not a catch);
* ``BASELINE FAILS``: the tests fail without the bug (nothing to learn).

It exits 1 unless every bug is CAUGHT. Each bug is planted in the working
tree: do not run it while editing the same files.

Last full run (2026-12-07 at b977a1c, 2 CPU cores shared with other jobs,
load 5-8; 8.8 min with the baseline runs, which all passed; see
benchmarks/README.md and JOURNAL.md): 19 of 19 CAUGHT, first failures
abridged::

    selections-delta                   CAUGHT  test_budget.py::test_the_budget_reads_epsilon_at_delta_less_the_selections_thresholds
    refusal-not-sticky                 CAUGHT  test_budget.py::test_a_refused_budget_refuses_later_smaller_charges
    kind-exact                         CAUGHT  test_replay.py::test_synthesizers_replay[dphp]
    numeric-exact                      CAUGHT  test_replay.py::test_synthesizers_replay[dphp]
    stretch-without-sd                 CAUGHT  test_schema_longtail.py::test_a_decade_is_taken_only_on_significant_mass
    share-from-complete-rows           CAUGHT  test_replay.py::test_synthesizer_replays_where_the_budget_split_moves
    refusal-after-output               CAUGHT  test_cli_front_door.py::test_a_guess_is_refused_before_anything_is_written_when_the_fit_goes_on
    guess-refusal-moved-after-output   CAUGHT  (the same test)
    guard-refusal-not-sticky           CAUGHT  test_search_guard.py::test_a_joblib_backend_with_workers_is_refused
    guard-reads-search-n-jobs          CAUGHT  test_search_guard.py::test_a_joblib_backend_with_workers_is_refused
    block-rows-as-list                 CAUGHT  test_chunked_rows.py::test_a_pass_over_blocks_holds_one_block_at_a_time
    pairs-share-keeps-selection        CAUGHT  test_pair_selection.py::test_the_pairs_share_holds_the_selection_and_the_one_way_marginals_get_the_rest[False-auto]
    design-reads-policy-selection      CAUGHT  test_marginals.py::test_a_given_pair_share_plans_the_pairs_precise_in_it_less_the_selection[10000-27-1.0-0.1]
    present-kinds-without-sqrt2        CAUGHT  test_schema_missing.py::test_a_column_s_present_rows_combine_its_releases_at_their_noise
    size-rule-whole-schema-share       CAUGHT  test_private_schema.py::test_the_size_rule_holds_at_the_columns_part_of_a_given_schema_share[0.2-True]
    strong-pairs-noise-without-sqrt-m  CAUGHT  test_pair_selection.py::test_strongly_related_pairs_not_measured_are_named
    sparse-without-margin              CAUGHT  test_schema_missing.py::test_a_sparse_column_is_written_empty_only_when_its_noise_keeps_it_under_a_twentieth[400.0-named]
    time-flags-at-release-noise        CAUGHT  test_private_schema.py::test_a_time_of_day_flag_reads_its_count_at_the_count_s_own_noise[h-not on the hour-hour-second]
    values-target-without-two-stds     CAUGHT  test_private_schema.py::test_the_auto_share_keeps_a_value_of_value_share_of_the_rows[3-1.0-10000]

(guard-refusal-not-sticky also failed
test_a_guard_s_refusal_holds_until_reset_even_when_the_search_is_set_back
when run alone, 2026-11-29.) Before issue 54, refusal-after-output was NOT CAUGHT (its
block is dead code for dphp, whose fit raises on a guess itself) and the
share-from-complete-rows edit read ``X``, undefined there: a NameError the
replay audit recorded as the run's outcome, reported as CAUGHT; this script
now reports that edit as DID NOT RUN. Before issue 66, the seven from
pairs-share-keeps-selection to time-flags-at-release-noise survived the
default suite (strong-pairs-noise-without-sqrt-m: its test compared against
the attribute the slip changes), values-target-without-two-stds was caught by
``auto_share``'s doctest only, and share-from-complete-rows edited
``synthesizers/_kme.py``, whose code had moved to ``_base.py``: its text no
longer found, it could not run (the "11 of 11 caught" of 2026-11-29 predated
the move).
"""

import argparse
import builtins
import os
import re
import subprocess
import symtable
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Exceptions that mean the planted code crashed rather than misbehaved.
CRASHES = ("NameError", "SyntaxError", "IndentationError", "ImportError",
           "ModuleNotFoundError", "UnboundLocalError")

_GUESS_REFUSAL = (
    "    if any(map(is_guess, issues)) and not args.allow_guesses:\n"
    "        classes = getattr(model, \"classes_\", None)\n"
    "        if classes is not None:  # the class of missing labels is no class to declare\n"
    "            classes = [c for c in classes if c != getattr(model, \"missing_label_\", None)]\n"
    "        return _refuse(args, columns, model.schema_, classes, issues, report)\n")
_WRITTEN = "    # no fit time: it would count"  # the line after the files are written

_BUDGET = "tests/privacy/test_budget.py::"
_REPLAY = "tests/test_replay.py::"
_FRONT_DOOR = ["tests/cli/test_cli_front_door.py::"
               "test_a_guess_is_refused_before_anything_is_written_when_the_fit_goes_on"]
_GUARD = ["tests/privacy/test_search_guard.py::test_a_joblib_backend_with_workers_is_refused",
          "tests/privacy/test_search_guard.py::"
          "test_a_guard_s_refusal_holds_until_reset_even_when_the_search_is_set_back"]
_PAIRS = "tests/synthesizers/test_pair_selection.py::"
_PRESENT = "tests/schema/test_schema_missing.py::"
_SCHEMA = "tests/schema/test_private_schema.py::"

#: name -> (file, [(text as it is, text with the bug)], tests that must fail): the
#: tests are the ones that read the rule the bug breaks (a file, or test ids)
BUGS = {
    "selections-delta": (
        "skdpgen/privacy/_budget.py",
        [("    gaussian_delta = delta - sum(selections)", "    gaussian_delta = delta")],
        [_BUDGET + "test_the_budget_reads_epsilon_at_delta_less_the_selections_thresholds"]),
    "refusal-not-sticky": (
        "skdpgen/privacy/_budget.py",
        [("        if self._refused is not None:\n            raise BudgetExceededError("
          "self._refused)\n        self._check_guards(at_exit=False)",
          "        self._check_guards(at_exit=False)")],
        [_BUDGET + "test_a_refused_budget_refuses_later_smaller_charges"]),
    "kind-exact": (
        "skdpgen/schema/kinds/_text.py",
        [("        return KINDS[kind_from_forms(noisy, s)]",
          "        return KINDS[kind_from_forms(__import__('numpy').asarray(statistic, float), s)]")],
        [_REPLAY + "test_synthesizers_replay"]),
    "numeric-exact": (
        "skdpgen/schema/kinds/_kind.py",
        [("        return self.estimate(key, noisy, s, n, context)",
          "        if self.name in ('numeric', 'datetime'):\n"
          "            noisy = __import__('numpy').asarray(statistic, dtype=float)\n"
          "        return self.estimate(key, noisy, s, n, context)")],
        [_REPLAY + "test_synthesizers_replay"]),
    "stretch-without-sd": (
        "skdpgen/schema/_ranges.py",
        [("if rest > max(POLICY.decade_stds * s * math.sqrt(1 + inside.size), least):",
          "if rest > max(POLICY.decade_stds * math.sqrt(1 + inside.size), least):")],
        ["tests/schema/test_schema_longtail.py"]),
    "share-from-complete-rows": (  # the table's complete rows (exact) instead of n
        "skdpgen/synthesizers/_base.py",  # in _kme.py before issue 62
        [("plan.auto_share(table.n_rows, budget.epsilon,",
          "plan.auto_share(max(1, int(table.frame.notna().all(axis=1).sum())), "
          "budget.epsilon,")],
        [_REPLAY + "test_synthesizer_replays_where_the_budget_split_moves"]),
    "refusal-after-output": (  # a file written in the refusal's block, before it
        "skdpgen/cli.py",
        [("    if any(map(is_guess, issues)) and not args.allow_guesses:\n",
          "    if any(map(is_guess, issues)) and not args.allow_guesses:\n"
          "        Path(args.out).write_text('written before the refusal')\n")],
        _FRONT_DOOR),
    # issue 54's survivors
    "guess-refusal-moved-after-output": (  # the refusal block after the files are written
        "skdpgen/cli.py",
        [(_GUESS_REFUSAL, ""), (_WRITTEN, _GUESS_REFUSAL + _WRITTEN)],
        _FRONT_DOOR),
    "guard-refusal-not-sticky": (  # a guard's refusal forgotten once its search is set back
        "skdpgen/privacy/_budget.py",
        [("            if message is not None:\n                self._refused = message\n",
          "            if message is not None:\n")],
        _GUARD),
    "guard-reads-search-n-jobs": (  # the search's n_jobs (None) instead of the backend's
        "skdpgen/model_selection.py",
        [("            n_jobs = get_active_backend()[1]\n"
          "            if self._backend_n_jobs and n_jobs not in (None, 1):",
          "            n_jobs = search.n_jobs\n"
          "            if self._backend_n_jobs and n_jobs not in (None, 1):")],
        _GUARD),
    "block-rows-as-list": (  # every block read before the first is summed
        "skdpgen/rows/_blocks.py",
        [("        for frame, y in self.frames(labels=labeled):\n"
          "            yield self.read(frame), (self._encode(y) if labeled else None)",
          "        return [(self.read(frame), (self._encode(y) if labeled else None))\n"
          "                for frame, y in self.frames(labels=labeled)]")],
        ["tests/rows/test_chunked_rows.py::test_a_pass_over_blocks_holds_one_block_at_a_time"]),
    # issue 66: documented rules of the code added since febfc3a that no test read
    "pairs-share-keeps-selection": (  # one-way marginals 0.74 of the mechanism, not 0.81
        "skdpgen/synthesizers/mechanisms/marginal.py",
        [("selection, two = {PAIR_SELECTION: self.selection_share}, two - self.selection_share",
          "selection, two = {PAIR_SELECTION: self.selection_share}, two")],
        [_PAIRS + "test_the_pairs_share_holds_the_selection_and_the_one_way_marginals_"
         "get_the_rest"]),
    "design-reads-policy-selection": (  # pair_share=0.1: 1 pair planned instead of 21
        "skdpgen/synthesizers/mechanisms/_marginal_design.py",
        [("    selection = selection_share(pair_share)\n",
          "    selection = POLICY.selection_share\n")],
        ["tests/synthesizers/test_marginals.py::"
         "test_a_given_pair_share_plans_the_pairs_precise_in_it_less_the_selection"]),
    "present-kinds-without-sqrt2": (  # the kinds release's noise s_k read as its multiplier
        "skdpgen/schema/_present.py",
        [("s_k = accountant.noise_multipliers[KINDS] * math.sqrt(2.0)",
          "s_k = accountant.noise_multipliers[KINDS]")],
        [_PRESENT + "test_a_column_s_present_rows_combine_its_releases_at_their_noise"]),
    "size-rule-whole-schema-share": (  # the class list's part read as the columns'
        "skdpgen/schema/_plan.py",
        [("        return float(schema_share) * (1.0 - POLICY.class_share "
          "if self.estimate_classes\n                                      else 1.0)",
          "        return float(schema_share)")],
        [_SCHEMA + "test_the_size_rule_holds_at_the_columns_part_of_a_given_schema_share"]),
    "strong-pairs-noise-without-sqrt-m": (  # a score's noise without the √M of M pairs
        "skdpgen/synthesizers/mechanisms/marginal.py",
        [("self._score_std = (context.noise_std(PAIR_SELECTION, SCORE_SENSITIVITY * math.sqrt(m))",
          "self._score_std = (context.noise_std(PAIR_SELECTION, SCORE_SENSITIVITY)")],
        [_PAIRS + "test_strongly_related_pairs_not_measured_are_named"]),
    "sparse-without-margin": (  # > a twentieth of the rows under the noise written empty
        "skdpgen/schema/_present.py",
        [("    most = min(max(estimate, 0.0) + POLICY.uncertain_stds * std, float(n)) / n",
          "    most = min(max(estimate, 0.0), float(n)) / n")],
        [_PRESENT + "test_a_sparse_column_is_written_empty_only_when_its_noise_keeps_it_"
         "under_a_twentieth"]),
    "time-flags-at-release-noise": (  # the day/hour counts' noise s, not s·√2
        "skdpgen/schema/kinds/_datetime.py",
        [("    s_time = s / TIME_WEIGHT\n", "    s_time = s\n")],
        [_SCHEMA + "test_a_time_of_day_flag_reads_its_count_at_the_count_s_own_noise"]),
    "values-target-without-two-stds": (  # auto share: a value of 2 % only at its threshold
        "skdpgen/schema/_shares.py",
        [("values = units * (z + 2.0) ** 2 / (rho * (POLICY.value_share * n) ** 2)",
          "values = units * z ** 2 / (rho * (POLICY.value_share * n) ** 2)")],
        [_SCHEMA + "test_the_auto_share_keeps_a_value_of_value_share_of_the_rows"]),
}


def _pytest(tests):
    """``(failed, crashed, shown)`` of a pytest run: whether it failed, whether a
    failure is a crash (:data:`CRASHES`), and its first failure (or its last line)."""
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-rfE", "--tb=line",
                          "-p", "no:cacheprovider", *tests], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "COLUMNS": "400"})
    lines = run.stdout.splitlines()
    failures = [s for s in lines if s.startswith(("FAILED ", "ERROR "))]
    # --tb=line: "path:line: Exception: message" for each failure
    raised = [s for s in lines if re.match(r"^\S+:\d+: ", s)] + failures
    crashed = any(re.search(rf"\b{name}\b", s) for s in raised for name in CRASHES)
    shown = failures[:1] or [s for s in lines if " passed" in s or " failed" in s][-1:] \
        or lines[-1:] or [run.stderr.strip()[-200:]]
    return run.returncode != 0, crashed, shown[0]


def _undefined_names(text, path):
    """The global names the code of ``text`` reads but that neither the module nor
    the builtins define (a planted name that would raise NameError where it runs,
    even where a test catches the error as an outcome)."""
    top = symtable.symtable(text, path, "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()
               or s.is_namespace()} | set(dir(builtins)) | {"__file__", "__name__"}
    used, tables = set(), [top]
    while tables:
        table = tables.pop()
        tables += table.get_children()
        used |= {s.get_name() for s in table.get_symbols()
                 if s.is_referenced() and (s.is_global() or table is top)}
    return used - defined


def plant(name, baselines):
    """Plant one bug, run its tests, restore the file; the verdict (a string)."""
    path, edits, tests = BUGS[name]
    source = ROOT / path
    text = source.read_text()
    planted = text
    for old, new in edits:
        if planted.count(old) != 1:
            return "DID NOT RUN", f"an edit's text is not in {path} exactly once"
        planted = planted.replace(old, new)
    try:
        compile(planted, str(source), "exec")
    except SyntaxError as exc:
        return "DID NOT RUN", f"the planted file does not compile: {exc}"
    undefined = _undefined_names(planted, path) - _undefined_names(text, path)
    if undefined:
        return "DID NOT RUN", f"the planted code reads undefined names: {sorted(undefined)}"
    if name in baselines and baselines[name][0]:
        return "BASELINE FAILS", baselines[name][2]
    try:
        source.write_text(planted)
        failed, crashed, summary = _pytest(tests)
    finally:
        source.write_text(text)
    if failed and crashed:
        return "DID NOT RUN", f"the planted code crashed: {summary}"
    return ("CAUGHT" if failed else "NOT CAUGHT"), summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"bugs to plant (default: all): {', '.join(BUGS)}")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the runs of the tests without any bug")
    args = parser.parse_args(argv)
    names = args.names or list(BUGS)
    unknown = [name for name in names if name not in BUGS]
    if unknown:
        parser.error(f"no such bug: {', '.join(unknown)} (one of {', '.join(BUGS)})")
    baselines = {}
    if not args.no_baseline:
        runs = {}
        for name in names:
            tests = tuple(BUGS[name][2])
            if tests not in runs:
                runs[tests] = _pytest(list(tests))
            baselines[name] = runs[tests]
    verdicts = []
    for name in names:
        verdict, summary = plant(name, baselines)
        verdicts.append(verdict)
        print(f"{name:34s} {verdict:14s} {summary}", flush=True)
    return 0 if all(v == "CAUGHT" for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
