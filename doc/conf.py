"""Sphinx configuration for skdpgen."""

import skdpgen

project = "skdpgen"
author = "the skdpgen developers"
release = skdpgen.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
numpydoc_show_class_members = False
exclude_patterns = ["_build"]
html_theme = "pydata_sphinx_theme"
