"""Does a change preserve behaviour? The presets' outputs under the same noise.

Not part of the package. Fits each preset (``MarginalSynthesizer``,
``DPHPSynthesizer``, ``DPMERFSynthesizer``) on the first 3,000 rows of the
bundled UCI Adult under :func:`skdpgen.privacy.reproducible_noise` (the same
noise draws in every run; a test-only door, never for a release) with a public
seed, samples 500 rows with a public seed, and prints a hash of each sample.
Run it at two commits: equal hashes mean the change left every preset's fit
and sample as they were, to the last bit (a refactor's check); different
hashes mean something moved (then compare the panel). Usage, from the
repository root::

    python benchmarks/same_outputs.py
    git worktree add --detach /tmp/before <commit>
    (cd /tmp/before && PYTHONPATH=/tmp/before python /path/to/benchmarks/same_outputs.py)
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import hashlib
import warnings

import skdpgen
from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, MarginalSynthesizer
from skdpgen.datasets import load_adult
from skdpgen.privacy import reproducible_noise


def main():
    warnings.filterwarnings("ignore")
    X, y = load_adult(return_X_y=True)
    X, y = X.iloc[:3000], y.iloc[:3000]
    print(f"skdpgen from {skdpgen.__file__}")
    for cls, params in [(MarginalSynthesizer, {}), (DPHPSynthesizer, {"epochs": 3}),
                        (DPMERFSynthesizer, {"epochs": 3})]:
        with reproducible_noise(0):
            model = cls(random_state=0, **params).fit(X, y)
        rows, labels = model.sample(500, random_state=0)
        digest = hashlib.sha256(rows.to_csv().encode() + str(labels).encode()).hexdigest()
        print(f"{cls.__name__:22s} {digest[:16]}")


if __name__ == "__main__":
    main()
