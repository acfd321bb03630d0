"""Atom types by name: ``types.ConceptNode`` is the ConceptNode type's number.

Every type of the table is here, including types registered after import
(``atomweave.register_type``), which are looked up on first use.
"""

from ._atomweave import type_of_name as _type_of_name
from ._atomweave import type_table as _type_table

for _name, _id, _short, _is_atom in _type_table():
    globals()[_name] = _id
del _name, _id, _short, _is_atom

#: Upstream's name for the type of nothing (``get_type`` of an unknown name).
NO_TYPE = globals()["Notype"]


def __getattr__(name: str) -> int:
    t = _type_of_name(name)
    if t is None:
        raise AttributeError(f"no atom type named {name!r}")
    globals()[name] = t
    return t


def __dir__():
    return sorted(name for name, *_ in _type_table())
