"""Atomese text: load_str, load_file, dump, and round trips with atoms
made in Python."""

from pathlib import Path

import pytest

import atomweave
from atomweave import (
    AtomSpace,
    CountTruthValue,
    FloatValue,
    LinkValue,
    StringValue,
    TruthValue,
    dump,
    is_a,
    load_file,
    load_str,
    types,
)
from atomweave.type_constructors import (
    ConceptNode,
    EvaluationLink,
    GetLink,
    InheritanceLink,
    ListLink,
    MemberLink,
    NumberNode,
    PredicateNode,
    SetLink,
    TypedVariableLink,
    TypeNode,
    VariableNode,
)

TV_KEY = "*-TruthValueKey-*"


def structure(space):
    """Every atom of a space by content, with its values: comparable across spaces."""
    def key(a):
        if a.is_node():
            return (a.type_name, a.name)
        members = [key(x) for x in a.out]
        if is_a(a.type, types.UnorderedLink):
            members.sort()  # canonical order may differ between spaces
        return (a.type_name, tuple(members))

    def val(v):
        if isinstance(v, LinkValue):
            return ("LinkValue", tuple(val(x) for x in v.to_list()))
        if hasattr(v, "handle"):
            return ("Atom", key(v))
        return (type(v).__name__, repr(v))

    out = {}
    for a in space:
        vals = {}
        for k in a.get_keys():
            vals[key(k)] = val(a.get_value(k))
        out[key(a)] = (repr(a.tv), tuple(sorted(vals.items())))
    return out


def build_rich_space(s):
    k = s.add_node(types.PredicateNode, "k")
    a = ConceptNode("A", tv=TruthValue(0.5, 0.25), atomspace=s)
    b = ConceptNode("B", tv=CountTruthValue(0.5, 0.25, 7), atomspace=s)
    c = ConceptNode('odd "name"\\ é', atomspace=s)
    i = InheritanceLink(a, b, tv=TruthValue(0.125, 0.75), atomspace=s)
    a.set_value(k, FloatValue([1.5, 2, 1e-20, 1 / 3]))
    b.set_value(k, StringValue(["x y", 'z"q']))
    i.set_value(k, LinkValue([a, FloatValue(3), StringValue("s"), LinkValue([b])]))
    SetLink(b, a, c, atomspace=s)
    ListLink(atomspace=s)
    EvaluationLink(PredicateNode("p", atomspace=s), ListLink(a, NumberNode("42", atomspace=s), atomspace=s),
                   tv=TruthValue(0.9, 0.8), atomspace=s)
    return s


def test_dump_then_load_gives_the_same_space():
    src = build_rich_space(AtomSpace())
    text = dump(src)
    assert isinstance(text, str) and text
    dst = AtomSpace()
    load_str(text, dst)
    assert len(dst) == len(src)
    assert structure(dst) == structure(src)


def test_dump_round_trip_of_truth_values_and_values():
    src = build_rich_space(AtomSpace())
    dst = AtomSpace()
    load_str(dump(src), dst)
    k = dst.get_node(types.PredicateNode, "k")
    a = dst.get_node(types.ConceptNode, "A")
    b = dst.get_node(types.ConceptNode, "B")
    assert a.tv == TruthValue(0.5, 0.25)
    assert b.tv == CountTruthValue(0.5, 0.25, 7)
    assert a.get_value(k) == FloatValue([1.5, 2, 1e-20, 1 / 3])
    assert b.get_value(k) == StringValue(["x y", 'z"q'])
    i = dst.get_link(types.InheritanceLink, [a, b])
    assert i.tv == TruthValue(0.125, 0.75)
    assert i.get_value(k) == LinkValue([a, FloatValue(3), StringValue("s"), LinkValue([b])])
    assert dst.get_node(types.ConceptNode, 'odd "name"\\ é') is not None


def test_dump_twice_round_trip_is_a_fixed_point():
    src = build_rich_space(AtomSpace())
    mid = AtomSpace()
    load_str(dump(src), mid)
    dst = AtomSpace()
    load_str(dump(mid), dst)
    assert structure(dst) == structure(src)


def test_dump_lists_roots_only():
    s = AtomSpace()
    a = s.add_node(types.ConceptNode, "a")
    s.add_link(types.ListLink, [a])
    lone = s.add_node(types.ConceptNode, "lone")
    text = dump(s)
    lines = [l for l in text.splitlines() if l.strip()]
    assert sorted(lines) == ['(ConceptNode "lone")', '(ListLink (ConceptNode "a"))']
    assert lone in s


