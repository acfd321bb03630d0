"""The ``opencog`` package: classic scripts, imports unchanged, run on atomweave."""

import subprocess
import sys
import textwrap

import pytest

MODULES = ["atomspace", "type_constructors", "utilities", "execute", "exec", "bindlink", "scheme",
           "scheme_wrapper", "logger", "storage", "storage_rocks", "nameserver"]


@pytest.mark.parametrize("name", MODULES)
def test_each_upstream_module_is_atomweaves_api(name):
    import importlib

    import atomweave
    module = importlib.import_module("opencog." + name)
    assert module.__doc__
    for attr in ("AtomSpace", "ConceptNode", "types", "execute_atom", "initialize_opencog", "scheme_eval_v"):
        assert getattr(module, attr) is getattr(atomweave, attr)


@pytest.mark.scheme
def test_a_classic_script_runs_with_its_imports_unchanged(tmp_path):
    script = tmp_path / "classic.py"
    script.write_text(textwrap.dedent("""
        from opencog.atomspace import AtomSpace, TruthValue, types, get_type_name
        from opencog.type_constructors import *
        from opencog.utilities import initialize_opencog, finalize_opencog
        from opencog.scheme_wrapper import scheme_eval, scheme_eval_v
        from opencog.logger import log
        import opencog.atomspace

        space = AtomSpace()
        initialize_opencog(space)
        cat = ConceptNode("cat", tv=TruthValue(0.9, 0.8))
        InheritanceLink(cat, ConceptNode("animal"))
        cat.set_value(PredicateNode("weight"), FloatValue([4.5, 5.0]))
        assert isinstance(space, opencog.atomspace.AtomSpace)
        assert get_type_name(cat.type) == "ConceptNode"
        print(len(space.get_atoms_by_type(types.Link)), space.size())
        print(scheme_eval_v(space, '(cog-value (Concept "cat") (Predicate "weight"))'))
        print(scheme_eval_v(space, '(Concept "cat")'))
        finalize_opencog()
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["1 4", "(FloatValue 4.5 5)", '(Concept "cat" (stv 0.9 0.8))']


@pytest.mark.scheme
def test_scheme_eval_v_gives_none_for_what_is_no_value(space):
    from atomweave import scheme_eval_v
    assert scheme_eval_v(space, "42") is None
    assert scheme_eval_v(space, "(stv 0.5 0.5)") == __import__("atomweave").TruthValue(0.5, 0.5)
