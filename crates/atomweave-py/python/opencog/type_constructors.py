"""``opencog.type_constructors``, upstream's module for a constructor per atom type (ConceptNode, ListLink, ...): atomweave's API."""

from atomweave import *  # noqa: F401,F403