def test_dump_of_empty_space():
    assert dump(AtomSpace()).strip() == ""


def test_dump_uses_default_space(space):
    ConceptNode("dflt")
    assert '(ConceptNode "dflt")' in dump()


def test_dump_and_load_file(tmp_path):
    src = build_rich_space(AtomSpace())
    path = tmp_path / "space.scm"
    assert dump(src, path) is None
    assert path.read_text() == dump(src)
    dst = AtomSpace()
    assert load_file(path, dst) is None
    assert len(dst) == len(src)
    dst2 = AtomSpace()
    load_file(str(path), dst2)
    assert len(dst2) == len(src)
    assert structure(dst) == structure(src)


def test_load_file_into_default_space(space, tmp_path):
    path = tmp_path / "x.scm"
    path.write_text('(ConceptNode "from-file")\n')
    load_file(path)
    assert space.get_node(types.ConceptNode, "from-file") is not None


def test_load_file_reads_invalid_utf8_as_u_fffd_or_strict_refuses(tmp_path, capfd):
    path = tmp_path / "bad.scm"
    path.write_bytes(b'(ConceptNode "a")\n(ConceptNode "b\xff")\n')
    dst = AtomSpace()
    load_file(path, dst)
    assert dst.get_node(types.ConceptNode, "b\ufffd") is not None
    assert f"{path}: line 2, column 16: invalid UTF-8" in capfd.readouterr().err
    strict = AtomSpace()
    with pytest.raises(ValueError, match="line 2, column 16: invalid UTF-8"):
        load_file(path, strict, strict=True)
    assert len(strict) == 0


def test_load_file_missing_is_os_error(tmp_path):
    with pytest.raises(OSError):
        load_file(tmp_path / "nope.scm", AtomSpace())


def test_load_file_bad_content_is_value_error_naming_the_file(tmp_path):
    path = tmp_path / "bad.scm"
    path.write_text('(ConceptNode "ok")\n(NoSuchTypeLink (ConceptNode "x"))\n')
    s = AtomSpace()
    with pytest.raises(ValueError, match="bad.scm"):
        load_file(path, s)
    assert s.get_node(types.ConceptNode, "ok") is not None  # earlier expressions stay


def test_dump_to_unwritable_path_is_os_error(tmp_path):
    with pytest.raises(OSError):
        dump(AtomSpace(), tmp_path / "no-such-dir" / "x.scm")


# --- upstream-style text gives the atoms the constructors give ---------------

def test_long_names_equal_constructors(space):
    atoms = load_str('''
        (InheritanceLink (ConceptNode "Ben") (ConceptNode "human"))
        (EvaluationLink (PredicateNode "likes") (ListLink (ConceptNode "Ben") (ConceptNode "pizza")))
    ''')
    assert atoms[0] == InheritanceLink(ConceptNode("Ben"), ConceptNode("human"))
    assert atoms[1] == EvaluationLink(PredicateNode("likes"), ListLink(ConceptNode("Ben"), ConceptNode("pizza")))
    assert len(space) == 7


def test_short_names_equal_constructors(space):
    [e] = load_str('(Evaluation (Predicate "breathe") (List (Concept "birds") (Concept "air")))')
    assert e == EvaluationLink(PredicateNode("breathe"), ListLink(ConceptNode("birds"), ConceptNode("air")))


def test_stv_in_text(space):
    [e] = load_str('''
        (EvaluationLink (stv 0.9 0.8)
            (PredicateNode "breathe")
            (ListLink (ConceptNode "birds" (stv 0.5 0.1)) (ConceptNode "air")))''')
    assert e.tv == TruthValue(0.9, 0.8)
    assert ConceptNode("birds").tv == TruthValue(0.5, 0.1)
    assert ConceptNode("air").tv == TruthValue()


def test_ctv_in_text(space):
    [a] = load_str('(ConceptNode "c" (ctv 0.5 0.25 9))')
    assert a.tv == CountTruthValue(0.5, 0.25, 9)


def test_av_is_accepted_and_stv_kept(space):
    [cat] = load_str('(ConceptNode "cat" (av 0 0 0) (stv 0.01 0.55))')
    assert cat == ConceptNode("cat")
    assert cat.tv == TruthValue(0.01, 0.55)


def test_alist_values_in_text(space):
    [a] = load_str(
        '(ConceptNode "a" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.3 0.4))'
        '(cons (PredicateNode "k")(FloatValue 1 2 3))))')
    assert a.tv == TruthValue(0.3, 0.4)
    assert a.get_value(PredicateNode("k")) == FloatValue([1, 2, 3])


