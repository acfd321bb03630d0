"""Type stubs of the native module (crates/atomweave-py/src)."""

from os import PathLike
from typing import Iterable, Iterator, Optional, Sequence, Union, final

__version__: str

__all__ = [
    "__version__",
    "AtomSpace",
    "Atom",
    "AtomIter",
    "TruthValue",
    "FloatValue",
    "StringValue",
    "LinkValue",
    "TypeConstructor",
    "AtomTypeError",
    "CountTruthValue",
    "get_free_variables",
    "is_closed",
    "set_default_atomspace",
    "get_default_atomspace",
    "push_default_atomspace",
    "pop_default_atomspace",
    "execute_atom",
    "scheme_eval",
    "scheme_eval_h",
    "scheme_eval_v",
    "scheme_eval_as",
    "evaluate_atom",
    "load_file",
    "load_str",
    "dump",
    "_bench_space",
    "type_table",
    "type_of_name",
    "get_type_name",
    "is_a",
    "register_type",
    "load_types",
    "cog_open",
    "cog_close",
    "store_atom",
    "store_value",
    "update_value",
    "fetch_atom",
    "fetch_value",
    "fetch_incoming_set",
    "fetch_incoming_by_type",
    "load_atoms_of_type",
    "load_atomspace",
    "store_atomspace",
    "barrier",
    "cog_delete",
    "cog_delete_recursive",
]

# Stub-only aliases (not in the module).
# A type argument: a type number (``atomweave.types.ConceptNode``) or a type name.
_TypeArg = Union[int, str]
# What a LinkValue holds (and takes): atoms and values.
_Value = Union["Atom", "TruthValue", "FloatValue", "StringValue", "LinkValue", "AtomSpace"]
# What a space stores as a value: a value, or a plain list of numbers or of strings.
_ValueLike = Union[_Value, list[float], list[str]]
# A value as the module gives it back: a BoolValue is a list of bools, a VoidValue None.
_PyValue = Union["Atom", "TruthValue", "FloatValue", "StringValue", "LinkValue", "AtomSpace", list[bool], None]

