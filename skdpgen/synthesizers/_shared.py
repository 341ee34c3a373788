"""The hyperparameters every synthesizer shares: defaults, constraints, documentation.

:class:`~skdpgen.KMESynthesizer` and its presets
(:class:`~skdpgen.DPHPSynthesizer`, :class:`~skdpgen.DPMERFSynthesizer`)
take the same budget, schema, training and device hyperparameters; their
defaults, their validation and their numpydoc entries are written once here
and filled into each synthesizer (:func:`synthesizer_doc`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["SHARED_CONSTRAINTS", "SHARED_DEFAULTS", "shared_constraints", "shared_defaults",
           "synthesizer_doc"]

# The hyperparameters every synthesizer has, with their defaults, and their
# documentation (inserted in each synthesizer's docstring).
SHARED_DEFAULTS = dict(
    epsilon=1.0,
    delta=1e-5,
    schema=None,
    bounds=None,
    classes=None,
    infer_schema="private",
    schema_share="auto",
    on_guess="fit",
    label_share=0.05,
    marginal_share="auto",
    epochs=10,
    steps_per_epoch=100,
    batch_size=500,
    learning_rate=1e-2,
    network="mlp",
    network_widths=(128, 128),
    image_shape=None,
    noise_dim=16,
    random_state=None,
    device="auto",
    verbose=0,
)

SHARED_CONSTRAINTS = {
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "delta": [Interval(Real, 0, 1, closed="neither")],
    "schema": [dict, None],
    "bounds": [tuple, list, None],
    "classes": ["array-like", None],
    "infer_schema": [StrOptions({"private", "data", "error"})],
    "on_guess": [StrOptions({"fit", "raise"})],
    "schema_share": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="neither")],
    "label_share": [Interval(Real, 0, 1, closed="neither")],
    "marginal_share": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
    "epochs": [Interval(Integral, 1, None, closed="left")],
    "steps_per_epoch": [Interval(Integral, 1, None, closed="left")],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "learning_rate": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
    "network": [StrOptions({"auto", "mlp", "conv", "mixture"})],
    "network_widths": ["array-like"],
    "image_shape": [tuple, None],
    "noise_dim": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "device": [StrOptions({"auto", "cpu", "cuda"})],
    "verbose": ["verbose"],
}

SHARED_PARAMETERS_DOC = """\
    epsilon : float, default=1.0
        Total privacy budget ε of a fit.
    delta : float, default=1e-5
        Total δ of a fit.
    schema : dict, default=None
        Public description of the columns (bounds, categories, integer and
        missing flags, dates; see :mod:`skdpgen.schema`). What it leaves out
        is handled as ``infer_schema`` says.
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.
    classes : array-like, default=None
        Public list of labels; otherwise handled as ``infer_schema`` says.
    infer_schema : {{"private", "data", "error"}}, default="private"
        What the schema (and ``classes``) leave out: ``"private"`` estimates
        it from the rows with ``schema_share`` of the budget
        (:mod:`skdpgen.private_schema`), listed release by release in
        ``privacy_report_``; ``"data"`` reads it from the rows exactly, each
        value recorded in ``privacy_report_.leaks`` with a
        :class:`~skdpgen.privacy.PrivacyLeakWarning`; ``"error"`` raises,
        naming the columns. Nothing is spent when the schema is complete.
    schema_share : float or "auto", default="auto"
        Share of the budget spent on the schema estimation (with
        ``infer_schema="private"`` and an incomplete schema). ``"auto"``:
        the least share that makes the estimate work at this size, from the
        public row count, the columns and classes estimated and the budget
        (:meth:`~skdpgen.private_schema.SchemaPlan.auto_share`): 0.1 on
        tables of tens of thousands of rows, up to 0.5 on a thousand rows
        or fewer.
    on_guess : {{"fit", "raise"}}, default="fit"
        What a private schema estimate that had to guess (an entry the
        noisy releases could not settle: see ``schema_issues_``) does:
        ``"fit"`` goes on and lists the guesses in ``schema_issues_``;
        ``"raise"`` raises :class:`~skdpgen.schema.SchemaEstimateError`
        right after the estimate, before anything else is released, so that
        only the schema's share of the budget is spent (its ``report`` says
        what was). Whether the estimate guessed is a function of its noisy
        releases only. A table below the size rule of its estimate
        (:meth:`SchemaPlan.rows_needed
        <skdpgen.private_schema.SchemaPlan.rows_needed>`: public, from its
        rows, columns, ε and δ) is refused by ``"raise"`` before anything is
        released (:class:`~skdpgen.schema.SchemaSizeError`); ``"fit"`` goes on
        with a :class:`~skdpgen.schema.SchemaEstimateWarning` naming every
        estimated column. The command line uses ``"raise"`` unless
        ``--allow-guesses``.
    label_share : float, default=0.05
        Share of the budget spent on the class proportions (with labels).
    marginal_share : float or "auto", default="auto"
        Share of the budget spent on every column's one-way (class-
        conditional) histogram on a coarse public grid, towards which the
        samples are calibrated (:class:`~skdpgen.synthesizers.MarginalCalibration`:
        generated rows reweighted as far as the noise warrants, the joint
        structure the generator's). ``"auto"``: 0.2, or 0 with
        ``image_shape`` (hundreds of pixel histograms share the noise); 0
        turns calibration off.
    epochs : int, default=10
        Training epochs; a mechanism may make a release at each.
    steps_per_epoch : int, default=100
        Generator updates per epoch.
    batch_size : int, default=500
        Generated rows per update (class-balanced).
    learning_rate : float or "auto", default={learning_rate}
        Adam learning rate of the generator. ``"auto"``: {auto_learning_rate}
        for an MLP or convolutional network, 0.1 for a mixture.
    network : {{"auto", "mlp", "conv", "mixture"}}, default={network}
        The generator network: an MLP with one head per column, a small
        convolutional network for single-channel images (all columns numeric
        pixels; needs ``image_shape``), or a mixture of ``batch_size``
        product distributions over one-hot columns
        (:class:`~skdpgen.synthesizers.MixtureGenerator`: every
        column one-hot, numeric ones as bins), whose marginals are exact
        functions of its parameters. ``"auto"``: {auto_network}.
    network_widths : sequence of int, default=(128, 128)
        Hidden layer widths of the MLP.
    image_shape : tuple of (int, int), default=None
        Height and width of the images for ``network="conv"`` (rows are
        flattened images in C order). It declares every column a pixel:
        numeric, never missing and never zero-inflated (a missing or
        unreadable pixel is then written as a value), except where
        ``schema`` says otherwise.
    noise_dim : int, default=16
        Width of the generator's latent input.
    random_state : int, RandomState instance or None, default=None
        Draws the public random choices ({random_choices}the network's
        initialization, its latent inputs). Never the privacy noise, which
        comes from fresh operating-system entropy at every fit (see
        :ref:`threat_model`).
    device : {{"auto", "cpu", "cuda"}}, default="auto"
        Where the generator trains (and the in-memory rows' features are
        computed); the fitted model always samples on CPU.
    verbose : int, default=0
        Show a progress bar when > 0."""

SHARED_ATTRIBUTES_DOC = """\
    epsilon_, delta_ : float
        The budget this fit used.
    schema_ : dict
        The complete public schema of the fit: the declared entries and the
        estimated ones (reuse it in later fits to spend nothing on it).
    schema_issues_ : list of dict
        The weak spots of the private schema estimate and of the releases
        (empty when nothing is weak): one dict per column and problem (or
        the class list) with ``column``, ``problem``, ``share`` and
        ``detail``. Problems: ``"guess"`` (bounds no range stood out for),
        ``"outside"`` (bounds that clip rows), ``"uncertain"`` (bounds that
        may clip a quarter of the rows or more under the noise),
        ``"missing"`` (missing values the noise may hide),
        ``"categories"`` (rare values written as "other"), ``"folded"``
        (rare values written as a kept value, named in the issue's
        ``value``: too few rows, against the noise, for "other"), ``"classes"``
        (labels folded into an other class), and ``"spread"`` (a numeric
        column whose one-way release's noise may put a tenth of its values
        where the data has none; with a declared schema too, the issue's
        ``declared`` then True where the bounds are the user's). The fit warns with their summary
        (:func:`skdpgen.schema.describe_issues`). Post-processing of the
        releases and of public quantities: no value.
    missing_label_ : object
        The class of ``classes_`` that stands for missing labels (the private
        estimate of the class list kept their noisy count), returned by
        ``sample`` as None; None when there is none.
    privacy_report_ : PrivacyReport
        Every release (the mechanism's, and the label proportions) and every
        leak.
    encoder_ : TableEncoder
        The public encoding.
    classes_ : ndarray or None
    n_classes_ : int
    class_weights_ : ndarray or None
        Private (noisy) class proportions.
    calibration_ : MarginalCalibration or None
        The released one-way histograms and the tilt fitted to them (None
        when no calibration is released: ``marginal_share=0``, images, and
        :class:`~skdpgen.MarginalSynthesizer`, whose mechanism releases the
        one-way marginals itself).
    design_ : Design
        The fit's public plan: the mechanism, its encoding options and the
        generator (:class:`~skdpgen.synthesizers.Design`).
    mechanism_ : Mechanism
        The fitted mechanism: its feature maps, public choices and released
        targets (``targets_``).
    network_ : torch.nn.Module
        The trained generator network, on CPU.
    loss_history_ : ndarray of shape (epochs * steps_per_epoch,)
    release_misfit_ : dict
        How far the fitted generator is from each kernel release, in units
        of the release's noise (:meth:`Mechanism.release_misfit
        <skdpgen.synthesizers.Mechanism.release_misfit>`: about 1 at the true
        distribution, far above when the generator does not reproduce what
        was released); empty for a mixture, whose marginals are tested one
        by one instead (``marginal_misfit_``).
    output_issues_ : list of dict
        The columns of the output that lie far from what the releases say
        of them, computed when read (a sample drawn with a public seed,
        compared with the released one-way distributions and their noise:
        :func:`~skdpgen.synthesizers._output_checks.output_issues`): one
        dict per column named, with ``column``, ``measure`` (``"outside"``,
        ``"ks"``, ``"tv"``, or ``"other"``: a total variation that counts
        the rows written as a created ``"other"``), ``share`` (its value)
        and ``detail``; empty
        when every column checked came back within its release's noise.
    n_features_in_ : int
    feature_names_in_ : ndarray of str"""


def shared_defaults(names):
    """The defaults of the shared hyperparameters ``names``, in the table's order."""
    return {name: value for name, value in SHARED_DEFAULTS.items() if name in names}


def shared_constraints(names):
    """The constraints of the shared hyperparameters ``names``."""
    return {name: SHARED_CONSTRAINTS[name] for name in names}


def _entries(block, names):
    """The numpydoc entries of ``block`` whose names are all in ``names`` (None: all)."""
    if names is None:
        return block
    kept, keep = [], False
    for line in block.split("\n"):
        if not line.startswith("     "):  # an entry's first line: "    name : type"
            keep = all(n.strip() in names for n in line.split(" : ")[0].split(","))
        if keep:
            kept.append(line)
    return "\n".join(kept)


def synthesizer_doc(doc, *, learning_rate='"auto"', random_choices="", network='"mlp"',
                    auto_network='"mlp"', auto_learning_rate="1e-2", names=None):
    """Fill a synthesizer's docstring with the shared parameters and attributes
    (None under ``python -OO``, which strips docstrings); ``names``: the shared
    hyperparameters the synthesizer has (None: all)."""
    if doc is None:
        return None
    params = _entries(SHARED_PARAMETERS_DOC, names).format(
        learning_rate=learning_rate, random_choices=random_choices, network=network,
        auto_network=auto_network, auto_learning_rate=auto_learning_rate)
    return doc.replace("    {shared_parameters}", params).replace(
        "    {shared_attributes}", SHARED_ATTRIBUTES_DOC)