def test_alist_after_link_members(space):
    [l] = load_str(
        '(InheritanceLink (ConceptNode "p") (ConceptNode "q") '
        '(alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.3 0.4))))')
    assert l == InheritanceLink(ConceptNode("p"), ConceptNode("q"))
    assert l.tv == TruthValue(0.3, 0.4)


def test_cog_set_value(space):
    load_str('(cog-set-value! (ConceptNode "p") (PredicateNode "k") (StringValue "a" "b"))')
    assert ConceptNode("p").get_value(PredicateNode("k")) == StringValue(["a", "b"])


def test_comments_and_whitespace(space):
    atoms = load_str('''
        ; a line comment
        #| a block
           comment |#
        (ConceptNode "x") ; trailing
        #;(ConceptNode "skipped")
        (ConceptNode   "y"
        )
    ''')
    assert atoms == [ConceptNode("x"), ConceptNode("y")]
    assert space.get_node(types.ConceptNode, "skipped") is None


def test_unordered_text_equals_constructor(space):
    [s1] = load_str('(Set (Concept "b") (Concept "a"))')
    [s2] = load_str('(SetLink (ConceptNode "a") (ConceptNode "b"))')
    assert s1 == s2 == SetLink(ConceptNode("a"), ConceptNode("b"))


def test_query_text_equals_constructor(space):
    [g] = load_str('''
        (GetLink
           (TypedVariableLink (VariableNode "$x") (TypeNode "ConceptNode"))
           (InheritanceLink (VariableNode "$x") (ConceptNode "human")))''')
    v = VariableNode("$x")
    assert g == GetLink(TypedVariableLink(v, TypeNode("ConceptNode")), InheritanceLink(v, ConceptNode("human")))


def test_member_link_from_text(space):
    [m] = load_str('(MemberLink (ConceptNode "x") (ConceptNode "S"))')
    assert m == MemberLink(ConceptNode("x"), ConceptNode("S"))


def test_load_str_returns_top_level_atoms_in_order(space):
    atoms = load_str('(Concept "c") (Concept "a") (List (Concept "b"))')
    assert [a.type for a in atoms] == [types.ConceptNode, types.ConceptNode, types.ListLink]
    assert atoms[0].name == "c" and atoms[1].name == "a"
    assert len(space) == 4


def test_load_str_into_given_space(space, other):
    [a] = load_str('(Concept "there")', other)
    assert a.atomspace == other
    assert len(space) == 0


def test_load_str_empty_text(space):
    assert load_str("") == []
    assert load_str("  ; only a comment\n") == []
    assert len(space) == 0


def test_repr_loads_back_to_the_same_atom(space):
    e = EvaluationLink(PredicateNode("breathe"),
                       ListLink(ConceptNode("birds", tv=TruthValue(0.5, 0.1)), ConceptNode("air")),
                       tv=TruthValue(0.9, 0.8))
    other = AtomSpace()
    [back] = load_str(repr(e), other)
    assert repr(back) == repr(e)
    assert back.tv == TruthValue(0.9, 0.8)


def test_long_string_loads_back(space):
    a = ConceptNode("a", tv=TruthValue(0.2, 0.3))
    l = ListLink(a, ConceptNode("b"))
    other = AtomSpace()
    [back] = load_str(l.long_string(), other)
    assert back.long_string() == l.long_string()
    assert other.get_node(types.ConceptNode, "a").tv == TruthValue(0.2, 0.3)


def test_number_precision_round_trip():
    s = AtomSpace()
    xs = [0.1, 1 / 3, 2 / 3, 1e-300, 123456789.123456789, -2.5e-7]
    a = s.add_node(types.ConceptNode, "a", TruthValue(1 / 3, 2 / 3))
    a.set_value(s.add_node(types.PredicateNode, "k"), FloatValue(xs))
    d = AtomSpace()
    load_str(dump(s), d)
    b = d.get_node(types.ConceptNode, "a")
    assert b.tv == TruthValue(1 / 3, 2 / 3)
    assert b.get_value(d.get_node(types.PredicateNode, "k")).to_list() == xs


# --- malformed text ----------------------------------------------------------

