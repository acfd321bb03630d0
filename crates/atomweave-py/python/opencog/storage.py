"""``opencog.storage``, upstream's module for the StorageNode calls (cog_open, store_atom, fetch_atom, ...): atomweave's API."""

from atomweave import *  # noqa: F401,F403
