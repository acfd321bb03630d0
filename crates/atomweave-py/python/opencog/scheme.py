"""``opencog.scheme``, upstream's module for scheme_eval, scheme_eval_h and scheme_eval_v: atomweave's API."""

from atomweave import *  # noqa: F401,F403
