"""Private synthetic-data generators built on kernel mean embeddings."""

from .dphp import DPHPSynthesizer
from .dpmerf import DPMERFSynthesizer

__all__ = ["DPHPSynthesizer", "DPMERFSynthesizer"]
