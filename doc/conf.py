"""Sphinx configuration for skdpgen."""

import sys
from pathlib import Path

import skdpgen

# doc/ on the path: the gallery's hooks live in doc/_gallery.py
sys.path.insert(0, str(Path(__file__).resolve().parent))

project = "skdpgen"
author = "the skdpgen developers"
release = skdpgen.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from _static: math renders offline
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
numpydoc_show_class_members = False
exclude_patterns = ["_build"]
html_theme = "pydata_sphinx_theme"
html_title = "skdpgen"  # short: the header stays one row at 1,280 px
html_theme_options = {
    # one header row at 1,280 px: four links, the rest under "More"
    "header_links_before_dropdown": 4,
    "navbar_align": "left",
    # "On this page" lists sections and their subsections (the schemas page's
    # private-estimate rules are subsections of one section)
    "show_toc_level": 2,
}
# pages without sub-pages get no (empty) "Section Navigation" sidebar
html_static_path = ["_static"]
html_css_files = ["console.css"]  # code, titles and side names wrap: nothing cut off at 1,280 px
html_sidebars = {page: [] for page in (
    "install", "getting_started", "release", "evaluation", "architecture", "benchmarks")}

# The gallery: every script of examples/ is run (in its --quick mode) at each
# build, and its printed output and matplotlib figures are shown with its
# code. Callables are given by name (sphinx-gallery >= 0.16 with Sphinx >= 7.3
# must pickle the configuration; a function object would warn, failing -W).
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run every example, not only plot_*.py
    "reset_argv": "_gallery.reset_argv",  # --quick --out-dir <temporary folder>
    # progress bars (the long examples' verbose=1) to the terminal, not the page
    "reset_modules": ("matplotlib", "_gallery.progress_to_terminal"),
    "within_subsection_order": "_gallery.ExampleOrder",
    "download_all_examples": False,
    "remove_config_comments": True,
}


def setup(app):
    # the Getting started page's console blocks: the commands run at each build
    from _console import generate

    app.connect("builder-inited", generate)
