"""``opencog.nameserver``, upstream's module for the type table: decl_type, type_decl_context, get_type: atomweave's API."""

from atomweave import *  # noqa: F401,F403
