"""A constructor for every atom type: ``ConceptNode("cat")``,
``InheritanceLink(a, b, tv=TruthValue(0.9, 0.8))``.

Each adds to the default AtomSpace (``set_default_atomspace``), or to the
space given as ``atomspace=``. Types registered after import get their
constructors on first use (``type_constructors.MyNode``).
"""

from ._atomweave import TypeConstructor as _TypeConstructor
from ._atomweave import type_of_name as _type_of_name
from ._atomweave import type_table as _type_table

__all__ = []
for _name, _id, _short, _is_atom in _type_table():
    # Atom types only: values (FloatValue, ...) have classes of their own.
    if _is_atom:
        globals()[_name] = _TypeConstructor(_id)
        __all__.append(_name)
del _name, _id, _short, _is_atom


def __getattr__(name: str):
    t = _type_of_name(name)
    if t is None:
        raise AttributeError(f"no atom type named {name!r}")
    ctor = globals()[name] = _TypeConstructor(t)
    return ctor
