"""Datasets bundled with skdpgen, each with a public schema.

A schema gives the bounds of each numeric column and the categories of each
categorical column. It is written from the dataset's documentation and public
knowledge, never computed from the rows, so a differentially private method
can use it without spending privacy budget. Generated tables
(:func:`make_gaussian_grid`, :func:`make_survey`) come without one: their
makers know their ranges, a user of their rows need not.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._adult import adult_schema, load_adult
from ._gaussian_grid import gaussian_grid_centers, gaussian_grid_nll, make_gaussian_grid
from ._survey import make_survey

__all__ = [
    "adult_schema",
    "gaussian_grid_centers",
    "gaussian_grid_nll",
    "load_adult",
    "make_gaussian_grid",
    "make_survey",
]