@final
class AtomSpace:
    """A thread-safe AtomSpace.

    ``AtomSpace()`` makes a new, empty space; ``AtomSpace(base, ...)`` a child
    space (a frame) that sees its bases' atoms and keeps its own changes.
    """

    def __new__(cls, *bases: AtomSpace) -> AtomSpace:
        """Makes a new, empty space, or a child space (a frame) of ``bases``.

        Args:
            *bases: the spaces a child space sees; none for a new root space.

        Returns:
            The new space.

        Raises:
            TypeError: a base is not an AtomSpace.
            RuntimeError: the bases do not descend from one root space.
        """
        ...
    @staticmethod
    def open(url: str) -> AtomSpace:
        """A new space over a stored one, read as it is used, never loaded whole.

        Queries, incoming sets, values and lookups read the LMDB store at
        ``url`` when they need its atoms; what they read stays in the space,
        and the operating system's page cache holds the rest. Changes stay
        in the space until stored (``store_atom``). Counting every atom
        (``len``, ``size``) or listing a type reads those atoms.

        Args:
            url: the store, ``lmdb:///path/to/dir``; it must exist.

        Returns:
            The new space.

        Raises:
            RuntimeError: no store there, or one that cannot be read through
                (only LMDB can), or one another StorageNode of this process holds.
        """
        ...
    def add_node(self, t: int, name: str, tv: Optional[TruthValue] = None) -> Atom:
        """Adds the node of type ``t`` and this name to the space, or finds the one there.

        Args:
            t: the node type, a number from ``atomweave.types`` (a type name is
                refused here; ``add`` takes names).
            name: the node's name.
            tv: a truth value to set on the node.

        Returns:
            The node.

        Raises:
            TypeError: ``t`` is a str or not a number, or ``tv`` is not a TruthValue.
            AtomTypeError: ``t`` is not a node type.
            ValueError: no type has the number ``t``.
        """
        ...
    def add_link(self, t: int, outgoing: Iterable[Atom], tv: Optional[TruthValue] = None) -> Atom:
        """Adds the link of type ``t`` over these atoms to the space, or finds the one there.

        Atoms of another space's hierarchy are copied into this space by content.

        Args:
            t: the link type, a number from ``atomweave.types`` (a type name is
                refused here; ``add`` takes names).
            outgoing: the link's members, in order.
            tv: a truth value to set on the link.

        Returns:
            The link.

        Raises:
            TypeError: ``t`` is a str or not a number, ``outgoing`` is not an
                iterable of Atoms, or ``tv`` is not a TruthValue.
            AtomTypeError: ``t`` is not a link type.
            ValueError: no type has the number ``t``.
            RuntimeError: a member is no longer in its space.
        """
        ...
    def add_links(self, links: Iterable[tuple[_TypeArg, Iterable[Atom]]]) -> list[Atom]:
        """Adds (or finds) many links at once, in order; adds none if one is bad.

        For bulk loads: the links' memory is fetched ahead and the space is
        locked once. Every link is checked first.

        Args:
            links: ``(type, outgoing)`` tuples; the type by number or by name.

        Returns:
            The links, in the order of ``links``.

        Raises:
            TypeError: ``links`` is not an iterable of ``(type, outgoing)``
                tuples, a member is not an Atom, or a type is neither an int nor a str.
            AtomTypeError: a type is not a link type.
            ValueError: a type number or name names no type.
            RuntimeError: a member is no longer in its space.
        """
        ...
    def add(self, t: _TypeArg, name: Optional[str] = None, out: Optional[Iterable[Atom]] = None, tv: Optional[TruthValue] = None) -> Atom:
        """Adds (or finds) a node when ``name`` is given, a link when ``out`` is.

        A link type with neither gives the empty link.

        Args:
            t: the atom type, by number or by name.
            name: the node's name.
            out: the link's members, in order.
            tv: a truth value to set on the atom.

        Returns:
            The node or link.

        Raises:
            ValueError: both ``name`` and ``out`` are given, or neither for a
                node type; or ``t`` names no type.
            TypeError: ``t`` is neither an int nor a str, or a member is not an Atom.
            AtomTypeError: ``t`` is not a node type (with ``name``) or not a
                link type (with ``out``).
        """
        ...
    def remove(self, atom: Atom, recursive: bool = False) -> bool:
        """Removes the atom from the space; with ``recursive``, the links holding it too.

        Args:
            atom: the atom to remove.
            recursive: also remove every link that holds it.

        Returns:
            True if it was removed; False when it cannot be (not in this space,
            or held by links and not ``recursive``).

        Raises:
            TypeError: ``atom`` is not an Atom.
        """
        ...
    def clear(self) -> None:
        """Removes every atom."""
        ...
    def get_atoms_by_type(self, t: _TypeArg, subtype: bool = True) -> list[Atom]:
        """The atoms of type ``t`` (and, with ``subtype``, of its subtypes).

        The atoms that only key values (the truth value's key) are left out.

        Args:
            t: the type, by number or by name.
            subtype: include the atoms of ``t``'s subtypes.

        Returns:
            The atoms.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def get_node(self, t: _TypeArg, name: str) -> Optional[Atom]:
        """The node of this type and name, or None.

        Args:
            t: the node type, by number or by name.
            name: the node's name.

        Returns:
            The node, or None if the space has none such.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def get_link(self, t: _TypeArg, outgoing: Iterable[Atom]) -> Optional[Atom]:
        """The link of this type and outgoing set, or None.

        Args:
            t: the link type, by number or by name.
            outgoing: the link's members, in order.

        Returns:
            The link, or None if the space has none such.

        Raises:
            TypeError: ``t`` is neither an int nor a str, or ``outgoing`` is
                not an iterable of Atoms.
            ValueError: ``t`` names no type.
        """
        ...
    def size(self) -> int:
        """Number of atoms.

        Returns:
            How many atoms the space holds.
        """
        ...
    def is_valid(self, atom: Atom) -> bool:
        """Whether ``atom`` is an atom of this space.

        Args:
            atom: the atom to look for.

        Returns:
            True if the space holds it (its own atoms and its bases' count;
            a child's do not count for its base).

        Raises:
            TypeError: ``atom`` is not an Atom.
        """
        ...
    def is_node_in_atomspace(self, t: _TypeArg, name: str) -> bool:
        """Whether the node of type ``t`` and this name is here.

        Args:
            t: the node type, by number or by name.
            name: the node's name.

        Returns:
            True if the space has the node.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def is_link_in_atomspace(self, t: _TypeArg, outgoing: Iterable[Atom]) -> bool:
        """Whether the link of type ``t`` over these atoms is here.

        Args:
            t: the link type, by number or by name.
            outgoing: the link's members, in order.

        Returns:
            True if the space has the link.

        Raises:
            TypeError: ``t`` is neither an int nor a str, or ``outgoing`` is
                not an iterable of Atoms.
            ValueError: ``t`` names no type.
        """
        ...
    @staticmethod
    def include_incoming(atoms: Sequence[Atom]) -> list[Atom]:
        """``atoms`` and every link holding one of them, each once, in the order first met.

        Upstream's, deprecated there.

        Args:
            atoms: the atoms to start from.

        Returns:
            The atoms and their incoming links.

        Raises:
            TypeError: ``atoms`` is not a sequence of Atoms.
        """
        ...
    @staticmethod
    def include_outgoing(atoms: Sequence[Atom]) -> list[Atom]:
        """``atoms`` and the members of each, each once, in the order first met.

        Upstream's, deprecated there.

        Args:
            atoms: the atoms to start from.

        Returns:
            The atoms and their members.

        Raises:
            TypeError: ``atoms`` is not a sequence of Atoms.
        """
        ...
    def __len__(self) -> int:
        """Number of atoms, as ``size()``."""
        ...
    def __contains__(self, key: object, /) -> bool:
        """Whether ``key`` is an Atom this space holds, its bases' included (False for a non-Atom)."""
        ...
    def __iter__(self) -> AtomIter:
        """Iterates every atom; the handles are taken when iteration starts."""
        ...
    def set_value(self, atom: Atom, key: Atom, value: _ValueLike) -> None:
        """Sets the value of ``atom`` under ``key``.

        Args:
            atom: the atom that holds the value.
            key: the key, an Atom.
            value: an Atom, TruthValue, FloatValue, StringValue, LinkValue,
                AtomSpace, or a list of numbers or of strings.

        Raises:
            TypeError: ``atom`` or ``key`` is not an Atom, or ``value`` is none
                of the kinds above.
            RuntimeError: ``atom`` is no longer in its space.
        """
        ...
    def set_truthvalue(self, atom: Atom, tv: TruthValue) -> None:
        """Sets the truth value of ``atom``.

        Args:
            atom: the atom.
            tv: its new truth value.

        Raises:
            TypeError: ``atom`` is not an Atom or ``tv`` not a TruthValue.
            RuntimeError: ``atom`` is no longer in its space.
        """
        ...
    def new_child(self) -> AtomSpace:
        """A new child space (frame) of this one.

        Returns:
            The child space.
        """
        ...
    @property
    def bases(self) -> list[AtomSpace]:
        """The base spaces of a child space (empty for a root space)."""
        ...
    def _heap_bytes(self) -> int:
        """Bytes the space has allocated, by its own count (for the benchmarks)."""
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is the same space."""
        ...
    def __hash__(self) -> int:
        """A hash of the space (equal spaces hash alike)."""
        ...
    def __repr__(self) -> str:
        """``<AtomSpace of N atoms>``."""
        ...

@final
class AtomIter(Iterator[Atom]):
    """Iterates a space's atoms (what ``iter(atomspace)`` gives; not made directly)."""

    def __iter__(self) -> AtomIter:
        """Returns the iterator itself."""
        ...
    def __next__(self) -> Atom:
        """The next atom; raises StopIteration after the last."""
        ...

