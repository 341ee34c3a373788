"""Hooks of the sphinx-gallery configuration in ``conf.py``.

sphinx-gallery (≥ 0.16) with Sphinx (≥ 7.3) wants callables in its
configuration given as fully qualified names (``"_gallery.reset_argv"``), so
that the configuration can be pickled; ``conf.py`` puts ``doc/`` on
``sys.path`` for this module to be importable.
"""

import atexit
import shutil
import tempfile
from pathlib import Path

# The gallery's order: the Adult marginals first (the landing page's figure),
# then kernels, synthesizers, release, evaluation.
ORDER = [
    "plot_adult_marginals.py",
    "plot_kernel_approximation.py",
    "gaussian_grid.py",
    "adult_utility_vs_epsilon.py",
    "digits_images.py",
    "plot_kme_release.py",
    "private_two_sample_test.py",
    "pipeline_grid_search.py",
]

_OUT_DIR = []


def _out_dir():
    """One temporary folder per build for the PNG files the scripts write.

    The gallery takes its figures from the open matplotlib figures, not from
    these files; writing them outside the repository keeps ``examples/`` and
    ``doc/`` clean. The folder is removed when the build ends.
    """
    if not _OUT_DIR:
        path = tempfile.mkdtemp(prefix="skdpgen-gallery-")
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        _OUT_DIR.append(path)
    return _OUT_DIR[0]


def reset_argv(gallery_conf, script_vars):
    """Command-line arguments of every example: the quick mode, files to a temp dir."""
    return ["--quick", "--out-dir", _out_dir()]


class ExampleOrder:
    """Sort key of the examples: the order of :data:`ORDER`, others after, by name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = Path(filename).name
        return (ORDER.index(name), name) if name in ORDER else (len(ORDER), name)

    def __repr__(self):
        return f"<{type(self).__name__}>"
