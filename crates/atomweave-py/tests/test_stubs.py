"""The type stubs (_atomweave.pyi) describe the native module as it is."""

import ast
import inspect
import pathlib

import atomweave._atomweave as native
from conftest import PORTABLE

STUB = pathlib.Path(native.__file__).with_name("_atomweave.pyi")
if not STUB.exists():  # an editable install keeps the stub in the source tree
    STUB = pathlib.Path(__file__).parents[1] / "python" / "atomweave" / "_atomweave.pyi"


def _stub():
    tree = ast.parse(STUB.read_text())
    top = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            top[node.name] = None
    return top


def test_every_native_name_has_a_stub_and_back():
    stub = _stub()
    public = {n for n in dir(native) if not n.startswith("__")}
    # The portable module leaves the benchmark's pieces out (the bench feature).
    left_out = {"_bench_space"} if PORTABLE else set()
    assert public == set(stub) - left_out, (public ^ (set(stub) - left_out))


def test_every_stubbed_method_exists():
    for name, members in _stub().items():
        if members is None:
            continue
        cls = getattr(native, name)
        for m in members:
            assert hasattr(cls, m), f"{name}.{m} is in the stub but not in the module"


def test_native_classes_have_their_methods_stubbed():
    stub = _stub()
    for name, members in stub.items():
        if members is None:
            continue
        cls = getattr(native, name)
        # An exception class's own members are BaseException's, stubbed by typeshed.
        inherited = set(dir(BaseException)) if issubclass(cls, BaseException) else set()
        own = {m for m, _ in inspect.getmembers(cls) if not m.startswith("__")} - inherited
        assert own <= members, f"{name}: not in the stub: {own - members}"


def test_generated_stubs_are_current():
    # types.pyi, type_constructors.pyi and __init__.pyi's __all__ come from the type table.
    import subprocess
    import sys

    gen = pathlib.Path(__file__).parents[3] / "scripts" / "gen-stubs.py"
    r = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_stubbed_class_and_function_has_a_docstring():
    missing = []
    for path in sorted(STUB.parent.glob("*.pyi")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node) is None:
                missing.append(f"{path.name}:{node.lineno} {node.name}")
    assert not missing, missing
