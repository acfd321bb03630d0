"""``opencog.storage_rocks``, upstream's module for RocksStorageNode (atomweave's embedded store under upstream's name): atomweave's API."""

from atomweave import *  # noqa: F401,F403
