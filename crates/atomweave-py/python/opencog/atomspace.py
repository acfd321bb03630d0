"""``opencog.atomspace``, upstream's module for the AtomSpace, atoms, values and types: atomweave's API."""

from atomweave import *  # noqa: F401,F403
