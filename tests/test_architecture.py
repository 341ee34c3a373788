"""The structure the library promises contributors: layers, one clip, one protocol."""

import ast
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import skdpgen
from skdpgen import DPKMEReleaser, KernelMeanEmbedding, KMESynthesizer, PrivacyLeakWarning
from skdpgen.kernels import BoundedFeatureMap, HermiteFeatures, RandomFourierFeatures
from skdpgen.rows import chunk_feature_sums

PACKAGE = Path(skdpgen.__file__).parent

#: The private table of a fit (:func:`skdpgen.rows.table_rows`, its backends, and
#: :func:`~skdpgen.rows.make_rows`, which encodes with an encoder it is handed),
#: below the schema, whose estimate reads it through :mod:`skdpgen.rows`, its door.
DATA_LAYER = {"skdpgen.rows"}

# Lower layers never import higher ones (same layer is allowed).
LAYERS = [
    {"skdpgen.privacy", "skdpgen.utils", "skdpgen._dask", "skdpgen._device", "skdpgen._policy",
     "skdpgen._canonical", "skdpgen._clock", "skdpgen.registry"},
    {"skdpgen.base"},
    {"skdpgen.kernels"},
    # the data layer: the private table's backends, whose raw columns the schema
    # estimate reads (so below it) and whose encoded features the releases sum;
    # they read a value by its canonical form (skdpgen._canonical, which imports
    # nothing)
    DATA_LAYER,
    {"skdpgen.schema", "skdpgen.private_schema", "skdpgen.datasets"},
    {"skdpgen.embedding"},
    {"skdpgen.release", "skdpgen._reduced_set", "skdpgen.synthesizers"},
    {"skdpgen.evaluation", "skdpgen.audit", "skdpgen.model_selection", "skdpgen._search_report"},
    {"skdpgen.cli", "skdpgen._cli_options", "skdpgen._cli_files", "skdpgen",
     "skdpgen.__main__"},
]


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path):
    """``(module imported, names imported)`` for every import in a file, nested ones too."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("skdpgen"):
                names = [a.name for a in node.names]
                yield target, names
                for n in names:  # "from . import synthesizers" imports a module
                    if f"{target}.{n}".replace("..", ".") in MODULES:
                        yield f"{target}.{n}", []
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skdpgen"):
                    yield alias.name, []


FILES = sorted(PACKAGE.rglob("*.py"))
MODULES = {_module_name(p) for p in FILES}


def _layer(module):
    best = None
    for i, layer in enumerate(LAYERS):
        for prefix in layer:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > len(best[1]):
                    best = (i, prefix)
    assert best is not None, f"{module} is in no layer"
    return best[0]


def _graph():
    return {_module_name(p): {t for t, _ in _imports(p) if t in MODULES} for p in FILES}


def test_every_import_points_down_or_sideways():
    offenders = [
        (module, target)
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    ]
    assert offenders == []


def test_no_import_circle():
    edges = _graph()
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in edges.get(node, ()):
            if state.get(nxt) == "open":
                pytest.fail(f"import circle: {' -> '.join(stack + [node, nxt])}")
            if nxt not in state:
                visit(nxt, stack + [node])
        state[node] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [])


def test_release_does_not_import_synthesizers_nor_embedding_dask():
    graph = _graph()
    assert not any(t.startswith("skdpgen.synthesizers") for t in graph["skdpgen.release"])
    dask_helpers = {"skdpgen._dask", "skdpgen.rows._distributed"}
    assert not graph["skdpgen.embedding"] & dask_helpers
    names = [n for _, ns in _imports(PACKAGE / "embedding.py") for n in ns]
    assert "DaskRows" not in names and "is_dask_collection" not in names


def test_evaluation_imports_no_underscore_name_from_another_module():
    offenders = []
    for path in sorted((PACKAGE / "evaluation").glob("*.py")):
        for target, names in _imports(path):
            outside = not target.startswith("skdpgen.evaluation")
            if outside and any(part.startswith("_") for part in target.split(".")):
                offenders.append((path.name, target))
            offenders += [(path.name, f"{target}.{n}") for n in names if n.startswith("_")]
    assert offenders == []


def test_the_row_clip_is_written_once():
    """The clip's limit ``1 − 8 eps`` appears in one function of the kernel layer."""
    sites = [p.relative_to(PACKAGE).as_posix() for p in FILES
             if "8.0 * np.finfo" in p.read_text() or "8.0 * torch.finfo" in p.read_text()]
    assert sites == ["kernels/_base.py"]


