"""The public surface: every name of `atomweave.__all__` is there, is what it
claims to be, and is documented."""

import inspect

import pytest

import atomweave
from atomweave import type_constructors, types

# Everything __all__ holds besides the type constructors.
CORE_NAMES = {
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
}

# Public members of each class, as the classic API names them.
CLASS_MEMBERS = {
    "Atom": {
        "name", "out", "incoming", "incoming_by_type", "arity", "tv", "type", "type_name",
        "atomspace", "handle", "get_value", "set_value", "get_keys", "is_a", "is_node", "is_link",
        "long_string",
    },
    "AtomSpace": {
        "add", "add_node", "add_link", "remove", "clear", "get_atoms_by_type", "get_node",
        "get_link", "size", "set_value", "set_truthvalue", "new_child", "bases",
    },
    "TruthValue": {"mean", "strength", "confidence", "count", "type_name", "to_list"},
    "FloatValue": {"to_list"},
    "StringValue": {"to_list"},
    "LinkValue": {"to_list"},
    "TypeConstructor": {"type"},
}


def test_all_has_no_duplicates():
    assert len(atomweave.__all__) == len(set(atomweave.__all__))


def test_all_is_core_names_plus_constructors():
    assert set(atomweave.__all__) == CORE_NAMES | set(type_constructors.__all__)


@pytest.mark.parametrize("name", sorted(CORE_NAMES))
def test_every_core_name_resolves(name):
    obj = getattr(atomweave, name)
    assert obj is not None
    if name == "types":
        assert inspect.ismodule(obj)
    else:
        assert callable(obj)


def test_every_constructor_in_all_resolves():
    for name in type_constructors.__all__:
        ctor = getattr(atomweave, name)
        assert isinstance(ctor, atomweave.TypeConstructor), name
        assert ctor.type == getattr(types, name), name


def test_star_import_gives_classic_names_and_keeps_classes():
    ns = {}
    exec("from atomweave import *", ns)
    for name in ["AtomSpace", "TruthValue", "types", "ConceptNode", "InheritanceLink", "GetLink",
                 "set_default_atomspace", "get_default_atomspace", "execute_atom", "evaluate_atom"]:
        assert name in ns, name
    # Constructors of the abstract types must not shadow the Atom class.
    assert ns["Atom"] is atomweave.Atom
    assert isinstance(ns["Atom"], type)
    assert "Atom" not in type_constructors.__all__


def test_star_import_of_type_constructors():
    ns = {}
    exec("from atomweave.type_constructors import *", ns)
    assert set(type_constructors.__all__) <= set(ns)
    assert ns["ConceptNode"].type == types.ConceptNode


@pytest.mark.parametrize("cls", sorted(CLASS_MEMBERS))
def test_class_members_exist(cls):
    members = {m for m in dir(getattr(atomweave, cls)) if not m.startswith("_")}
    assert CLASS_MEMBERS[cls] <= members, CLASS_MEMBERS[cls] - members


@pytest.mark.parametrize("name", sorted(CORE_NAMES - {"types"}))
def test_core_names_have_docstrings(name):
    assert (getattr(atomweave, name).__doc__ or "").strip(), name


def test_modules_have_docstrings():
    for mod in (atomweave, types, type_constructors):
        assert (mod.__doc__ or "").strip(), mod.__name__


def test_classes_are_in_the_atomweave_module():
    for name in ["Atom", "AtomSpace", "TruthValue", "FloatValue", "StringValue", "LinkValue", "TypeConstructor"]:
        assert getattr(atomweave, name).__module__ == "atomweave", name


def test_every_public_method_has_a_docstring():
    missing = []
    for cls, members in CLASS_MEMBERS.items():
        for m in members:
            if not (getattr(getattr(atomweave, cls), m).__doc__ or "").strip():
                missing.append(f"{cls}.{m}")
    assert missing == []


def test_py_typed_marker_is_shipped():
    import pathlib

    assert (pathlib.Path(atomweave.__file__).parent / "py.typed").exists()