class AtomTypeError(TypeError, RuntimeError):
    """A node type given where a link type belongs, or the other way round."""

@final
class Atom:
    """An atom: a node or a link of an AtomSpace.

    Atoms are made by the space (``add_node``, ``add_link``) or by the type
    constructors (``ConceptNode("x")``); two Atom objects for the same atom are
    equal and hash alike.
    """

    @property
    def name(self) -> str:
        """The node's name ("" for a link).

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @property
    def out(self) -> list[Atom]:
        """The link's outgoing set (empty for a node).

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @property
    def incoming(self) -> list[Atom]:
        """The links that hold this atom (empty if it is no longer in its space)."""
        ...
    def incoming_by_type(self, t: _TypeArg) -> list[Atom]:
        """The links of type ``t`` that hold this atom.

        Args:
            t: the link type, by number or by name.

        Returns:
            The links.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    @property
    def arity(self) -> int:
        """Number of atoms in the outgoing set (0 for a node, or an atom no longer in its space)."""
        ...
    @property
    def tv(self) -> TruthValue:
        """The truth value.

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @tv.setter
    def tv(self, tv: TruthValue) -> None:
        """Sets the truth value.

        Raises:
            TypeError: ``tv`` is not a TruthValue.
            RuntimeError: the atom is no longer in its space.
        """
        ...
    def truth_value(self, mean: float, confidence: float) -> Atom:
        """Sets the truth value to (``mean``, ``confidence``) and returns the atom.

        ``Concept("a").truth_value(0.5, 0.8)``, upstream's chaining form.

        Args:
            mean: the strength.
            confidence: the confidence, from 0 to 1.

        Returns:
            This atom.

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @property
    def type(self) -> int:
        """The type's number (compare with ``atomweave.types.ConceptNode``).

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @property
    def type_name(self) -> str:
        """The type's name, e.g. "ConceptNode".

        Raises:
            RuntimeError: the atom is no longer in its space.
        """
        ...
    @property
    def atomspace(self) -> AtomSpace:
        """The space that holds the atom."""
        ...
    @property
    def handle(self) -> int:
        """The handle's number: stable for the atom's life, never reused."""
        ...
    def get_value(self, key: Atom) -> _PyValue:
        """The value under ``key``, or None.

        Args:
            key: the key, an Atom.

        Returns:
            The value (a BoolValue as a list of bools), or None if there is none.

        Raises:
            TypeError: ``key`` is not an Atom.
            RuntimeError: the atom is no longer in its space.
        """
        ...
    def set_value(self, key: Atom, value: Optional[_ValueLike]) -> None:
        """Sets the value under ``key``; None removes it.

        Args:
            key: the key, an Atom.
            value: an Atom, TruthValue, FloatValue, StringValue, LinkValue,
                AtomSpace, a list of numbers or of strings; or None.

        Raises:
            TypeError: ``key`` is not an Atom, or ``value`` is none of the kinds above.
            RuntimeError: the atom is no longer in its space.
        """
        ...
    def get_keys(self) -> list[Atom]:
        """The keys of the atom's values (the truth value's key first when it has one).

        Returns:
            The keys; empty for an atom no longer in its space.
        """
        ...
    def is_a(self, t: _TypeArg) -> bool:
        """Is the atom's type ``t``, or a subtype of it?

        Args:
            t: the type, by number or by name.

        Returns:
            True if the atom's type is ``t`` or a subtype of it.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
            RuntimeError: the atom is no longer in its space.
        """
        ...
    def is_atom(self) -> bool:
        """True: an atom is an atom (values answer False)."""
        ...
    def is_node(self) -> bool:
        """Is the atom a node? (False once it is no longer in its space.)"""
        ...
    def is_link(self) -> bool:
        """Is the atom a link? (False once it is no longer in its space.)"""
        ...
    def long_string(self) -> str:
        """The atom on one line, with its values: the form Atomese files and the network use.

        Returns:
            The text (``#<invalid #N>`` for an atom no longer in its space).

        Raises:
            RuntimeError: the text would be too large.
        """
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is the same atom (same handle, same space hierarchy)."""
        ...
    def __ne__(self, value: object, /) -> bool:
        """Whether ``value`` is not the same atom."""
        ...
    def __lt__(self, value: Atom, /) -> bool:
        """Orders atoms by content, as the dumps do (then by handle)."""
        ...
    def __le__(self, value: Atom, /) -> bool:
        """Orders atoms by content, as the dumps do (then by handle)."""
        ...
    def __gt__(self, value: Atom, /) -> bool:
        """Orders atoms by content, as the dumps do (then by handle)."""
        ...
    def __ge__(self, value: Atom, /) -> bool:
        """Orders atoms by content, as the dumps do (then by handle)."""
        ...
    def __hash__(self) -> int:
        """A hash of the atom's handle."""
        ...
    def __repr__(self) -> str:
        """The atom in Atomese, as the Scheme REPL prints it."""
        ...
    def __str__(self) -> str:
        """The atom in Atomese, as the Scheme REPL prints it (as ``repr``)."""
        ...