# -- one new bounded feature map, written once, used everywhere ----------------
class UnitBallFeatures(BoundedFeatureMap):
    """``h(x) = x / max(1, ‖x‖)``: the linear kernel on the unit ball."""

    def _fit(self, X):
        self._n_features_out = X.shape[1]

    def raw_transform(self, Z):
        if isinstance(Z, torch.Tensor):
            return Z / torch.clamp(torch.linalg.vector_norm(Z, dim=1), min=1.0)[:, None]
        return Z / np.maximum(1.0, np.linalg.norm(Z, axis=1))[:, None]


class TooLong(BoundedFeatureMap):
    """A broken map: rows of norm 2. Every release path must clip it."""

    def _fit(self, X):
        self._n_features_out = X.shape[1]

    def raw_transform(self, Z):
        if isinstance(Z, torch.Tensor):
            return 2.0 * Z / torch.linalg.vector_norm(Z, dim=1)[:, None]
        return 2.0 * Z / np.linalg.norm(Z, axis=1)[:, None]


def test_a_new_feature_map_works_unchanged_in_every_estimator():
    X = np.random.default_rng(0).uniform(-1, 1, size=(400, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # a bounded map leaks nothing
        kme = KernelMeanEmbedding(features=UnitBallFeatures(), epsilon=1.0).fit(X)
        rel = DPKMEReleaser(method="features", features=UnitBallFeatures(), bounds=(-1, 1),
                            n_points=10, n_iter=30, random_state=0).fit(X)
        syn = KMESynthesizer(features=UnitBallFeatures(), bounds=(-1, 1), epochs=2,
                             steps_per_epoch=10, batch_size=64, random_state=0,
                             device="cpu").fit(X)
    for est in (kme, rel, syn):
        assert est.privacy_report_.is_private
        assert isinstance(est.features_, UnitBallFeatures)
    np.testing.assert_allclose(kme.features_.transform(X[:2]), X[:2] / np.maximum(
        1, np.linalg.norm(X[:2], axis=1))[:, None])
    # the releaser optimized its points through the map's torch path
    assert rel.loss_history_[-1] < rel.loss_history_[0]
    X_syn, y_syn = syn.sample(50, random_state=0)
    assert X_syn.shape == (50, 3) and y_syn is None and np.all(np.abs(X_syn) <= 1)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no GPU"))])
def test_every_release_path_clips_rows_to_norm_one(device):
    X = np.random.default_rng(1).uniform(-1, 1, size=(1, 3))  # one row: the sum is that row
    fmap = TooLong().fit(X)
    assert np.linalg.norm(fmap.raw_transform(X)) == pytest.approx(2.0)
    sums = [
        chunk_feature_sums(fmap, X, device=device)[:, 0],
        fmap.feature_sum(X, np.ones((1, 1)))[:, 0],
        fmap.feature_sum(torch.as_tensor(X), torch.ones(1, 1, dtype=torch.float64))[:, 0].numpy(),
        fmap.transform(X)[0],
        fmap.torch_transform(torch.as_tensor(X))[0].numpy(),
        KernelMeanEmbedding(features=fmap).fit(X).embedding_,
    ]
    for s in sums:
        assert np.linalg.norm(s) <= 1.0
        assert np.linalg.norm(s) == pytest.approx(1.0, abs=1e-12)
    for fmap in (HermiteFeatures(order=3, kernel="product"), RandomFourierFeatures(n_components=5)):
        fmap.fit(X)
        fused = fmap.feature_sum(X * 1e3, np.ones((1, 1)))
        assert np.linalg.norm(fused) <= 1.0


def test_package_imports_without_docstrings():
    """``python -OO`` strips docstrings; no module may build on one at import time."""
    import subprocess
    import sys

    code = ("import skdpgen, skdpgen.private_schema, skdpgen.schema, skdpgen.cli, "
            "skdpgen.evaluation, skdpgen.audit, skdpgen.datasets")
    done = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_no_module_of_the_package_is_too_long():
    """A file past ~700 lines is a sign that two concepts share it."""
    long = {str(p.relative_to(PACKAGE)): n for p in FILES
            if (n := len(p.read_text().splitlines())) > 760}
    assert not long, long


def test_one_function_releases_a_mean_embedding():
    """Sum the clipped feature rows, divide by n, add noise: written once, in
    ``skdpgen.rows.release_mean_embedding`` (issue 41). Every other call of
    ``feature_sums`` is a non-private diagnostic, and no other noise is
    calibrated to a feature map's row distance."""
    import ast

    sums, calibrated = set(), set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and any(
                    isinstance(n, ast.Attribute) and n.attr == "max_row_distance"
                    for n in ast.walk(node.left)):
                calibrated.add(_module_name(path))  # a mean's sensitivity, Δ / n
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr == "feature_sums":
                sums.add(_module_name(path))

    assert calibrated == {"skdpgen.rows._release"}
    # KernelMeanEmbedding.score reads the rows without noise (a diagnostic)
    assert sums == {"skdpgen.rows._release", "skdpgen.embedding"}


#: Module-level numbers of the schema package that are not estimate thresholds:
#: the public grids, the canonical forms' codes, the encoding's resolution, the
#: releases' sensitivities and weights, the template's order of parts.
_SCHEMA_NUMBERS = {"FINE_BINS", "FINE_GROUP", "_DECADES", "_FIRST_YEAR", "_END_YEAR",
                   "NUMBER", "BOOL", "DATE", "TEXT", "MISSING", "TIME", "DAY_NS", "HOUR_NS",
                   "MINUTE_NS", "_DURATION_DOUBLINGS",
                   "RESOLUTION_NS", "_INT_LIMIT", "EDGE_TOLERANCE", "OUTPUT_RESOLUTION",
                   "MISSING_WEIGHT", "TIME_WEIGHT", "DATE_WEIGHT", "KIND_WEIGHT", "SENSITIVITY",
                   "_WEIGHT"}


def _module_numbers(path):
    """Names a module assigns a number to at its top level (in ``if`` and ``try``
    blocks too): any int or float literal in the assigned value."""
    body = list(ast.parse(path.read_text()).body)
    while body:
        node = body.pop(0)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            body += node.body + getattr(node, "orelse", []) + getattr(node, "finalbody", [])
            body += [s for handler in getattr(node, "handlers", []) for s in handler.body]
            continue
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(n, ast.Constant) and isinstance(n.value, (int, float))
               and not isinstance(n.value, bool) for n in ast.walk(node.value)):
            yield from (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))


