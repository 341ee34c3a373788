"""Shared machinery of the kernel-mean-embedding synthesizers."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from .._dask import DaskRows, is_dask_collection, meta, unique_labels
from .._device import cpu_threads, resolve_device
from .._state import fit_transaction
from .._random import check_generator, torch_generator
from ..embedding import encode_labels, feature_sums, mmd2
from ..features import RandomFourierFeatures
from ..privacy import GaussianAccountant, check_epsilon_delta, leak_ledger, record_leak
from ..schema import TableEncoder
from ._generator import build_generator


# The fixed kernel of ``score``: a Gaussian kernel of length scale 1 on the
# publicly scaled encoding (numeric columns on [-1, 1], one-hot blocks, and a
# one-hot label block), through 2,000 random features with a fixed seed. It
# does not depend on the estimator's hyperparameters, so scores are
# comparable across a grid.
_SCORE_FEATURES = dict(n_components=2000, length_scale=1.0, random_state=0)


def _check_n_rows(n):
    if n < 2:
        raise ValueError(f"Need at least 2 rows to fit, got {n}.")
    return n


class BaseKMESynthesizer(BaseEstimator):
    """Base class: encode, privatize embeddings once, train a generator, sample.

    Subclasses define ``_budget_shares(n_steps)`` and
    ``_train(Z, codes, accountant, rng, torch_gen, device)``.
    """

    _parameter_constraints: dict = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "schema": [dict, None],
        "bounds": [tuple, list, None],
        "classes": ["array-like", None],
        "label_share": [Interval(Real, 0, 1, closed="neither")],
        "epochs": [Interval(Integral, 1, None, closed="left")],
        "steps_per_epoch": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "generator": [StrOptions({"mlp", "conv"})],
        "generator_widths": ["array-like"],
        "image_shape": [tuple, None],
        "noise_dim": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "device": [StrOptions({"auto", "cpu", "cuda"})],
        "verbose": ["verbose"],
    }

    # -- fit ---------------------------------------------------------------
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
        self._validate_params()
        with fit_transaction(self), leak_ledger() as leaks:  # nothing half-fitted on failure
            return self._fit(X, y, epsilon, delta, leaks)

    def _fit(self, X, y, epsilon, delta, leaks):
        epsilon, delta = check_epsilon_delta(
            self.epsilon if epsilon is None else epsilon,
            self.delta if delta is None else delta,
        )
        encoder = TableEncoder(self.schema, self.bounds).fit(X)
        Z = encoder.transform_rows(X)  # DaskRows for Dask input: encoded where it lives
        if not isinstance(Z, DaskRows):  # Dask rows are counted in the first release's pass
            _check_n_rows(Z.shape[0])
        classes, codes = self._labels(y, Z)
        if self.batch_size < max(2, 0 if classes is None else classes.size):
            raise ValueError(
                f"batch_size={self.batch_size} is too small: every generated batch needs "
                "at least 2 rows and one row per class."
            )
        device = resolve_device(self.device)
        rng = check_generator(self.random_state)
        tgen = torch_generator(rng, "cpu")

        shares = {name: share for name, share in self._budget_shares().items()}
        if classes is not None:
            shares = {k: (v[0] * (1 - self.label_share), v[1]) if isinstance(v, tuple)
                      else v * (1 - self.label_share) for k, v in shares.items()}
            shares["label proportions"] = self.label_share
        accountant = GaussianAccountant(epsilon, delta, shares)

        self.encoder_ = encoder
        self.classes_ = classes
        self.n_classes_ = 0 if classes is None else classes.size
        self.class_weights_ = None
        if classes is not None:
            self.class_weights_ = self._release_proportions(codes, accountant)
        net = build_generator(
            self.generator, self.noise_dim, self.n_classes_, tuple(self.generator_widths),
            encoder.n_numeric_, encoder.category_sizes_, self.image_shape, tgen,
        ).to(device)
        # training noise is drawn on the training device: no host round trips
        with cpu_threads(1 if device == "cpu" else None):
            self.loss_history_ = self._train(
                net, Z, codes, accountant, rng, torch_generator(rng, device), device
            )
        self.generator_ = net.cpu().eval()
        self.epsilon_, self.delta_ = epsilon, delta
        self.privacy_report_ = accountant.report(leaks)
        _check_n_features(self, meta(X), reset=True)
        _check_feature_names(self, meta(X), reset=True)
        return self

    def _labels(self, y, Z):
        if y is None:
            return None, None
        dask_y = is_dask_collection(y)
        if not dask_y:
            y = np.asarray(y)
            if not isinstance(Z, DaskRows) and (y.ndim != 1 or y.shape[0] != Z.shape[0]):
                raise ValueError(f"y must be 1-D with {Z.shape[0]} entries, got shape {y.shape}.")
            if pd.isna(y).any():
                raise ValueError("y contains missing values.")
            check_classification_targets(y)
        if self.classes is not None:
            classes = np.asarray(self.classes)
        else:
            # a Categorical y's categories are no declaration: pandas collects
            # them from the values, so they leak like the labels themselves
            classes = unique_labels(y) if dask_y else np.unique(y)
            record_leak(
                "classes",
                "The class list was taken from the private labels y and is released "
                "with the model without privacy. Pass classes=[...] (the public list "
                "of possible labels) to avoid this.",
                stacklevel=4,
            )
        if classes.ndim != 1 or np.unique(classes).size != classes.size:
            raise ValueError("classes must be a 1-D list of distinct labels.")
        if classes.size == 0:
            raise ValueError("classes must list at least two labels, got none.")
        if classes.size < 2:
            raise ValueError(
                f"y has a single class ({classes[0]!r}); fit without y to synthesize "
                "unlabeled data."
            )
        if isinstance(Z, DaskRows):  # codes per block, computed where the rows live
            return classes, Z.codes(y, lambda block: encode_labels(block, classes))
        return classes, encode_labels(y, classes)

    def _release_proportions(self, codes, accountant):
        """Private class proportions.

        Notes
        -----
        ``counts / n`` changes in two entries by ``1/n`` when one record's
        label changes (replace-one), so its L2 sensitivity is ``sqrt(2)/n``.
        Negative noisy entries are set to a small floor and the vector is
        renormalized (post-processing).
        """
        if isinstance(codes, list):  # per-block codes of Dask rows
            counts = DaskRows.class_counts(codes, self.n_classes_)
        else:
            counts = np.bincount(codes, minlength=self.n_classes_)
        n = int(counts.sum())
        props = counts / n
        noisy = accountant.add_noise("label proportions", props, sensitivity=np.sqrt(2) / n)
        noisy = np.maximum(noisy, 1e-3)
        return noisy / noisy.sum()

    def _private_targets(self, name, features, Z, codes, accountant):
        """Noisy class-conditional mean embedding, each class divided by its weight.

        The (features × classes) matrix of means ``(1/n) Σ_{i: y_i = c} h(z_i)``
        has replace-one sensitivity ``2/n`` when ``‖h‖ ≤ 1`` (see
        :class:`~skdpgen.KernelMeanEmbedding`); the division by the private
        class weight afterwards is post-processing. Returns a float32 tensor of
        shape (n_classes or 1, n_features_out).
        """
        k = max(self.n_classes_, 1)
        sums = feature_sums(features, Z, codes, k)
        n = _check_n_rows(Z.shape[0])  # after the sum: Dask rows are counted in its pass
        noisy = accountant.add_noise(name, sums / n, sensitivity=2.0 / n)
        if self.class_weights_ is not None:
            noisy = noisy / self.class_weights_[None, :]
        return torch.as_tensor(noisy.T, dtype=torch.float32)

    @staticmethod
    def _release_device(Z, device):
        """Where the private rows' features are computed: the training device,
        except for Dask rows, whose features are computed on the workers."""
        return "cpu" if isinstance(Z, DaskRows) else device

    # -- generation --------------------------------------------------------
    def _generate(self, net, n, labels, tgen, device):
        z = torch.randn(n, self.noise_dim, generator=tgen, device=device)
        lab = None if labels is None else torch.as_tensor(labels, device=device)
        return net(z, lab)

    def _balanced_labels(self, batch_size, device):
        if not self.n_classes_:
            return None
        return torch.arange(batch_size, device=device) % self.n_classes_

    @staticmethod
    def _class_means(H, labels, k):
        """Per-class mean rows of H (k × F); labels are balanced by construction."""
        if labels is None:
            return H.mean(0, keepdim=True)
        onehot = torch.nn.functional.one_hot(labels, k).to(H)
        return (onehot.T @ H) / onehot.sum(0)[:, None]

    def _iterate(self, total):
        steps = range(total)
        if self.verbose:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc=type(self).__name__, unit="step")
        return steps

    def _optimize(self, net, loss_fn, n_steps, tgen, device, on_step=None):
        opt = torch.optim.Adam(net.parameters(), lr=self.learning_rate)
        history = torch.empty(n_steps, device=device)
        net.train()
        for step in self._iterate(n_steps):
            if on_step is not None:
                on_step(step)
            labels = self._balanced_labels(self.batch_size, device)
            Zg = self._generate(net, self.batch_size, labels, tgen, device)
            loss = loss_fn(Zg, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            history[step] = loss.detach()
        return history.cpu().double().numpy()

    # -- sampling ----------------------------------------------------------
    def sample(self, n_samples, *, y=None, random_state=None):
        """Draw synthetic rows.

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
        y : ndarray of shape (n_samples,)
            Only when fitted with labels: ``(X, y)`` is returned then;
            otherwise just ``X``.
        """
        check_is_fitted(self)
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}.")
        rng = check_generator(random_state)
        tgen = torch_generator(rng)
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
        with torch.no_grad():
            Zg = self._generate(self.generator_, n_samples, labels, tgen, "cpu").double().numpy()
        enc = self.encoder_
        p = enc.n_numeric_
        codes = []
        for start, stop in zip(self._offsets()[:-1], self._offsets()[1:]):
            probs = Zg[:, start:stop]
            u = rng.random((n_samples, 1))
            codes.append(np.minimum((np.cumsum(probs, axis=1) < u).sum(1), stop - start - 1))
        X = enc.decode(Zg[:, :p], codes)
        if self.n_classes_:
            return X, self.classes_[labels]
        return X

    def _offsets(self):
        enc = self.encoder_
        return np.concatenate([[enc.n_numeric_], enc.n_numeric_ + np.cumsum(enc.category_sizes_)]).astype(int)

    # -- scoring -----------------------------------------------------------
    def _score_encoding(self, X, y):
        Z = self.encoder_.transform(X)
        if self.n_classes_:
            if y is None:
                raise ValueError("This synthesizer was fitted with labels; score needs y.")
            onehot = np.eye(self.n_classes_)[encode_labels(np.asarray(y), self.classes_)]
            Z = np.hstack([Z, onehot])
        return Z

    def score(self, X, y=None):
        """Negative squared MMD between ``X`` and a fresh synthetic sample.

        The kernel is fixed (Gaussian, length scale 1, on the publicly scaled
        encoding with the label one-hot appended) and independent of the
        estimator's hyperparameters, so scores compare across a grid. Higher
        is better. Scoring private data is itself a use of that data.

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
        _check_n_features(self, X, reset=False)
        _check_feature_names(self, X, reset=False)
        Z = self._score_encoding(X, y)
        out = self.sample(Z.shape[0], random_state=self.random_state)
        Xs, ys = out if self.n_classes_ else (out, None)
        Zs = self._score_encoding(Xs, ys)
        return -mmd2(Z, Zs, features=RandomFourierFeatures(**_SCORE_FEATURES))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        tags.input_tags.allow_nan = False
        tags.non_deterministic = False
        return tags
