"""atomweave: a fast, compact, thread-safe AtomSpace.

The classic OpenCog Python API over a Rust core. Scripts written for
``opencog.atomspace``, ``opencog.type_constructors`` and ``opencog.utilities``
run with their imports changed to ``atomweave``::

    from atomweave import *

    a = AtomSpace()
    set_default_atomspace(a)
    A = ConceptNode("Apple", tv=TruthValue(1, 0.8))
    B = ConceptNode("Berry")
    AB = InheritanceLink(A, B)
    a.get_atoms_by_type(types.Atom)
"""

import contextlib

from . import types
from ._atomweave import __version__
from ._atomweave import (
    Atom,
    AtomSpace,
    AtomTypeError,
    CountTruthValue,
    FloatValue,
    LinkValue,
    StringValue,
    TruthValue,
    TypeConstructor,
    dump,
    evaluate_atom,
    execute_atom,
    get_default_atomspace,
    get_free_variables,
    get_type_name,
    is_closed,
    is_a,
    load_file,
    load_str,
    pop_default_atomspace,
    push_default_atomspace,
    register_type,
    load_types,
    scheme_eval,
    scheme_eval_as,
    scheme_eval_h,
    scheme_eval_v,
    set_default_atomspace,
    # StorageNode calls, by upstream's names.
    barrier,
    cog_close,
    cog_delete,
    cog_delete_recursive,
    cog_open,
    fetch_atom,
    fetch_incoming_by_type,
    fetch_incoming_set,
    fetch_value,
    load_atoms_of_type,
    load_atomspace,
    store_atom,
    store_atomspace,
    store_value,
    update_value,
)
from .logger import Logger, create_logger
from .logger import log  # noqa: F401  (upstream's default logger; not in __all__: a common name)
from .type_constructors import *  # noqa: F403  (ConceptNode, InheritanceLink, ...)
from . import type_constructors


def get_type(name):
    """The number of the type named ``name``; ``types.NO_TYPE`` if there is none."""
    try:
        return getattr(types, name) if name else types.NO_TYPE
    except AttributeError:
        return types.NO_TYPE


def create_child_atomspace(parent):
    """A new child space of ``parent`` (a frame): ``AtomSpace(parent)``."""
    return AtomSpace(parent)


def add_node(t, name, tv=None):
    """Adds (or finds) a node in the default space (upstream's
    ``opencog.utilities.add_node``)."""
    return get_default_atomspace().add_node(t, name, tv)


def add_link(t, outgoing, tv=None):
    """Adds (or finds) a link over ``outgoing`` in the default space
    (upstream's ``opencog.utilities.add_link``)."""
    return get_default_atomspace().add_link(t, list(outgoing), tv)


def decl_type(parent, name):
    """Declares the atom type ``name`` under ``parent`` (a type number);
    returns its number, also ``types.<name>`` from then on."""
    return register_type(name, [parent])


@contextlib.contextmanager
def type_decl_context(module_name):
    """Upstream declares types inside this block for the module
    ``module_name``. Here types are process-wide and ``decl_type`` works
    anywhere: the block only groups the declarations."""
    yield


def initialize_opencog(atomspace=None):
    """Upstream's start-up call: makes ``atomspace`` (a new one when None)
    the default space, and returns it."""
    space = atomspace if atomspace is not None else AtomSpace()
    set_default_atomspace(space)
    return space


def finalize_opencog():
    """Upstream's shut-down call. Nothing needs tearing down; kept so that
    classic scripts run unchanged."""


class tmp_atomspace:
    """A temporary child of the default space, as the default inside a
    ``with`` block: ``with tmp_atomspace() as tmp: ...``. What is added in
    the block goes to the child and is gone with it."""

    def __enter__(self):
        self._space = push_default_atomspace()
        return self._space

    def __exit__(self, *exc):
        pop_default_atomspace()
        self._space.clear()
        return False


def __getattr__(name):
    # Constructors of types registered after import: atomweave.MyNode.
    return getattr(type_constructors, name)

__all__ = [
    "Atom",
    "AtomSpace",
    "AtomTypeError",
    "CountTruthValue",
    "FloatValue",
    "LinkValue",
    "StringValue",
    "TruthValue",
    "TypeConstructor",
    "dump",
    "evaluate_atom",
    "execute_atom",
    "get_default_atomspace",
    "get_type_name",
    "get_type",
    "Logger",
    "create_logger",
    "get_free_variables",
    "is_closed",
    "create_child_atomspace",
    "add_node",
    "add_link",
    "decl_type",
    "type_decl_context",
    "finalize_opencog",
    "initialize_opencog",
    "is_a",
    "load_file",
    "load_str",
    "pop_default_atomspace",
    "push_default_atomspace",
    "register_type",
    "load_types",
    "scheme_eval",
    "scheme_eval_as",
    "scheme_eval_h",
    "scheme_eval_v",
    "set_default_atomspace",
    "tmp_atomspace",
    "types",
    "barrier",
    "cog_close",
    "cog_delete",
    "cog_delete_recursive",
    "cog_open",
    "fetch_atom",
    "fetch_incoming_by_type",
    "fetch_incoming_set",
    "fetch_value",
    "load_atoms_of_type",
    "load_atomspace",
    "store_atom",
    "store_atomspace",
    "store_value",
    "update_value",
]
__all__ += type_constructors.__all__
