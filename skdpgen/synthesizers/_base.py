"""BaseSynthesizer: the fit, sampling and scoring every synthesizer shares."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import inspect
import warnings
from numbers import Integral

import numpy as np
import torch
from sklearn.utils.validation import check_is_fitted, validate_data

from .._device import cpu_threads, resolve_device
from ..utils import check_generator, torch_generator
from ..base import PrivateEstimator
from ..privacy import outside_stacklevel, score_without_noise
from ..embedding import mmd2
from ..kernels import RandomFourierFeatures
from ..rows import encode_labels, make_rows, table_rows
from ..private_schema import SchemaPlan, released_histograms
from ..schema import (SchemaEstimateError, SchemaEstimateWarning, SchemaSizeError,
                      describe_issues, is_guess, kind_of)
from ._calibration import MarginalCalibration
from ._design import PublicShape
from .mechanisms._base import ReleaseContext
from ._policy import POLICY as SYNTHESIS
from ._trainer import GeneratorTrainer

__all__ = ["BaseSynthesizer"]

# The fixed kernel of ``score``: a Gaussian kernel of length scale 1 on the
# publicly scaled encoding (numeric columns on [-1, 1], one-hot blocks, and a
# one-hot label block), through 2,000 random features with a fixed seed. It
# does not depend on the estimator's hyperparameters, so scores are
# comparable across a grid.
_SCORE_FEATURES = dict(n_components=2000, length_scale=1.0, random_state=0)

#: Values of the generator's output (the rows' probabilities) computed at a time.
_GENERATED_VALUES = 1 << 21


class BaseSynthesizer(PrivateEstimator):
    """Base class of the synthesizers: a mechanism and a generator, fitted and sampled.

    A synthesizer chooses its :class:`~skdpgen.synthesizers.Design` (a
    mechanism, its encoding, a generator) in one call, ``_design(shape,
    rng)``, from its hyperparameters and the fit's public shape; this class
    does the rest, the same for every synthesizer: it plans one budget for
    the mechanism's releases, the label proportions, the optional
    calibration and the schema estimate, completes and encodes the schema,
    makes the releases, trains the generator and samples from it.
    :class:`~skdpgen.KMESynthesizer`, :class:`~skdpgen.DPHPSynthesizer`,
    :class:`~skdpgen.DPMERFSynthesizer` and
    :class:`~skdpgen.MarginalSynthesizer` are its presets. A subclass
    defines its hyperparameters (keyword-only, stored by ``__init__``),
    ``_parameter_constraints``, ``_design`` and, for fitted attributes of
    its own, properties that read them from the fitted part
    (:func:`fitted_part`).

    Every subclass has ``epochs``, ``steps_per_epoch``, ``schema``,
    ``bounds``, ``classes``, ``infer_schema``, ``schema_share``,
    ``on_guess``, ``label_share``, ``random_state``, ``device`` and
    ``verbose`` (:mod:`skdpgen.synthesizers._shared`).
    """

    # -- what a synthesizer chooses ---------------------------------------------
    supports_labels = True
    #: the parameter that sets the generated rows of a batch (named in errors)
    _batch_name = "batch_size"
    #: What progress bars and summaries call the estimator (None: its class name).
    display_name = None

    def _design(self, shape, rng):  # pragma: no cover - the one method to write
        """The fit's :class:`~skdpgen.synthesizers.Design` (mechanism, encoding,
        generator), from the hyperparameters and the public ``shape``
        (:class:`~skdpgen.synthesizers.PublicShape`) only, ``rng`` for public
        seeds."""
        raise NotImplementedError

    def _part(self, cls, **resolved):
        """A part (a mechanism's or a generator's class) built from the estimator's
        parameters of the same names, ``resolved`` ones (``"auto"`` made a value,
        from public settings) overriding them: nothing copied by hand."""
        params = self.get_params(deep=False)
        given = {name: params[name] for name in cls._get_param_names() if name in params}
        return cls(**{**given, **resolved})

    def _refuse_unused(self, unused):
        """Raise when a parameter set away from its default does nothing here.

        ``unused``: ``{parameter: why}`` for the parameters the fit's
        configuration (public settings only) does not use; a parameter left at
        its default passes silently, one set otherwise is a ``ValueError``
        naming it, so that a grid over it never chooses among identical models.
        """
        defaults = {name: p.default for name, p in
                    inspect.signature(type(self).__init__).parameters.items()}
        params = self.get_params(deep=False)
        named = [f"{name}={params[name]!r} ({why})" for name, why in unused.items()
                 if not _same(params[name], defaults[name])]
        if named:
            raise ValueError(f"{type(self).__name__}: {'; '.join(named)}. Leave "
                             f"{'it' if len(named) == 1 else 'them'} at the default, or "
                             "choose a configuration that uses it.")

    def fit(self, X, y=None, *, epsilon=None, delta=None):
        """Privatize the data's kernel mean embeddings and train the generator.

        Parameters
        ----------
        X : DataFrame, array-like, Dask DataFrame or Dask array of shape (n_samples, n_features)
            The private table. Numeric columns are clipped to their public
            bounds; categorical columns must take values in their categories.
            A Dask collection is encoded and summed partition by partition on
            the active Dask scheduler, once per release (see :ref:`dask`).
        y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
            Class labels for class-conditional synthesis; with Dask ``X``,
            partitioned like ``X`` (e.g. a column of the same Dask DataFrame).
        epsilon, delta : float, default=None
            Budget of this fit; override the constructor's values (which are
            left unchanged). The values used are stored as ``epsilon_`` and
            ``delta_``.

        Returns
        -------
        self : object
        """
        return super().fit(X, y, epsilon=epsilon, delta=delta)

    def _fit_private(self, X, y, budget):
        """design → plan the budget → complete the schema → encode → release → train → keep.

        Each step reads the private table only through ``table`` (in memory,
        Dask or blocks: decided once, by :func:`table_rows`)."""
        labeled = y is not None
        table = table_rows(X, y)
        rng = check_generator(self.random_state)
        # the mechanism and the generator, from the public shape (the row count only
        # when a design reads it: a pass over Dask data or blocks, made once)
        # the design's warnings (pairs it cannot measure) wait for the size check:
        # a table it refuses is not fitted, and nothing is said of a fit not made
        with warnings.catch_warnings(record=True) as designed:
            warnings.simplefilter("always")
            design = self._design(PublicShape(len(table.columns), budget.epsilon,
                                              budget.delta, labeled, lambda: table.n_rows), rng)
        design = design.resolved(len(table.columns))
        plan = self._schema_plan(table, design.image_shape)
        mechanism = design.mechanism
        accountant, estimate = self._plan_budget(table, plan, design, budget, labeled)
        if estimate:  # before anything is read or released
            self._check_size(table, plan, budget, accountant)
        for w in designed:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        schema, classes = self._complete_schema(table, plan, accountant, estimate)
        encoder, rows = self._encode(table, plan, design, schema, classes, accountant,
                                     estimate, private=budget.private, labeled=labeled)
        k = rows.n_classes
        device = resolve_device(self.device)
        spec = design.generator
        network = spec.build(k, encoder, torch_generator(rng, "cpu")).to(device)
        # the releases: label proportions, the mechanism's embeddings, the calibration
        mechanism.setup(encoder, k, self.epochs, rng)
        mechanism.reuse_counts(plan.counts_ if estimate else {})
        class_weights = _release_proportions(rows, accountant) if k else None
        context = ReleaseContext(rows, accountant, class_weights, rng, device,
                                 rows.release_device(device))
        calibration = None
        if design.calibration_share:
            calibration = MarginalCalibration().setup(encoder).release(context)
        trainer = GeneratorTrainer(
            epochs=self.epochs, steps_per_epoch=self.steps_per_epoch,
            batch_size=spec.rows(k), learning_rate=spec.learning_rate,
            noise_dim=spec.noise_dim, device=device, verbose=self.verbose,
            desc=self.display_name or type(self).__name__,
        )
        # the latent noise is drawn on the training device: no host round trips
        self.loss_history_ = trainer.train(network, mechanism, context,
                                           torch_generator(rng, device))
        self.schema_ = dict(schema) if schema is not None else {}
        self.schema_issues_ = list(plan.issues_) if estimate else []
        self.schema_issues_ += self._release_issues(mechanism)
        # what the schema estimate released of each column's values (output_issues_)
        self._schema_releases = {"histograms": released_histograms(plan) if estimate else {},
                                 "counts": dict(plan.counts_) if estimate else {},
                                 "n_rows": table.n_rows}
        self.missing_label_ = plan.class_missing_
        self.design_ = design
        self.encoder_ = encoder
        self.classes_ = rows.classes
        self.n_classes_ = k
        self.class_weights_ = class_weights
        self.mechanism_ = mechanism
        self.network_ = network.cpu().eval()
        self.calibration_ = calibration
        if calibration is not None:  # post-processing: generated rows and the release
            calibration.fit(lambda m, c: self._generate(m, c, rng), class_weights, rng)

    @property
    def release_misfit_(self):
        """Each kernel release's distance from the fitted generator, in units of its
        noise (:meth:`Mechanism.release_misfit
        <skdpgen.synthesizers.Mechanism.release_misfit>`), computed when read:
        post-processing of the fitted model (a fixed public seed: the same each
        time)."""
        check_is_fitted(self)
        return self.mechanism_.release_misfit(self.network_, self.design_.generator.noise_dim)

    @property
    def output_issues_(self):
        """The columns of the output far from what the releases say of them
        (:func:`~skdpgen.synthesizers._output_checks.output_issues`), computed when
        read: post-processing of the releases and of a sample drawn with a public
        seed (the same each time)."""
        check_is_fitted(self)
        from ._output_checks import output_issues

        return output_issues(self)

    def _release_issues(self, mechanism):
        """The releases' own weak spots (public noise levels), warned of once; a
        column whose bounds the user declared (public) is marked: the remedy is to
        narrow them."""
        spread = mechanism.issues()
        declared = {key for key, spec in (self.schema or {}).items()
                    if isinstance(spec, dict) and spec.get("bounds") is not None}
        for issue in spread:
            if issue["column"] in declared:
                issue["declared"] = True
        if spread:
            warnings.warn(SchemaEstimateWarning(describe_issues(spread, "python"),
                                                issues=spread),
                          stacklevel=outside_stacklevel())
        return spread

    def _schema_plan(self, table, image_shape):
        """What the schema leaves out, from public facts (names, the schema)."""
        plan = SchemaPlan.from_table(table, schema=self._declared_schema(table.columns,
                                                                         image_shape),
                                     bounds=self.bounds, classes=self.classes)
        if self.infer_schema == "error" and plan.missing_entries():
            raise ValueError(
                f"The schema leaves out {plan.missing_entries()}; declare them, or pass "
                "infer_schema='private' (estimated with a share of the budget) or 'data'."
            )
        return plan

    def _declared_schema(self, columns, image_shape):
        """The user's schema; with ``image_shape``, every column a pixel: numeric, never
        missing and never zero-inflated where the schema does not say otherwise
        (declared by ``image_shape``, public: a pixel the estimate flagged "missing"
        or "zero" would add a block that the conv generator and the patch kernel
        cannot place). A pixel's bounds (and integer flag) are the schema's, or
        estimated."""
        if image_shape is None:
            return self.schema
        schema = dict(self.schema or {})
        for c in columns:
            spec = dict(schema.get(c) or {})
            spec.setdefault("type", "numeric")
            if kind_of(spec).is_numeric:
                spec.setdefault("missing", False)
                spec.setdefault("zero", False)
            schema[c] = spec
        return schema

    def _plan_budget(self, table, plan, design, budget, labeled):
        """``(accountant, estimate)``: one budget for every release of the fit (the
        schema estimate's, when ``estimate``, the labels', the mechanism's), planned
        before anything is read."""
        estimate = bool(budget.private and self.infer_schema == "private"
                        and plan.missing_entries())
        shares = dict(design.mechanism.budget_shares(self.epochs))
        marginal_share = design.calibration_share
        if marginal_share:
            shares = _scaled(shares, 1.0 - marginal_share)
            shares[MarginalCalibration.name] = marginal_share
        if labeled:
            shares = _scaled(shares, 1.0 - self.label_share)
            shares["label proportions"] = self.label_share
        selections = ()
        if estimate:
            schema_share, class_fraction = self.schema_share, None  # the policy's
            if schema_share == "auto":
                schema_share, class_fraction = plan.auto_share(table.n_rows, budget.epsilon,
                                                               budget.delta)
            shares = _scaled(shares, 1.0 - schema_share)
            shares.update(plan.shares(schema_share, class_fraction))
            selections = plan.selections()
        return budget.plan(shares, selections=selections), estimate

    def _check_size(self, table, plan, budget, accountant):
        """A table below the size rule of its schema estimate
        (:meth:`SchemaPlan.rows_needed`): with ``on_guess="raise"`` refused before
        any release, naming the rows that would do at this ε and the ε at these
        rows; with ``on_guess="fit"`` a :class:`SchemaEstimateWarning` (problem
        ``"size"``) naming every estimated column, since any of them may be weak
        beyond the issues the noise lets the estimate name. Public: the row
        count, the plan, ε and δ."""
        n = table.n_rows
        needed = plan.rows_needed(budget.epsilon, budget.delta, self.schema_share)
        if n >= needed or n < 2:  # fewer than 2 rows: the usual error, later
            return
        columns = len(plan.estimated)
        epsilon = plan.epsilon_needed(n, budget.delta, self.schema_share)
        if self.on_guess != "raise":
            names = ", ".join(map(repr, plan.estimated))
            warnings.warn(SchemaEstimateWarning(
                f"{n:,} rows are below the size the private schema estimate needs for "
                f"{columns} column{'s' * (columns != 1)} at epsilon = {budget.epsilon:g} "
                f"(about {needed:,} rows, or epsilon >= {epsilon:.2g} at these rows): the "
                "kind, bounds, categories and missing values of every estimated column may "
                f"be off beyond the weak spots named: {names}. Declare them in the schema "
                "for sane output.", problem="size"), stacklevel=outside_stacklevel())
            return
        raise SchemaSizeError(
            f"{n:,} rows are too few to estimate the schema of {columns} column"
            f"{'s' * (columns != 1)} privately at epsilon = {budget.epsilon:g}: the estimate "
            f"needs about {needed:,} rows at this epsilon, or epsilon >= {epsilon:.2g} at "
            "these rows (a numeric column's histogram within n/40 rows of noise at the "
            "largest share the estimate takes); below that its ranges and categories are "
            "guesses. Nothing was read or released. Declare the columns in the schema, "
            "or pass on_guess='fit' to fit anyway (every weak column is then named).",
            n_rows=n, rows_needed=needed, epsilon_needed=epsilon, report=accountant.report())

    def _complete_schema(self, table, plan, accountant, estimate):
        """``(schema, classes)``, complete: declared, estimated privately, or (when
        asked) read from the data as a recorded leak."""
        if estimate:
            schema, classes = plan.estimate(table, accountant)
            if self.on_guess == "raise" and any(map(is_guess, plan.issues_)):
                raise SchemaEstimateError(
                    "The private schema estimate had to guess "
                    f"{sum(map(is_guess, plan.issues_))} entries; nothing else was released "
                    "(on_guess='raise'). Declare them in the schema, or raise epsilon or "
                    "schema_share.", schema=schema, classes=classes, issues=plan.issues_,
                    report=accountant.report())
            return schema, classes
        if plan.missing_entries():  # infer_schema="data", or a non-private fit
            return plan.read_from_data(table)
        return self.schema, self.classes

    def _encode(self, table, plan, design, schema, classes, accountant, estimate, *,
                private, labeled):
        """``(encoder, rows)``: the public encoder and the rows it encodes, a chunk at a
        time where they are summed; a class list that cannot train is refused here,
        before any embedding is released."""
        # labels outside the class list, and missing labels, are rows of a public
        # class: the estimated list's other label, else the first class
        unlisted, missing = 0, None
        if plan.class_other_ is not None:
            unlisted = encode_labels([plan.class_other_], classes)[0]
        if plan.class_missing_ is not None:  # missing labels: a class of their own
            missing = encode_labels([plan.class_missing_], classes)[0]
        encoder = design.encoder(schema).fit(table)
        rows = make_rows(self, table, reset=True, encoder=encoder, classes=classes,
                         private=private, min_rows=2, unlisted=unlisted, missing=missing)
        k = rows.n_classes
        if labeled and k < 2 and estimate and plan.estimate_classes:
            message = ("The private class list kept a single class: at this budget the noisy "
                       "label counts do not clear the partition-selection threshold. Pass "
                       "classes=[...] (the public list of labels), or a larger epsilon or "
                       "schema_share.")
            # the class list is what refuses: named with the columns' weak spots
            issues = [i for i in plan.issues_ if i["problem"] != "classes"]
            issues.append({"column": None, "problem": "classes", "share": None,
                           "detail": message})
            raise SchemaEstimateError(message, schema=schema, classes=classes, issues=issues,
                                      report=accountant.report())
        if labeled and k < 2:
            only = rows.classes[0] if k else None
            only = getattr(only, "item", lambda: only)()  # a Python scalar in the message
            raise ValueError(
                f"y has a single class ({only!r}); fit without y to synthesize "
                "unlabeled data."
            )
        if not design.generator.per_class and design.generator.batch_size < max(2, k):
            raise ValueError(
                f"{self._batch_name}={design.generator.batch_size} is too small: every "
                "generated batch needs at least 2 rows and one row per class."
            )
        return encoder, rows

    # -- sampling ----------------------------------------------------------
    def sample(self, n_samples, *, y=None, random_state=None):
        """Draw synthetic rows (and their labels).

        Parameters
        ----------
        n_samples : int
            Number of rows, at least 1.
        y : label or array-like of shape (n_samples,), default=None
            Ask for rows of these classes (only when fitted with labels).
            By default labels are drawn from the private class proportions.
        random_state : int, RandomState instance or None, default=None
            None gives fresh samples on each call.

        Returns
        -------
        X : DataFrame or ndarray of shape (n_samples, n_features)
            Same type and columns as the training data; the dtypes are the
            schema's (:func:`skdpgen.schema.output_dtype`), never those of
            the private columns.
        y : ndarray of shape (n_samples,) or None
            The labels of the rows; None when fitted without labels.
        """
        check_is_fitted(self)
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}.")
        rng = check_generator(random_state)
        labels = None
        if self.n_classes_:
            if y is None:
                labels = rng.choice(self.n_classes_, size=n_samples, p=self.class_weights_)
            else:
                y_arr = np.asarray(y)
                y_arr = np.full(n_samples, y_arr.item()) if y_arr.ndim == 0 else y_arr
                if y_arr.shape != (n_samples,):
                    raise ValueError(f"y must be a label or have {n_samples} entries.")
                labels = encode_labels(y_arr, self.classes_)
        elif y is not None:
            raise ValueError("y can only be given to a synthesizer fitted with labels.")
        if self.calibration_ is None:
            numeric, codes = self._generate(n_samples, labels, rng)
        else:
            numeric, codes = self.calibration_.sample(
                lambda m, c: self._generate(m, c, rng), labels, n_samples, rng)
        # post-processing of the releases: where a binned column's rows stop
        fills = self.mechanism_.cell_fills(self.encoder_)
        X = self.encoder_.decode(numeric, codes, random_state=rng, fills=fills)
        if not self.n_classes_:
            return X, None
        y = self.classes_[labels]
        missing = getattr(self, "missing_label_", None)
        if missing is not None:  # the class of missing labels comes back missing
            y = y.astype(object)
            y[labels == encode_labels([missing], self.classes_)[0]] = None
        return X, y

    def _generate(self, n_samples, labels, rng):
        """``n_samples`` generated rows as (numeric block, block codes).

        ``labels``: an array of classes, one class for all rows, or None.
        Categorical entries are drawn from the network's probabilities. The
        network's output is computed for about ``_GENERATED_VALUES`` values at
        a time and only the codes are kept, so memory grows with the rows'
        codes, not their probabilities; the draws are those of one pass. The
        network runs on one CPU thread (many times faster when other processes
        compete for the cores).
        """
        tgen = torch_generator(rng)
        enc = self.encoder_
        offsets = enc.n_numeric_ + np.concatenate([[0], np.cumsum(enc.category_sizes_)])
        z = torch.randn(n_samples, self.design_.generator.noise_dim, generator=tgen)
        lab = None
        if labels is not None:
            lab = torch.as_tensor(np.broadcast_to(labels, (n_samples,)).copy())
        u = [rng.random(n_samples) for _ in enc.category_sizes_]  # in the order of one pass
        numeric = np.empty((n_samples, enc.n_numeric_))
        codes = [np.empty(n_samples, dtype=np.int64) for _ in u]
        step = max(1, _GENERATED_VALUES // max(1, int(offsets[-1])))
        for rows in (slice(i, i + step) for i in range(0, n_samples, step)):
            with torch.no_grad(), cpu_threads(1):  # a small network: see cpu_threads
                Zg = self.network_(z[rows], None if lab is None else lab[rows]).double().numpy()
            numeric[rows] = Zg[:, :enc.n_numeric_]
            for k, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:])):
                below = np.cumsum(Zg[:, start:stop], axis=1) < u[k][rows, None]
                codes[k][rows] = np.minimum(below.sum(1), stop - start - 1)
        return numeric, codes

    # -- scoring -----------------------------------------------------------
    def _score_encoding(self, X, y):
        Z = self.encoder_.transform(X)
        if self.n_classes_:
            if y is None:
                raise ValueError("This synthesizer was fitted with labels; score needs y.")
            # labels outside the class list (or missing) count as the first class, as in fit
            onehot = np.eye(self.n_classes_)[encode_labels(y, self.classes_, unlisted=0)]
            Z = np.hstack([Z, onehot])
        return Z

    def score(self, X, y=None):
        """Negative squared MMD between ``X`` and a fresh synthetic sample.

        The kernel is fixed (Gaussian, length scale 1, on the publicly scaled
        encoding with the label one-hot appended) and independent of the
        estimator's hyperparameters, so scores compare across a grid. Higher
        is better. A data-holder diagnostic: it reads ``X`` without noise
        (inside a :class:`~skdpgen.privacy.PrivacyBudget` it is recorded as
        a leak); a private search scores with
        :func:`~skdpgen.evaluation.private_neg_mmd2_scorer`.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
            Required when fitted with labels.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        validate_data(self, X, reset=False, skip_check_array=True)
        score_without_noise(f"{type(self).__name__}.score")
        Z = self._score_encoding(X, y)
        Zs = self._score_encoding(*self.sample(Z.shape[0], random_state=self.random_state))
        return -mmd2(Z, Zs, features=RandomFourierFeatures(**_SCORE_FEATURES))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        tags.input_tags.allow_nan = True  # missing values (schema "missing")
        # any value of any form is read (text, dates, objects: canonical forms)
        tags.input_tags.string = True
        return tags


def fitted_part(name, read=None):
    """A fitted attribute read from the fitted mechanism (``mechanism_``) when read.

    ``mechanism_.<name>``, or ``read(mechanism_)``; a preset declares its
    fitted attributes so instead of copying them out of its mechanism.
    Raises :class:`~sklearn.exceptions.NotFittedError` before ``fit``.
    """
    def get(self):
        check_is_fitted(self)
        return getattr(self.mechanism_, name) if read is None else read(self.mechanism_)

    return property(get, doc=f"The fitted mechanism's ``{name}``.")


def _same(value, default):
    """Whether a parameter's ``value`` is its ``default`` (a sequence as a list)."""
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    try:
        return bool(value is default or value == default)
    except (TypeError, ValueError):  # an array compared elementwise
        return False


def _scaled(shares, factor):
    """Budget shares (``share`` or ``(share, count)``) multiplied by ``factor``."""
    return {name: (v[0] * factor, v[1]) if isinstance(v, tuple) else v * factor
            for name, v in shares.items()}


def _release_proportions(rows, accountant):
    """Private class proportions.

    Notes
    -----
    ``counts / n`` changes in two entries by ``1/n`` when one record's label
    changes (replace-one), so its L2 sensitivity is ``sqrt(2)/n``. Negative
    noisy entries are raised to a small floor (the synthesis policy's
    ``label_floor``) and the vector is renormalized (post-processing).
    """
    counts = rows.class_counts()
    n = int(counts.sum())
    noisy = accountant.add_noise("label proportions", counts / n, sensitivity=np.sqrt(2) / n)
    noisy = np.maximum(noisy, SYNTHESIS.label_floor)
    return noisy / noisy.sum()