@final
class TruthValue:
    """A truth value.

    ``TruthValue(strength, confidence)`` is upstream's SimpleTruthValue;
    ``CountTruthValue(mean, confidence, count)`` the counting kind.
    """

    @property
    def type(self) -> int:
        """The type's number (``types.SimpleTruthValue`` or ``types.CountTruthValue``)."""
        ...
    def __new__(cls, strength: float = 1.0, confidence: float = 0.0) -> TruthValue:
        """Makes a simple truth value.

        Args:
            strength: the strength (mean).
            confidence: how sure the strength is, from 0 to 1.

        Returns:
            The truth value.

        Raises:
            TypeError: an argument is not a number.
        """
        ...
    @property
    def mean(self) -> float:
        """Strength (simple) or mean (count)."""
        ...
    @property
    def strength(self) -> float:
        """Upstream's other name for the mean."""
        ...
    @property
    def confidence(self) -> float:
        """How sure the strength is, from 0 to 1."""
        ...
    @property
    def count(self) -> float:
        """The count (for a simple truth value, derived from the confidence as upstream does)."""
        ...
    @property
    def type_name(self) -> str:
        """"SimpleTruthValue" or "CountTruthValue"."""
        ...
    def to_list(self) -> list[float]:
        """The numbers: [strength, confidence] or [mean, confidence, count].

        Returns:
            The numbers, as a list.
        """
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is a TruthValue of the same kind and numbers."""
        ...
    def __hash__(self) -> int:
        """A hash of the numbers."""
        ...
    def __repr__(self) -> str:
        """The truth value in Atomese, e.g. ``(stv 1 0)``."""
        ...

def CountTruthValue(mean: float, confidence: float, count: float) -> TruthValue:
    """Makes a counting truth value.

    Args:
        mean: the mean.
        confidence: the confidence, from 0 to 1.
        count: the count.

    Returns:
        The truth value (a TruthValue of type ``types.CountTruthValue``).

    Raises:
        TypeError: an argument is not a number.
    """
    ...

@final
class FloatValue:
    """A vector of floats."""

    @property
    def type(self) -> int:
        """``types.FloatValue``."""
        ...
    @property
    def type_name(self) -> str:
        """The type's name."""
        ...
    def is_atom(self) -> bool:
        """False: a value is not an atom."""
        ...
    def is_node(self) -> bool:
        """False: a value is not a node."""
        ...
    def is_link(self) -> bool:
        """False: a value is not a link."""
        ...
    def is_a(self, t: _TypeArg) -> bool:
        """Is the value's type ``t``, or a subtype of it?

        Args:
            t: the type, by number or by name.

        Returns:
            True if FloatValue is ``t`` or a subtype of it.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def __new__(cls, values: Union[float, Sequence[float]]) -> FloatValue:
        """Makes a FloatValue of one number or a sequence of numbers.

        Args:
            values: a number (not a bool) or a sequence of numbers.

        Returns:
            The value.

        Raises:
            TypeError: ``values`` is neither.
        """
        ...
    def to_list(self) -> list[float]:
        """The floats, as a list."""
        ...
    def __len__(self) -> int:
        """Number of floats."""
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is a FloatValue of the same floats."""
        ...
    def __repr__(self) -> str:
        """The value in Atomese, e.g. ``(FloatValue 1 2.5)``."""
        ...

@final
class StringValue:
    """A vector of strings."""

    @property
    def type(self) -> int:
        """``types.StringValue``."""
        ...
    @property
    def type_name(self) -> str:
        """The type's name."""
        ...
    def is_atom(self) -> bool:
        """False: a value is not an atom."""
        ...
    def is_node(self) -> bool:
        """False: a value is not a node."""
        ...
    def is_link(self) -> bool:
        """False: a value is not a link."""
        ...
    def is_a(self, t: _TypeArg) -> bool:
        """Is the value's type ``t``, or a subtype of it?

        Args:
            t: the type, by number or by name.

        Returns:
            True if StringValue is ``t`` or a subtype of it.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def __new__(cls, values: Union[str, Sequence[str]]) -> StringValue:
        """Makes a StringValue of one string or a sequence of strings.

        Args:
            values: a string or a sequence of strings.

        Returns:
            The value.

        Raises:
            TypeError: ``values`` is neither.
        """
        ...
    def to_list(self) -> list[str]:
        """The strings, as a list."""
        ...
    def __len__(self) -> int:
        """Number of strings."""
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is a StringValue of the same strings."""
        ...
    def __repr__(self) -> str:
        """The value in Atomese, e.g. ``(StringValue "a" "b")``."""
        ...

@final
class LinkValue:
    """A vector of values and atoms."""

    @property
    def type(self) -> int:
        """``types.LinkValue``."""
        ...
    @property
    def type_name(self) -> str:
        """The type's name."""
        ...
    def is_atom(self) -> bool:
        """False: a value is not an atom."""
        ...
    def is_node(self) -> bool:
        """False: a value is not a node."""
        ...
    def is_link(self) -> bool:
        """False: a value is not a link."""
        ...
    def is_a(self, t: _TypeArg) -> bool:
        """Is the value's type ``t``, or a subtype of it?

        Args:
            t: the type, by number or by name.

        Returns:
            True if LinkValue is ``t`` or a subtype of it.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def __new__(cls, values: Union[_Value, Iterable[_Value]]) -> LinkValue:
        """Makes a LinkValue of one value or an iterable of them.

        Args:
            values: an Atom, TruthValue, FloatValue, StringValue, LinkValue or
                AtomSpace, or an iterable of them.

        Returns:
            The value.

        Raises:
            TypeError: ``values`` is not iterable, or a member is none of the kinds above.
            ValueError: LinkValues would nest deeper than the limit.
        """
        ...
    def to_list(self) -> list[_PyValue]:
        """The atoms and values, as a list."""
        ...
    def __len__(self) -> int:
        """Number of members."""
        ...
    def __eq__(self, value: object, /) -> bool:
        """Whether ``value`` is a LinkValue with equal members, in order."""
        ...
    def __str__(self) -> str:
        """Upstream's printed form: each member on its own line, two spaces in."""
        ...
    def __repr__(self) -> str:
        """The value on one line, e.g. ``(LinkValue (Concept "a") (FloatValue 1))``."""
        ...

@final
class TypeConstructor:
    """Makes atoms of one type in the default space (or in ``atomspace=``).

    ``ConceptNode("name", tv=None)``, ``InheritanceLink(a, b, tv=None)``.
    """

    def __new__(cls, t: _TypeArg) -> TypeConstructor:
        """Makes the constructor of type ``t``.

        Args:
            t: the type, by number or by name.

        Returns:
            The constructor.

        Raises:
            TypeError: ``t`` is neither an int nor a str.
            ValueError: ``t`` names no type.
        """
        ...
    def __call__(self, *args: Union[str, Atom, Iterable[Atom], TruthValue], tv: Optional[TruthValue] = None, atomspace: Optional[AtomSpace] = None) -> Atom:
        """Adds (or finds) the atom of this type in ``atomspace`` (default: the default space).

        A node takes its name; a link its members as arguments or one iterable
        of them (an SexprAst one string, parsed). A TruthValue may come last
        among the arguments instead of ``tv``.

        Args:
            *args: the node's name, or the link's members.
            tv: a truth value to set on the atom.
            atomspace: the space to add to.

        Returns:
            The atom.

        Raises:
            TypeError: two truth values, a node without exactly one name or a
                name that is not a str, or a member that is not an Atom.
            AtomTypeError: the type is not an atom type.
            ValueError: an SexprAst's text does not parse.
            RuntimeError: a member is no longer in its space.
        """
        ...
    @property
    def type(self) -> int:
        """The type this constructor makes."""
        ...
    def __repr__(self) -> str:
        """``<type constructor NAME>``."""
        ...

def set_default_atomspace(atomspace: AtomSpace) -> None:
    """Makes ``atomspace`` the default space.

    Of this thread, replacing its innermost pushed one; with none pushed, of
    every thread that has none.

    Args:
        atomspace: the new default space.

    Raises:
        TypeError: ``atomspace`` is not an AtomSpace.
    """
    ...
def get_default_atomspace() -> AtomSpace:
    """The default space: what type constructors add atoms to.

    Returns:
        This thread's innermost pushed space, else the process-wide one (made on first use).
    """
    ...
def push_default_atomspace(atomspace: Optional[AtomSpace] = None) -> AtomSpace:
    """Pushes ``atomspace``, or a new child of the current default, as this thread's default space.

    Args:
        atomspace: the space to push; None for a new child of the current default.

    Returns:
        The space pushed.

    Raises:
        TypeError: ``atomspace`` is not an AtomSpace.
    """
    ...
def pop_default_atomspace() -> AtomSpace:
    """Pops this thread's default space; the one below (or the process-wide one) becomes the default.

    Returns:
        The space popped.

    Raises:
        RuntimeError: this thread has pushed no space.
    """
    ...
def execute_atom(atomspace: AtomSpace, atom: Atom) -> _PyValue:
    """Executes a query or another executable atom.

    Queries are GetLink, BindLink, MeetLink, QueryLink, SatisfactionLink and DualLink.

    Args:
        atomspace: the space to run in.
        atom: the atom to execute.

    Returns:
        An Atom, a Value or a TruthValue.

    Raises:
        TypeError: ``atom`` is not an Atom.
        ValueError: the query is bad.
        RuntimeError: a grounded procedure failed, the query timed out, or
            ``atom`` is no longer in its space.
        KeyboardInterrupt: Ctrl-C (or what a signal handler raised) stopped
            the query, within about 50 ms.
    """
    ...
def evaluate_atom(atomspace: AtomSpace, atom: Atom) -> TruthValue:
    """Evaluates an atom (a SatisfactionLink, EqualLink, ...) to a TruthValue.

    Args:
        atomspace: the space to run in.
        atom: the atom to evaluate.

    Returns:
        The truth value it gives.

    Raises:
        TypeError: ``atom`` is not an Atom.
        ValueError: the atom is not evaluatable, or the query is bad.
        RuntimeError: a grounded procedure failed, or ``atom`` is no longer in its space.
        KeyboardInterrupt: Ctrl-C (or what a signal handler raised) stopped
            the evaluation, within about 50 ms.
    """
    ...
def scheme_eval(atomspace: AtomSpace, text: str) -> str:
    """Evaluates Scheme (Guile, with (opencog) loaded) over the space; what it printed and its value.

    Args:
        atomspace: the space that is current during the evaluation.
        text: the Scheme code.

    Returns:
        What it printed and its value, as the REPL shows them, ending with a
        newline (so even a definition gives "\\n").

    Raises:
        RuntimeError: a Scheme error (with Guile's message), or the module was
            built without Scheme.
    """
    ...
def scheme_eval_v(atomspace: AtomSpace, text: str) -> _PyValue:
    """Evaluates Scheme ``text`` with ``atomspace`` current; the value it gives, or None.

    Args:
        atomspace: the space that is current during the evaluation.
        text: the Scheme code.

    Returns:
        The value (a FloatValue, StringValue, LinkValue, TruthValue, Atom, ...),
        or None if it gives none.

    Raises:
        RuntimeError: a Scheme error, or the module was built without Scheme.
    """
    ...
def scheme_eval_h(atomspace: AtomSpace, text: str) -> Optional[Atom]:
    """Evaluates Scheme over the space; the atom it gives, or None.

    Args:
        atomspace: the space that is current during the evaluation.
        text: the Scheme code.

    Returns:
        The atom, or None if the value is not an atom of that space's hierarchy.

    Raises:
        RuntimeError: a Scheme error, or the module was built without Scheme.
    """
    ...
def scheme_eval_as(text: str) -> Optional[AtomSpace]:
    """Evaluates Scheme with the default atomspace current; the atomspace it gives, or None.

    Args:
        text: the Scheme code.

    Returns:
        The AtomSpace, or None if the value is not an atomspace.

    Raises:
        RuntimeError: a Scheme error, or the module was built without Scheme.
    """
    ...
def load_file(path: Union[str, PathLike[str]], atomspace: Optional[AtomSpace] = None, data_only: bool = False, strict: bool = False) -> None:
    """Loads an Atomese (``.scm``) file into ``atomspace``, as ``guile -l FILE`` would.

    Data goes through the core's reader; what is Scheme (definitions, module
    uses, calls) is evaluated by Guile, unless ``data_only``, which refuses it.
    Invalid UTF-8 is read as U+FFFD, each place reported on stderr.

    Args:
        path: the file.
        atomspace: the space to load into; default: the default space.
        data_only: read atoms and values only.
        strict: refuse a file that is not valid UTF-8, loading nothing of it.

    Raises:
        OSError: the file cannot be opened.
        ValueError: the file cannot be read or evaluated (the message says
            where); what came before the error is loaded. Under ``strict``,
            invalid UTF-8 (its line and column said), with nothing loaded.
    """
    ...
def load_str(text: str, atomspace: Optional[AtomSpace] = None) -> list[Atom]:
    """Adds the atoms of Atomese text to ``atomspace``.

    Args:
        text: Atomese data (atoms and values, no Scheme code).
        atomspace: the space to add to; default: the default space.

    Returns:
        The text's top-level atoms.

    Raises:
        ValueError: the text is not Atomese data.
    """
    ...
def dump(atomspace: Optional[AtomSpace] = None, path: Optional[Union[str, PathLike[str]]] = None) -> Optional[str]:
    """The space as Atomese text: every atom no link holds, with its values.

    Args:
        atomspace: the space; default: the default space.
        path: a file to write the text to.

    Returns:
        The text, or None when it was written to ``path``.

    Raises:
        OSError: ``path`` cannot be written.
    """
    ...
def type_table() -> list[tuple[str, int, Optional[str], bool]]:
    """Every type.

    Returns:
        ``(name, number, short name or None, is an atom type: a node or link)`` for each.
    """
    ...
def type_of_name(name: str) -> Optional[int]:
    """The type of this name, or None.

    Args:
        name: a type name, e.g. "ConceptNode".

    Returns:
        The type's number, or None if no type has the name.
    """
    ...
def get_type_name(t: _TypeArg) -> str:
    """The name of type ``t``, as upstream's name server answers.

    Args:
        t: the type, by number or by name.

    Returns:
        The name: "" for a number no type has, and upstream's name
        ("*** Bottom Type! ***") for ``types.NO_TYPE``.

    Raises:
        TypeError: ``t`` is neither an int nor a str.
        ValueError: ``t`` is a name no type has.
    """
    ...
def is_a(t: _TypeArg, parent: _TypeArg) -> bool:
    """Is ``t`` the type ``parent`` or one of its subtypes?

    Args:
        t: the type, by number or by name.
        parent: the type to compare with, by number or by name.

    Returns:
        True if ``t`` is ``parent`` or a subtype of it.

    Raises:
        TypeError: a type is neither an int nor a str.
        ValueError: a type names no type.
    """
    ...
def get_free_variables(atom: Atom) -> list[Atom]:
    """The atom's free variables.

    Args:
        atom: the atom.

    Returns:
        Its VariableNodes and GlobNodes that no scope inside it binds, in
        order of first appearance.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: ``atom`` is no longer in its space.
    """
    ...
def is_closed(atom: Atom) -> bool:
    """Whether the atom has no free variables.

    Args:
        atom: the atom.

    Returns:
        True if it has no free variables.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: ``atom`` is no longer in its space.
    """
    ...
def register_type(name: str, parents: Sequence[_TypeArg], short_name: Optional[str] = None) -> int:
    """Adds a type to the table (as upstream modules do).

    Registering a type again with the same parents gives its number.

    Args:
        name: the new type's name.
        parents: its parent types (at least one), by number or by name.
        short_name: a short name for its constructor.

    Returns:
        The type's number.

    Raises:
        ValueError: no parents, a bad name, a parent that names no type, or
            the type exists with other parents.
        TypeError: ``parents`` is not a sequence (a str is refused), or a
            parent is neither an int nor a str.
    """
    ...
def load_types(family: str) -> list[int]:
    """Enables a type family of upstream's other modules, as importing the module did upstream.

    Args:
        family: "nlp", "bio", "pln", "spacetime", "attention" or "legacy".

    Returns:
        The numbers of the family's types.

    Raises:
        ValueError: there is no such family.
    """
    ...
def _bench_space(atomspace: AtomSpace, seed: int, size: int, link_fraction: float) -> list[Atom]:
    """Grows ``atomspace`` with the random atoms of ``atomweave bench``.

    The same seed gives the same space as the CLI's layers. For
    ``atomweave.atomspace_bm``, the Python layer of the bench.

    Args:
        atomspace: the space to grow.
        seed: the random seed.
        size: how many atoms to make.
        link_fraction: the share of links among them.

    Returns:
        The atoms, in the order made.
    """
    ...

# StorageNode calls (storage: a StorageNode atom; default: the last opened).
def cog_open(storage: Atom) -> None:
    """Opens the store a StorageNode atom names and makes it the current one.

    Args:
        storage: a StorageNode atom (RocksStorageNode, LmdbStorageNode, FileStorageNode, ...).

    Raises:
        TypeError: ``storage`` is not an Atom.
        OSError: the store cannot be opened.
        RuntimeError: ``storage`` is not a StorageNode, or is no longer in its space.
    """
    ...
def cog_close(storage: Optional[Atom] = None) -> None:
    """Flushes and closes the store (the current one by default).

    Args:
        storage: the StorageNode of the store to close.

    Raises:
        RuntimeError: no such store is open.
        OSError: the store fails to flush.
    """
    ...
def store_atom(atom: Atom, storage: Optional[Atom] = None) -> None:
    """Stores the atom, with its values.

    Args:
        atom: the atom.
        storage: the StorageNode of an open store; default: the current one.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to write.
    """
    ...
def store_value(atom: Atom, key: Atom, storage: Optional[Atom] = None) -> None:
    """Stores the atom's value under ``key``.

    Args:
        atom: the atom.
        key: the value's key.
        storage: the StorageNode of an open store; default: the current one.

    Raises:
        TypeError: ``atom`` or ``key`` is not an Atom.
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to write.
    """
    ...
def update_value(atom: Atom, key: Atom, delta: Sequence[float], storage: Optional[Atom] = None) -> _PyValue:
    """Adds ``delta`` to the atom's value under ``key``, in the space and, atomically, in the store.

    Under the truth-value key, ``delta`` adds to a count truth value's count.

    Args:
        atom: the atom.
        key: the value's key.
        delta: the numbers to add.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        The updated value.

    Raises:
        TypeError: ``atom`` or ``key`` is not an Atom, or ``delta`` not a sequence of numbers.
        RuntimeError: the store is not open (or none is), or cannot update
            values (a file store).
        OSError: the store fails to write.
    """
    ...
def fetch_atom(atom: Atom, storage: Optional[Atom] = None) -> Atom:
    """Loads the atom's stored values into its space.

    Args:
        atom: the atom.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        The atom given.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: the store is not open (or none is), or cannot fetch
            single atoms (a file store).
        OSError: the store fails to read.
    """
    ...
def fetch_value(atom: Atom, key: Atom, storage: Optional[Atom] = None) -> Atom:
    """Loads the atom's stored value under ``key``.

    Args:
        atom: the atom.
        key: the value's key.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        The atom given.

    Raises:
        TypeError: ``atom`` or ``key`` is not an Atom.
        RuntimeError: the store is not open (or none is), or cannot fetch
            single values (a file store).
        OSError: the store fails to read.
    """
    ...
def fetch_incoming_set(atom: Atom, recursive: bool = False, storage: Optional[Atom] = None) -> int:
    """Loads the stored links holding the atom (with ``recursive``, the links holding those too).

    Args:
        atom: the atom.
        recursive: also load the links holding the links loaded.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        How many links were loaded.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: the store is not open (or none is), or cannot fetch
            incoming sets (a file store).
        OSError: the store fails to read.
    """
    ...
def fetch_incoming_by_type(atom: Atom, t: _TypeArg, storage: Optional[Atom] = None) -> int:
    """Loads the stored links of type ``t`` holding the atom.

    Args:
        atom: the atom.
        t: the link type, by number or by name.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        How many links were loaded.

    Raises:
        TypeError: ``atom`` is not an Atom, or ``t`` neither an int nor a str.
        ValueError: ``t`` names no type.
        RuntimeError: the store is not open (or none is), or cannot fetch
            incoming sets (a file store).
        OSError: the store fails to read.
    """
    ...
def load_atoms_of_type(t: _TypeArg, atomspace: Optional[AtomSpace] = None, storage: Optional[Atom] = None) -> int:
    """Loads every stored atom of type ``t`` into ``atomspace``.

    Args:
        t: the type, by number or by name.
        atomspace: the space to load into; default: the default space.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        How many atoms were loaded.

    Raises:
        TypeError: ``t`` is neither an int nor a str.
        ValueError: ``t`` names no type.
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to read.
    """
    ...
def load_atomspace(atomspace: Optional[AtomSpace] = None, storage: Optional[Atom] = None) -> int:
    """Loads every stored atom and value into ``atomspace``.

    Args:
        atomspace: the space to load into; default: the default space.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        How many atoms were loaded.

    Raises:
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to read.
    """
    ...
def store_atomspace(atomspace: Optional[AtomSpace] = None, storage: Optional[Atom] = None) -> int:
    """Stores every atom and value of ``atomspace``.

    Args:
        atomspace: the space to store; default: the default space.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        How many atoms were stored.

    Raises:
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to write.
    """
    ...
def barrier(storage: Optional[Atom] = None) -> None:
    """Makes everything stored so far durable.

    Args:
        storage: the StorageNode of an open store; default: the current one.

    Raises:
        RuntimeError: the store is not open (or none is), or it fails.
        OSError: the store fails to write.
    """
    ...
def cog_delete(atom: Atom, storage: Optional[Atom] = None) -> bool:
    """Deletes the atom from the store and its space; False if links hold it.

    Args:
        atom: the atom.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        True if it was deleted, False if links hold it.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: the store is not open (or none is), or cannot delete
            atoms (a file store).
        OSError: the store fails to write.
    """
    ...
def cog_delete_recursive(atom: Atom, storage: Optional[Atom] = None) -> bool:
    """Deletes the atom and every link holding it, from the store and its space.

    Args:
        atom: the atom.
        storage: the StorageNode of an open store; default: the current one.

    Returns:
        Whether the atom was deleted.

    Raises:
        TypeError: ``atom`` is not an Atom.
        RuntimeError: the store is not open (or none is), or cannot delete
            atoms (a file store).
        OSError: the store fails to write.
    """
    ...
