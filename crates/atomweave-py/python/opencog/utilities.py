"""``opencog.utilities``, upstream's module for initialize_opencog, the default atomspace, load_file: atomweave's API."""

from atomweave import *  # noqa: F401,F403
