"""``opencog.logger``, upstream's logger module: atomweave's loggers."""

from atomweave import *  # noqa: F401,F403
from atomweave.logger import log  # noqa: F401