@pytest.mark.parametrize("text,where", [
    ('(ConceptNode "x"', "never closed"),
    ('(NoSuchTypeNode "x")', "NoSuchTypeNode"),
    (')', "unbalanced"),
    ('(ListLink (ConceptNode "a") "x")', "expected an atom"),
    ('(ConceptNode "a" "b")', "unexpected"),
    ('(ConceptNode (ConceptNode "x"))', "unexpected"),
    ('(ConceptNode "x" (stv a b))', "number"),
])
def test_malformed_text_is_value_error(text, where):
    s = AtomSpace()
    with pytest.raises(ValueError, match=where):
        load_str(text, s)
    assert len(s) == 0


def test_error_reports_line_and_column():
    with pytest.raises(ValueError, match=r"line 3, column 5"):
        load_str('(Concept "a")\n\n    (Bogus "x")', AtomSpace())


def test_bad_expression_adds_nothing_but_earlier_ones_stay():
    s = AtomSpace()
    with pytest.raises(ValueError):
        load_str('(Concept "ok") (List (Concept "half") (Bogus "x"))', s)
    assert s.get_node(types.ConceptNode, "ok") is not None
    assert s.get_node(types.ConceptNode, "half") is None
    assert len(s) == 1


def test_unordered_member_order_depends_on_content_only():
    s1 = AtomSpace()
    s1_set = s1.add_link(types.SetLink, [s1.add_node(types.ConceptNode, "a"), s1.add_node(types.ConceptNode, "b")])
    s2 = AtomSpace()
    s2.remove(s2.add_node(types.ConceptNode, "a"))  # the next "a" gets a later handle
    s2_set = s2.add_link(types.SetLink, [s2.add_node(types.ConceptNode, "a"), s2.add_node(types.ConceptNode, "b")])
    assert [x.name for x in s1_set.out] == [x.name for x in s2_set.out]
    assert s1_set.long_string() == s2_set.long_string()


ODD_NAMES = ["new\nline", "tab\there", "back\\slash", 'q"uote', "猫", "", " ", "nul\x00x", "\U0001F600", "(x)", ";x"]


def test_odd_names_round_trip_through_dump():
    s = AtomSpace()
    for n in ODD_NAMES:
        s.add_node(types.ConceptNode, n)
    d = AtomSpace()
    load_str(dump(s), d)
    assert sorted(a.name for a in d) == sorted(ODD_NAMES)


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_names_round_trip_through_repr(name):
    s = AtomSpace()
    a = s.add_node(types.ConceptNode, name)
    [b] = load_str(repr(a), AtomSpace())
    assert b.name == name
    [c] = load_str(a.long_string(), AtomSpace())
    assert c.name == name


CORPUS = Path(__file__).resolve().parents[3] / "tests" / "corpus"


@pytest.mark.scheme
def test_load_file_evaluates_the_scheme_in_a_data_file():
    s = AtomSpace()
    load_file(CORPUS / "definitions.scm", s)
    cat, dog = s.get_node(types.ConceptNode, "cat"), s.get_node(types.ConceptNode, "dog")
    assert s.get_link(types.SimilarityLink, [cat, dog]) is not None
    assert s.get_node(types.ConceptNode, "last") is not None


def test_load_file_data_only_refuses_scheme_and_says_so():
    s = AtomSpace()
    with pytest.raises(ValueError, match="`define` is Scheme"):
        load_file(CORPUS / "definitions.scm", s, data_only=True)


def test_load_types_enables_a_family():
    s = AtomSpace()
    with pytest.raises(ValueError, match="`bio` type family"):
        load_str('(GeneNode "IGF1")', s)
    made = atomweave.load_types("bio")
    assert types.GeneNode in made
    [g] = load_str('(GeneNode "IGF1")', s)
    assert g.type == types.GeneNode and atomweave.is_a(types.GeneNode, types.Node)
    with pytest.raises(ValueError, match="no type family"):
        atomweave.load_types("biology")


@pytest.mark.scheme
def test_types_registered_after_scheme_started_get_constructors():
    s = AtomSpace()
    atomweave.scheme_eval(s, '(Concept "warm-up")')
    t = atomweave.register_type("LateComerNode", [types.Node])
    atomweave.scheme_eval(s, '(LateComerNode "a")')
    assert s.get_node(t, "a") is not None


def test_attention_value_key_is_not_listed_as_an_atom():
    s = AtomSpace()
    load_str('(ConceptNode "sumo" (av 1 2 3))', s)
    assert s.get_node(types.PredicateNode, "*-AttentionValueKey-*") is not None
    assert s.get_atoms_by_type(types.PredicateNode) == []
    # It prints inside the atom whose value it keys, not as an atom.
    assert [line.split(" ")[0] for line in dump(s).splitlines()] == ["(ConceptNode"]
