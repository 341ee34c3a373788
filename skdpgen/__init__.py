"""skdpgen: differentially private synthetic data from kernel mean embeddings.

scikit-learn–compatible feature maps, private kernel mean embeddings, and
synthetic-data generators with exact (ε, δ) accounting.
"""

from .embedding import KernelMeanEmbedding
from .kernels import BoundedFeatureMap, HermiteFeatures, RandomFourierFeatures
from .privacy import PrivacyLeakWarning, PrivacyReport
from .release import DPKMEReleaser
from .synthesizers import (DPHPSynthesizer, DPMERFSynthesizer, KMESynthesizer,
                           MarginalSynthesizer)

__version__ = "0.1.0.dev0"

__all__ = [
    "BoundedFeatureMap",
    "DPHPSynthesizer",
    "DPKMEReleaser",
    "DPMERFSynthesizer",
    "MarginalSynthesizer",
    "HermiteFeatures",
    "KMESynthesizer",
    "KernelMeanEmbedding",
    "PrivacyLeakWarning",
    "PrivacyReport",
    "RandomFourierFeatures",
    "__version__",
]
