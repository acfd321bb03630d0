"""The portable module (the wheel, ATOMWEAVE_PORTABLE=1): what it leaves
out says so, and what it keeps works without Guile."""

import subprocess
import sys

import pytest
from conftest import PORTABLE

from atomweave import AtomSpace, load_file, scheme_eval, scheme_eval_as, scheme_eval_h, scheme_eval_v, types

pytestmark = pytest.mark.skipif(not PORTABLE, reason="the development module holds Scheme and the benchmark pieces")


def test_the_scheme_calls_say_the_build_has_no_scheme():
    space = AtomSpace()
    for call in (lambda: scheme_eval(space, "(+ 1 1)"), lambda: scheme_eval_h(space, "(Concept \"a\")"),
                 lambda: scheme_eval_v(space, "(FloatValue 1)"), lambda: scheme_eval_as("(cog-atomspace)")):
        with pytest.raises(RuntimeError, match="built without Scheme"):
            call()
    assert len(space) == 0


def test_load_file_reads_data_and_says_what_needs_scheme(tmp_path):
    data = tmp_path / "data.scm"
    data.write_text('(Inheritance (Concept "cat") (Concept "animal"))\n')
    space = AtomSpace()
    load_file(str(data), space)
    assert len(space.get_atoms_by_type(types.InheritanceLink)) == 1
    code = tmp_path / "code.scm"
    code.write_text('(define x 1)\n')
    with pytest.raises(ValueError, match="built without Scheme"):
        load_file(str(code), AtomSpace())


def test_atomspace_bm_says_it_needs_the_bench_pieces():
    r = subprocess.run([sys.executable, "-m", "atomweave.atomspace_bm"], capture_output=True, text=True)
    assert r.returncode != 0 and "bench feature" in r.stderr, r.stderr
