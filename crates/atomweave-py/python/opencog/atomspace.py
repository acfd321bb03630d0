"""``opencog.atomspace``, upstream's module for the AtomSpace, atoms, values and types: atomweave's API."""

from atomweave import *  # noqa: F401,F403
from atomweave import TruthValue


def createTruthValue(strength=1.0, confidence=1.0):  # noqa: N802  (upstream's name)
    """A TruthValue: upstream's older spelling of ``TruthValue(strength, confidence)``."""
    return TruthValue(strength, confidence)