def test_the_schema_estimate_reads_its_thresholds_from_one_policy():
    """No module of ``skdpgen.schema`` defines a threshold of its own: a number
    assigned at module level is a grid or an encoding constant, or it belongs to
    ``EstimationPolicy`` (whose every field states its rule)."""
    from skdpgen.schema._policy import POLICY

    found = [f"{path.name}: {name}" for path in sorted((PACKAGE / "schema").rglob("*.py"))
             for name in _module_numbers(path) if name not in _SCHEMA_NUMBERS]
    assert found == []
    table = POLICY.table()
    assert len(table) >= 30 and all(reason for _, _, reason in table)
    with pytest.raises(AttributeError):  # frozen: one policy for every rule
        POLICY.flag_stds = 3.0


#: The module-level numbers of the package that are not tuned choices, and why.
#: A tuned choice (a share, a factor, a threshold, a grid or a size that changes
#: what a fit releases, concludes or samples) is a field of a policy:
#: ``EstimationPolicy`` (skdpgen.schema._policy) or ``SynthesisPolicy``
#: (skdpgen.synthesizers._policy).
_ENGINEERING_NUMBERS = {
    **dict.fromkeys(_SCHEMA_NUMBERS, "the schema's public grids, canonical codes, encoding "
                                     "resolution, sensitivities and weights"),
    # memory and work sizes: what is computed does not depend on them
    "_BLOCK_BYTES": "memory: bytes read at a time (skdpgen._records)",
    "_BLOCK_RECORDS": "memory: records parsed at a time in multiline mode (skdpgen._records)",
    "_SHARED_TEXTS": "memory: distinct texts of a column shared across blocks (skdpgen._records)",
    "_BLOCK_VALUES": "memory: kernel values held per block (skdpgen.kernels._gaussian)",
    "_JOINT_SIZE": "speed: joint categories of a merged one-hot block (skdpgen.kernels._fourier)",
    "_CHUNK_VALUES": "memory: feature values held per chunk of rows (skdpgen.rows._memory)",
    "_TASK_VALUES": "speed: feature values summed per task of a worker thread (skdpgen.rows._memory)",
    "_SLAB_VALUES": "speed: values per slab of the Hermite sum's sweep (skdpgen.kernels)",
    "LABEL_CHUNK": "memory: labels read at a time (skdpgen.rows)",
    "_FAN_IN": "speed: partial sums combined per task of a Dask reduction (skdpgen.rows)",
    "CHUNK_ROWS": "memory: calibrated rows drawn at a time (skdpgen.synthesizers._calibration)",
    "_GENERATED_VALUES": "memory: generator outputs computed at a time in sampling "
                         "(skdpgen.synthesizers._base)",
    "OUTPUT_ROWS": "memory: rows the command line samples and writes at a time "
                   "(skdpgen._cli_output)",
    # numerical limits, tolerances and mathematics
    "_X_CLIP": "numerical: inputs clipped so that no intermediate overflows (kernels)",
    "_FOLD_TINY": "numerical: smallest scale of the sweep's scaled Hermite terms, their "
                  "squares finite (kernels)",
    "_SHRINK": "numerical: rows shrunk before the fused Hermite sum's clip, so that only "
               "rows above norm one by more than rounding are summed twice (kernels)",
    "_TOLERANCE": "numerical: relative slack of the budget check for σ's rounding (privacy)",
    "_FIELD_LIMIT": "the csv module's field size limit, the largest a C long holds",
    "SPREAD_FACTOR": "mathematics: φ(0) = 1/√(2π), the expected positive part of N(0, 1)",
    "SCORE_SENSITIVITY": "mathematics: a pair score's replace-one sensitivity, derived in "
                         "pair_scores (synthesizers.mechanisms._marginal_cells)",
    "ERROR_SENSITIVITY": "mathematics: a model error score's replace-one sensitivity, "
                         "derived in error_scores (synthesizers.mechanisms._marginal_rounds)",
    # public facts, protocols and the API
    "MAX_RECORD_BYTES": "the API: the command line's documented default maximum record "
                        "length, public, the user's to raise (skdpgen._records)",
    "_N_ROWS": "a data set's published row counts (skdpgen.datasets)",
    "_ADULT_SCHEMA": "a data set's public schema (skdpgen.datasets)",
    "MAX_CLASSES": "the evaluation protocol: a target with more values is regressed",
    "N_FOLDS": "the evaluation protocol: folds of the real-to-real cross-validation",
    "TV_BINS": "the evaluation protocol: bins of a numeric column's marginals",
    "MAX_PAIRS": "the evaluation protocol: column pairs of the 2-way marginals",
    "POINT_SHARE": "the evaluation protocol: share of the real rows that makes a value a "
                   "cell of its own in a numeric column's marginals",
    "POINT_GAP": "the evaluation protocol: relative gap of a point mass's synthetic share "
                 "that names it as lost",
    "MAX_LEVELS": "the evaluation protocol: values of a text column its models see",
    "ID_SHARE": "the evaluation protocol: share of distinct rows that makes a text column "
                "an identifier, skipped",
    "MAX_FIT_ROWS": "the evaluation protocol: rows an evaluation model trains on, at most",
    "_SCORE_FEATURES": "the fixed kernel of a synthesizer's score: comparable across a grid",
    "LISTED_COLUMNS": "messages: the most column names an error lists (public names)",
    "SIGNAL_MARGIN": "the evaluation protocol: a real->real ROC-AUC this far above 0.5 "
                     "shows signal, so a synthetic one at chance is marked",
    "BELOW_CHANCE": "messages: the below-chance mark's wording (a string built from "
                    "SIGNAL_MARGIN)",
    "CLEAR_LEAD": "the API: search_report's documented default threshold (standard errors) "
                  "from which a search's choice leads clearly, the user's to set",
    "SHARED_DEFAULTS": "the synthesizers' hyperparameter defaults: public API, the user's to set",
    "SHARED_CONSTRAINTS": "the synthesizers' parameter validation: the ranges of the API",
    "__doc__": "a module docstring's generated tables (their column widths)",
    "_DEFAULT_N_COMPONENTS": "the API: DPKMEReleaser's documented default feature map "
                             "(features=None: RandomFourierFeatures(n_components=1000))",
    "_L1_MAX_ITER": "numerical: the L1 reduction's iteration cap; its result meets the "
                    "constraint whether or not the cap is reached (skdpgen._reduced_set)",
}


def test_no_tuned_constant_outside_the_policies():
    """No module of the package defines a tuned number of its own: a number
    assigned at module level is an engineering constant named, with its reason,
    in ``_ENGINEERING_NUMBERS``, or a field of a policy (whose every field
    states its rule) that the code reads as ``POLICY.<field>``."""
    from skdpgen.schema._policy import POLICY as ESTIMATION
    from skdpgen.synthesizers._policy import POLICY as SYNTHESIS

    numbers = {(_module_name(path), name) for path in FILES for name in _module_numbers(path)}
    assert sorted(f"{module}.{name}" for module, name in numbers
                  if name not in _ENGINEERING_NUMBERS) == []
    # no stale entry: every allowed name is still defined
    defined = {name for _, name in numbers}
    assert [name for name in _ENGINEERING_NUMBERS if name not in defined] == []
    for policy in (ESTIMATION, SYNTHESIS):
        assert all(reason for _, _, reason in policy.table())
    assert len(SYNTHESIS.table()) >= 30
    with pytest.raises(AttributeError):  # frozen: one policy for every synthesizer
        SYNTHESIS.pair_noise_ratio = 1.0


def test_every_public_name_has_one_home():
    """A name in the ``__all__`` of two public modules has two homes (the top
    level's shortcuts to the estimators aside): one of them is a re-export."""
    import importlib

    modules = ["skdpgen.schema", "skdpgen.private_schema", "skdpgen.rows",
               "skdpgen.synthesizers", "skdpgen.privacy", "skdpgen.evaluation",
               "skdpgen.kernels", "skdpgen.datasets", "skdpgen.model_selection",
               "skdpgen.release", "skdpgen.embedding", "skdpgen.registry", "skdpgen.audit",
               "skdpgen.utils", "skdpgen.base"]
    homes = {}
    for name in modules:
        module = importlib.import_module(name)
        for attr in module.__all__:
            homes.setdefault(id(getattr(module, attr)), []).append(f"{name}.{attr}")
    assert [places for places in homes.values() if len(places) > 1] == []


