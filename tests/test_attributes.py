"""Every estimator's documented attributes are those of a fitted object.

The numpydoc "Attributes" section of each public estimator is read from its
docstring and compared, both ways, with the public fitted attributes
(``name_``) of an object fitted in its default configuration: an attribute
documented but not set, or set but not documented, fails.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import (DPHPSynthesizer, DPKMEReleaser, DPMERFSynthesizer, HermiteFeatures,
                     KernelMeanEmbedding, KMESynthesizer, MarginalSynthesizer,
                     RandomFourierFeatures)
from skdpgen.synthesizers import Synthesizer

FAST = dict(epochs=1, steps_per_epoch=3, random_state=0, device="cpu")


def documented_attributes(cls, conditional=False):
    """The names in the class docstring's Attributes section (``conditional``: only
    those whose entry says it is set in some fits only)."""
    doc = cls.__doc__
    if doc is None:  # python -OO
        pytest.skip("docstrings are stripped")
    section = re.search(r"\n    Attributes\n    -+\n(.*?)(\n    [A-Z][A-Za-z ]+\n    -+\n|\Z)",
                        doc, re.S).group(1)
    entries = re.split(r"\n(?=    \S)", "\n" + section)
    names = set()
    for entry in filter(str.strip, entries):
        head, _, text = entry.partition("\n")
        if not conditional or "only" in text:
            names.update(n.strip() for n in head.split(" : ")[0].split(","))
    return names


def fitted_attributes(est):
    """Fitted attributes: set by fit, or properties computed from them when read."""
    computed = {name for name in dir(type(est))
                if isinstance(getattr(type(est), name, None), property)}
    return {name for name in set(vars(est)) | computed
            if name.endswith("_") and not name.startswith("_")}


def _table(n=400):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.choice(["x", "y"], n)})
    schema = {"a": {"type": "numeric", "bounds": [0, 1]},
              "b": {"type": "categorical", "categories": ["x", "y"]}}
    return X, rng.choice(["no", "yes"], n), schema


@pytest.mark.parametrize("make", [
    lambda s: DPHPSynthesizer(schema=s, classes=["no", "yes"], **FAST),
    lambda s: DPMERFSynthesizer(schema=s, classes=["no", "yes"], n_components=20, **FAST),
    lambda s: MarginalSynthesizer(schema=s, classes=["no", "yes"], **FAST),
    lambda s: KMESynthesizer(schema=s, classes=["no", "yes"],
                             features=RandomFourierFeatures(n_components=20), **FAST),
    lambda s: Synthesizer(schema=s, classes=["no", "yes"], **FAST),
], ids=["DPHPSynthesizer", "DPMERFSynthesizer", "MarginalSynthesizer", "KMESynthesizer",
        "Synthesizer"])
def test_synthesizer_attributes_match_the_docstring(make):
    X, y, schema = _table()
    est = make(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    assert documented_attributes(type(est)) == fitted_attributes(est)


@pytest.mark.parametrize("est", [
    KernelMeanEmbedding(features=HermiteFeatures(order=3), epsilon=1.0),
    DPKMEReleaser(method="subspace", bounds=(0, 1), n_points=10, random_state=0),
    HermiteFeatures(order=3),
    RandomFourierFeatures(n_components=10, random_state=0),
], ids=lambda e: type(e).__name__)
def test_other_estimators_attributes_match_the_docstring(est):
    # fitted unlabeled on a DataFrame: attributes documented as set in some fits
    # "only" may be absent; every other documented one is there (or a property)
    X = pd.DataFrame(np.random.default_rng(0).uniform(0, 1, (200, 2)), columns=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    documented = documented_attributes(type(est))
    assert fitted_attributes(est) <= documented
    always = documented - documented_attributes(type(est), conditional=True)
    assert {name for name in always if not hasattr(est, name)} == set()
