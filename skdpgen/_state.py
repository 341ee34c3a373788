"""Fitted state that is all or nothing."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib

__all__ = ["fit_transaction"]


@contextlib.contextmanager
def fit_transaction(estimator):
    """Run a fit so that a failure leaves ``estimator`` exactly as it was.

    On an exception every attribute is restored: an unfitted object stays
    unfitted, a fitted one keeps its previous fit intact.
    """
    before = dict(vars(estimator))
    try:
        yield
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise
