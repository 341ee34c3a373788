"""skdpgen: differentially private synthetic data from kernel mean embeddings.

scikit-learn–compatible feature maps, private kernel mean embeddings, and
synthetic-data generators with exact (ε, δ) accounting.

The names below are imported on first use (PEP 562), so that the command
line answers a usage error before it imports torch and scikit-learn.
"""

import importlib

__version__ = "0.1.0.dev0"

#: Each top-level name and the module it lives in.
_HOMES = {
    "BoundedFeatureMap": "kernels",
    "DPHPSynthesizer": "synthesizers",
    "DPKMEReleaser": "release",
    "DPMERFSynthesizer": "synthesizers",
    "HermiteFeatures": "kernels",
    "KMESynthesizer": "synthesizers",
    "KernelMeanEmbedding": "embedding",
    "MarginalSynthesizer": "synthesizers",
    "PrivacyLeakWarning": "privacy",
    "PrivacyReport": "privacy",
    "RandomFourierFeatures": "kernels",
}

__all__ = [*_HOMES, "__version__"]


def __getattr__(name):
    """A top-level name, or a submodule, imported when first asked for."""
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_HOMES})
