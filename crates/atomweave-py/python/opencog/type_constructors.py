"""``opencog.type_constructors``, upstream's module for a constructor per atom type (ConceptNode, ListLink, ...): atomweave's API."""

from atomweave import *  # noqa: F401,F403
import warnings as _warnings

from atomweave import get_default_atomspace as _get_default
from atomweave import set_default_atomspace as _set_default


def set_type_ctor_atomspace(new_atomspace):
    """Upstream's deprecated name of ``set_default_atomspace`` (warns as upstream's does)."""
    _warnings.warn("set_type_ctor_atomspace is deprecated, use push_default_atomspace instead", DeprecationWarning, stacklevel=2)
    return _set_default(new_atomspace)


def get_type_ctor_atomspace():
    """Upstream's deprecated name of ``get_default_atomspace`` (warns as upstream's does)."""
    _warnings.warn("get_type_ctor_atomspace is deprecated, use get_default_atomspace instead", DeprecationWarning, stacklevel=2)
    return _get_default()
