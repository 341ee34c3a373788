"""skdpgen: differentially private synthetic data from kernel mean embeddings.

scikit-learn–compatible feature maps, private kernel mean embeddings, and
synthetic-data generators with exact (ε, δ) accounting.
"""

from .embedding import KernelMeanEmbedding
from .features import HermiteFeatures, RandomFourierFeatures
from .synthesizers import DPHPSynthesizer, DPMERFSynthesizer
from .privacy import PrivacyLeakWarning, PrivacyReport
from .release import DPKMEReleaser

__version__ = "0.1.0.dev0"

__all__ = [
    "DPHPSynthesizer",
    "DPKMEReleaser",
    "DPMERFSynthesizer",
    "HermiteFeatures",
    "KernelMeanEmbedding",
    "PrivacyLeakWarning",
    "PrivacyReport",
    "RandomFourierFeatures",
    "__version__",
]
