"""``opencog.execute``, upstream's module for execute_atom and evaluate_atom: atomweave's API."""

from atomweave import *  # noqa: F401,F403
