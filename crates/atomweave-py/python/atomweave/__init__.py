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

from . import types
from ._atomweave import (
    Atom,
    AtomSpace,
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
    get_type_name,
    is_a,
    load_file,
    load_str,
    pop_default_atomspace,
    push_default_atomspace,
    register_type,
    set_default_atomspace,
)
from .type_constructors import *  # noqa: F403  (ConceptNode, InheritanceLink, ...)
from .type_constructors import __all__ as _constructors

__all__ = [
    "Atom",
    "AtomSpace",
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
    "is_a",
    "load_file",
    "load_str",
    "pop_default_atomspace",
    "push_default_atomspace",
    "register_type",
    "set_default_atomspace",
    "types",
    *_constructors,
]
