"""Hooks of the sphinx-gallery configuration in ``conf.py``.

sphinx-gallery (≥ 0.16) with Sphinx (≥ 7.3) wants callables in its
configuration given as fully qualified names (``"_gallery.reset_argv"``), so
that the configuration can be pickled; ``conf.py`` puts ``doc/`` on
``sys.path`` for this module to be importable.
"""

import atexit
import shutil
import sys
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


_TQDM = []


def progress_to_terminal(gallery_conf, fname, when):
    """Before each example, its progress bars go to the build's terminal, not its page.

    A ``reset_modules`` hook. sphinx-gallery captures what an example writes
    to stdout and stderr for its page, so a tqdm bar (an estimator's
    ``verbose=1``) would fill the page with one line per refresh, and the
    build would print nothing while a long example runs. Before each example
    ``tqdm.auto.tqdm`` (what the trainer uses) becomes a subclass that writes
    to the build's own stderr (``sys.__stderr__``), its label prefixed with
    the example's name, refreshed every 10 s when stderr is not a terminal
    (a log file); after the example the original is put back.
    """
    import tqdm.auto

    if not _TQDM:
        _TQDM.append(tqdm.auto.tqdm)
    original = _TQDM[0]
    if when != "before" or fname is None:
        tqdm.auto.tqdm = original
        return
    name = Path(fname).name

    class TerminalBar(original):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("file", sys.__stderr__)
            kwargs["desc"] = f"{name}: {kwargs.get('desc') or 'progress'}"
            if not getattr(sys.__stderr__, "isatty", lambda: False)():
                kwargs.setdefault("mininterval", 10)
            super().__init__(*args, **kwargs)

    tqdm.auto.tqdm = TerminalBar