#: Functions allowed past the length limit, and why.
_LONG_FUNCTIONS = {
    "skdpgen._cli_options.build_parser": "the command line's options, declared one "
                                         "after another (no logic)",
}


def test_modules_and_functions_stay_short():
    """A module past ~600 lines, or a function whose body (its docstring aside)
    runs past ~60, is a sign that two concepts share it: split it, or name
    here why it is one thing."""
    long_modules = [f"{_module_name(p)}: {n}" for p in FILES
                    if (n := len(p.read_text().splitlines())) > 600]
    assert long_modules == []
    long_functions = []
    for path in FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = node.body
            if ast.get_docstring(node) is not None:
                body = body[1:]
            if not body:
                continue
            name = f"{_module_name(path)}.{node.name}"
            if node.end_lineno - body[0].lineno + 1 > 65 and name not in _LONG_FUNCTIONS:
                long_functions.append(name)
    assert long_functions == []


def test_a_fit_hands_the_raw_table_to_one_place():
    """Followed at run time, the raw ``X`` of a fit goes from ``_fit_private`` to
    one function, :func:`~skdpgen.rows.table_rows` (which decides memory, Dask or
    blocks once); after that the table object holds it and the rows read it in
    chunks (the encoder only puts its columns in the schema's order): neither
    the schema estimate nor the encoder's fit receives the raw ``X``."""
    import sys

    import pandas as pd

    from skdpgen import DPHPSynthesizer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y"], 200)})
    y = rng.choice(["p", "q"], 200)
    hops = []

    def profile(frame, event, arg):
        if event != "call" or not frame.f_globals.get("__name__", "").startswith("skdpgen"):
            return
        code = frame.f_code
        n_args = code.co_argcount + code.co_kwonlyargcount
        if any(frame.f_locals.get(name) is X for name in code.co_varnames[:n_args]):
            caller = frame.f_back
            hops.append((caller.f_globals.get("__name__"), caller.f_code.co_name,
                         frame.f_globals["__name__"], code.co_name))

    est = DPHPSynthesizer(epochs=1, steps_per_epoch=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.setprofile(profile)
        try:
            est.fit(X, y)
        finally:
            sys.setprofile(None)
    from_fit = [(module, name) for caller, function, module, name in hops
                if function == "_fit_private"]
    assert from_fit == [("skdpgen.rows._table", "table_rows")]
    readers = {module for *_, module, _ in hops} - {
        "skdpgen.synthesizers._base", "skdpgen.base"}
    # the backend (its base, its dispatch), make_rows' header check (scikit-learn's
    # validate_data, handed the table by the backend), the value reading, and the
    # encoder's column order
    assert readers == {"skdpgen.rows._table", "skdpgen.rows._base", "skdpgen.rows._memory",
                       "skdpgen.rows", "skdpgen._dask", "skdpgen._canonical",
                       "skdpgen.schema._table"}


#: The names of the built-in column kinds (``skdpgen.schema.kinds.KINDS``).
_KIND_NAMES = {"numeric", "datetime", "categorical", "bool", "text"}


def _kind_comparisons(path):
    """``line: expression`` of every comparison in a file with a kind's name: against
    a string, or membership in a tuple, list or set of strings."""
    def names(node):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return {n for e in node.elts for n in names(e)}
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        return set()

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and any(
                names(n) & _KIND_NAMES for n in [node.left, *node.comparators]):
            yield f"{node.lineno}: {ast.unparse(node)}"


def test_column_kinds_are_asked_not_compared(tmp_path):
    """A column's kind answers what the library asks of it
    (:func:`skdpgen.schema.kind_of`: ``is_numeric``, ``is_bounded``,
    ``has_categories``, ``decides_kind``, ``is_partial``, ``read_values``, ...):
    no code compares a spec's ``"type"``, or a kind's name, with ``"numeric"``,
    ``"categorical"``, ... (a registered kind would be missed), in
    ``skdpgen.schema`` and the kinds' own modules too (issue 64: 23 comparisons
    remained in 6 of its modules; ``evaluate_tables`` refused a registered kind)."""
    found = [f"{_module_name(path)}:{where}" for path in FILES
             for where in _kind_comparisons(path)]
    assert found == []
    # the check sees a comparison with a name, and membership in names
    probe = tmp_path / "probe.py"
    probe.write_text('if spec["type"] == "numeric" or kind.name not in ("bool", "text"):\n'
                     '    pass\n')
    assert len(list(_kind_comparisons(probe))) == 2


def _unit(module):
    """What a module's private names are private to: its subpackage of skdpgen
    (``skdpgen.schema`` for ``skdpgen.schema._plan``), or the module itself for
    a module at the top level (``skdpgen.release``, ``skdpgen._reduced_set``)."""
    return ".".join(module.split(".")[:2])


def _private_imports(path):
    """``module: from X import _name`` for every private name a file imports from
    another unit (:func:`_unit`); a module imported by name is not a name."""
    unit = _unit(_module_name(path))
    for target, names in _imports(path):
        if target not in MODULES or _unit(target) == unit:
            continue
        for name in names:
            if name.startswith("_") and not name.startswith("__") \
                    and f"{target}.{name}" not in MODULES:
                yield f"{_module_name(path)}: from {target} import {name}"


def test_no_module_imports_another_package_private_name():
    """A name with a leading underscore is private to its package (a subpackage of
    skdpgen, such as ``skdpgen.privacy``, whose modules share their helpers; or one
    top-level module): another one needs it public in its home module (named in
    that module's ``__all__``) or moved to where it belongs."""
    found = sorted(hit for path in FILES for hit in _private_imports(path))
    assert found == []


#: Public modules that are doors of a subpackage they sit beside: the names of
#: :mod:`skdpgen.private_schema` (the public face of the schema's private
#: estimation) live in :mod:`skdpgen.schema`'s private modules.
_DOORS = {"skdpgen.private_schema": "skdpgen.schema"}


def _package_of(module):
    """The unit a module belongs to: its subpackage of skdpgen (``skdpgen.schema``
    for ``skdpgen.schema.kinds._kind`` too), a subpackage it is a door of
    (:data:`_DOORS`), or ``skdpgen`` for a module at the top level."""
    if module in _DOORS:
        return _DOORS[module]
    head = ".".join(module.split(".")[:2])
    return head if any(m.startswith(head + ".") for m in MODULES) else "skdpgen"


def _door_offence(importer, target):
    """Whether ``importer`` reaching ``target`` goes around a door (see
    :func:`test_no_module_imports_another_package_private_module`)."""
    if not any(p.startswith("_") and not p.startswith("__") for p in target.split(".")[1:]):
        return False  # a public module is a door
    owner = _package_of(target)
    if owner != "skdpgen":
        return _package_of(importer) != owner
    # a private module of the top level: the lowest layer's helpers serve everyone
    return _layer(target) != 0 and _package_of(importer) != "skdpgen"


def _unlisted_imports(path):
    """``module: from door import name`` for every name a file imports from the door
    of another subpackage that the door's ``__all__`` does not list."""
    import importlib

    importer = _module_name(path)
    for target, names in _imports(path):
        if target not in MODULES or _package_of(target) == _package_of(importer):
            continue
        if any(p.startswith("_") and not p.startswith("__") for p in target.split(".")[1:]):
            continue  # around the door: the test below names it
        listed = getattr(importlib.import_module(target), "__all__", ())
        yield from (f"{importer}: from {target} import {name}" for name in names
                    if name not in listed and f"{target}.{name}" not in MODULES)


def test_no_module_imports_another_package_private_module():
    """A private module (a name with a leading underscore in its path:
    ``skdpgen.schema._plan``, ``skdpgen.schema.kinds._kind``) is private to its
    subpackage of skdpgen, nested packages included (``skdpgen.schema.kinds``
    belongs to ``skdpgen.schema``): every other module imports from the
    subpackage's door, its ``__init__`` or a public module (with the names it
    needs in that door's ``__all__``), never from the private module (issue 64:
    24 imports reached around the doors). A private module of the top level
    (``skdpgen._records``, ``skdpgen._cli_files``) serves the top-level modules
    only; those of the lowest layer (``skdpgen._dask``, ``skdpgen._device``,
    ``skdpgen._canonical``, ``skdpgen._policy``: helpers that import nothing of
    skdpgen) serve every module. The tests may import private modules.
    A name taken through another subpackage's door is in that door's
    ``__all__`` (documented in ``doc/api.rst``)."""
    graph = _graph()
    found = sorted(f"{importer} -> {target}" for importer, targets in graph.items()
                   for target in targets if _door_offence(importer, target))
    assert not found, f"{len(found)} imports go around a door:\n" + "\n".join(found)
    # what goes through another subpackage's door is in that door's __all__
    unlisted = sorted(hit for path in FILES for hit in _unlisted_imports(path))
    assert not unlisted, f"{len(unlisted)} names not in their door's __all__:\n" + \
        "\n".join(unlisted)
    # the helpers every module may import are few, named, and import nothing of skdpgen
    shared = sorted(m for m in MODULES if _package_of(m) == "skdpgen"
                    and m.split(".")[-1].startswith("_") and _layer(m) == 0)
    assert shared == ["skdpgen._canonical", "skdpgen._clock", "skdpgen._dask",
                      "skdpgen._device", "skdpgen._policy"]
    assert [m for m in shared if set(graph[m]) - set(shared)] == []
    # the check sees an import around a door, and lets the ones through a door pass
    assert _door_offence("skdpgen.cli", "skdpgen.schema._issues")
    assert _door_offence("skdpgen.rows", "skdpgen.schema.kinds._categorical")
    assert _door_offence("skdpgen.schema._plan", "skdpgen._records")
    assert not _door_offence("skdpgen.schema.kinds._bool", "skdpgen.schema._flags")
    assert not _door_offence("skdpgen.cli", "skdpgen._records")
    assert not _door_offence("skdpgen.rows._base", "skdpgen._dask")
    assert not _door_offence("skdpgen.cli", "skdpgen.schema")


def test_the_synthesizers_package_exports_estimators_and_their_parts():
    """``skdpgen.synthesizers`` exports the estimators and the parts they compose
    (mechanisms, generators, the trainer: classes), the two losses a mechanism
    builds on and the policy (``POLICY``, read by the command line's notes too);
    the presets' helper functions stay in their own modules."""
    import inspect

    import skdpgen.synthesizers as package

    others = sorted(n for n in package.__all__ if not inspect.isclass(getattr(package, n)))
    assert others == ["POLICY", "embedding_loss", "feature_map_loss"]
    assert {"BaseSynthesizer", "DPHPSynthesizer", "DPMERFSynthesizer", "KMESynthesizer",
            "MarginalSynthesizer", "Mechanism"} <= set(package.__all__)
