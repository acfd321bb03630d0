"""Values: TruthValue, CountTruthValue, FloatValue, StringValue, LinkValue,
and atoms' key/value pairs."""

import math

import pytest

from atomweave import CountTruthValue, FloatValue, LinkValue, StringValue, TruthValue, types
from atomweave.type_constructors import ConceptNode, ListLink, PredicateNode

TV_KEY = "*-TruthValueKey-*"


# --- TruthValue -------------------------------------------------------------

def test_truthvalue_fields():
    tv = TruthValue(0.25, 0.5)
    assert tv.mean == 0.25
    assert tv.strength == 0.25
    assert tv.confidence == 0.5
    assert tv.type_name == "SimpleTruthValue"
    assert tv.to_list() == [0.25, 0.5]


def test_truthvalue_default_is_1_0():
    tv = TruthValue()
    assert tv.mean == 1.0 and tv.confidence == 0.0
    assert TruthValue(0.5).confidence == 0.0
    assert TruthValue(strength=0.5, confidence=0.25) == TruthValue(0.5, 0.25)


def test_truthvalue_count_from_confidence():
    # Upstream: count = K * c / (1 - c), K = 800.
    assert TruthValue(1, 0.0).count == 0.0
    assert math.isclose(TruthValue(1, 0.5).count, 800.0)
    assert math.isclose(TruthValue(1, 0.8).count, 3200.0)


def test_truthvalue_equality_and_hash():
    assert TruthValue(0.5, 0.5) == TruthValue(0.5, 0.5)
    assert TruthValue(0.5, 0.5) != TruthValue(0.5, 0.6)
    assert TruthValue(0.5, 0.5) != TruthValue(0.6, 0.5)
    assert hash(TruthValue(0.5, 0.5)) == hash(TruthValue(0.5, 0.5))
    assert len({TruthValue(0.5, 0.5), TruthValue(0.5, 0.5), TruthValue(1, 0)}) == 2
    assert TruthValue(0.5, 0.5) != (0.5, 0.5)
    assert TruthValue(0.5, 0.5) != [0.5, 0.5]


def test_truthvalue_repr():
    assert repr(TruthValue(0.9, 0.8)) == "(stv 0.9 0.8)"
    assert repr(TruthValue(1, 0)) == "(stv 1 0)"
    assert str(TruthValue(0.125, 0.5)) == "(stv 0.125 0.5)"


def test_truthvalue_is_immutable():
    tv = TruthValue(0.5, 0.5)
    with pytest.raises(AttributeError):
        tv.mean = 0.1
    assert tv.mean == 0.5


# --- CountTruthValue --------------------------------------------------------

def test_count_truthvalue():
    tv = CountTruthValue(0.5, 0.25, 7)
    assert isinstance(tv, TruthValue)
    assert tv.mean == 0.5
    assert tv.confidence == 0.25
    assert tv.count == 7.0
    assert tv.type_name == "CountTruthValue"
    assert tv.to_list() == [0.5, 0.25, 7.0]
    assert repr(tv) == "(ctv 0.5 0.25 7)"


def test_count_truthvalue_equality():
    assert CountTruthValue(0.5, 0.25, 7) == CountTruthValue(0.5, 0.25, 7)
    assert CountTruthValue(0.5, 0.25, 7) != CountTruthValue(0.5, 0.25, 8)
    assert CountTruthValue(0.5, 0.25, 7) != TruthValue(0.5, 0.25)
    assert hash(CountTruthValue(0.5, 0.25, 7)) == hash(CountTruthValue(0.5, 0.25, 7))


def test_count_truthvalue_on_an_atom(space):
    a = ConceptNode("a", tv=CountTruthValue(1, 0, 3))
    assert a.tv == CountTruthValue(1, 0, 3)
    assert a.tv.count == 3.0
    assert a.tv.type_name == "CountTruthValue"
    assert repr(a) == '(Concept "a" (ctv 1 0 3))'


# --- FloatValue -------------------------------------------------------------

def test_floatvalue():
    v = FloatValue([1.0, 2.5, -3])
    assert v.to_list() == [1.0, 2.5, -3.0]
    assert len(v) == 3
    assert repr(v) == "(FloatValue 1 2.5 -3)"


def test_floatvalue_of_one_number():
    assert FloatValue(2.5).to_list() == [2.5]
    assert FloatValue(3).to_list() == [3.0]
    assert FloatValue(1.0) == FloatValue([1.0])


def test_floatvalue_equality():
    assert FloatValue([1, 2, 3]) == FloatValue([1.0, 2.0, 3.0])
    assert FloatValue([1, 2, 3]) != FloatValue([1, 2])
    assert FloatValue([1, 2]) != StringValue(["1", "2"])
    assert FloatValue([1, 2]) != [1.0, 2.0]


def test_floatvalue_keeps_full_precision():
    xs = [0.1, 1 / 3, 1e-300, 1.7976931348623157e308, -0.0]
    assert FloatValue(xs).to_list() == xs


def test_floatvalue_empty():
    v = FloatValue([])
    assert len(v) == 0 and v.to_list() == []


# --- StringValue ------------------------------------------------------------

def test_stringvalue():
    v = StringValue(["a", "b c", 'd"e'])
    assert v.to_list() == ["a", "b c", 'd"e']
    assert len(v) == 3
    assert repr(v) == '(StringValue "a" "b c" "d\\"e")'


def test_stringvalue_of_one_string():
    assert StringValue("abc").to_list() == ["abc"]
    assert StringValue("abc") == StringValue(["abc"])
    assert StringValue("abc") != StringValue(["a", "b", "c"])


# --- LinkValue --------------------------------------------------------------

def test_linkvalue_holds_atoms_and_values(space):
    a = ConceptNode("a")
    v = LinkValue([a, FloatValue([1, 2]), StringValue("s"), TruthValue(0.5, 0.5), LinkValue([a])])
    items = v.to_list()
    assert len(v) == 5
    assert items[0] == a
    assert items[1] == FloatValue([1, 2])
    assert items[2] == StringValue("s")
    assert items[3] == TruthValue(0.5, 0.5)
    assert items[4] == LinkValue([a])
    assert repr(v) == '(LinkValue (Concept "a") (FloatValue 1 2) (StringValue "s") (stv 0.5 0.5) (LinkValue (Concept "a")))'


def test_linkvalue_equality(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    assert LinkValue([a, b]) == LinkValue([a, b])
    assert LinkValue([a, b]) != LinkValue([b, a])
    assert LinkValue([a]) != LinkValue([a, a])
    assert LinkValue([a]) != [a]
    assert LinkValue([]) == LinkValue([])


# --- values on atoms --------------------------------------------------------

def test_set_and_get_each_kind_of_value(space):
    a = ConceptNode("a")
    b = ConceptNode("b")
    k = PredicateNode("k")
    for v in [FloatValue([1, 2]), StringValue(["x", "y"]), LinkValue([b, FloatValue(3)]), TruthValue(0.5, 0.5),
              CountTruthValue(0.5, 0.5, 4)]:
        a.set_value(k, v)
        assert a.get_value(k) == v, v
        assert type(a.get_value(k)) is type(v)


def test_atom_as_value(space):
    a, b, k = ConceptNode("a"), ConceptNode("b"), PredicateNode("k")
    a.set_value(k, b)
    got = a.get_value(k)
    assert got == b
    assert got.atomspace == space


def test_plain_lists_become_values(space):
    a, k = ConceptNode("a"), PredicateNode("k")
    a.set_value(k, [1.0, 2.0])
    assert a.get_value(k) == FloatValue([1.0, 2.0])
    a.set_value(k, [1, 2])
    assert a.get_value(k) == FloatValue([1.0, 2.0])
    a.set_value(k, ["x", "y"])
    assert a.get_value(k) == StringValue(["x", "y"])


def test_missing_value_is_none(space):
    a = ConceptNode("a")
    assert a.get_value(PredicateNode("nothing")) is None


def test_set_value_none_removes_it(space):
    a, k = ConceptNode("a"), PredicateNode("k")
    a.set_value(k, FloatValue(1))
    a.set_value(k, None)
    assert a.get_value(k) is None
    assert k not in a.get_keys()


def test_values_are_per_key(space):
    a = ConceptNode("a")
    k1, k2 = PredicateNode("k1"), PredicateNode("k2")
    a.set_value(k1, FloatValue(1))
    a.set_value(k2, StringValue("two"))
    assert a.get_value(k1) == FloatValue(1)
    assert a.get_value(k2) == StringValue("two")
    a.set_value(k1, FloatValue(11))
    assert a.get_value(k1) == FloatValue(11)
    assert a.get_value(k2) == StringValue("two")


def test_values_are_per_atom(space):
    a, b, k = ConceptNode("a"), ConceptNode("b"), PredicateNode("k")
    a.set_value(k, FloatValue(1))
    assert b.get_value(k) is None
    assert ConceptNode("a").get_value(k) == FloatValue(1)


def test_any_atom_can_be_a_key(space):
    a = ConceptNode("a")
    key = ListLink(ConceptNode("x"), ConceptNode("y"))
    a.set_value(key, FloatValue(7))
    assert a.get_value(key) == FloatValue(7)
    assert key in a.get_keys()


def test_get_keys(space):
    a = ConceptNode("a")
    assert a.get_keys() == []
    k1, k2 = PredicateNode("k1"), PredicateNode("k2")
    a.set_value(k1, FloatValue(1))
    a.set_value(k2, FloatValue(2))
    assert set(a.get_keys()) == {k1, k2}
    assert len(a.get_keys()) == 2


def test_get_keys_includes_the_truth_value_key(space):
    a = ConceptNode("a")
    a.tv = TruthValue(0.5, 0.5)
    keys = a.get_keys()
    assert [k.name for k in keys] == [TV_KEY]
    assert keys[0].type == types.PredicateNode
    assert a.get_value(keys[0]) == TruthValue(0.5, 0.5)


def test_truth_value_through_its_key(space):
    a = ConceptNode("a")
    tv_key = PredicateNode(TV_KEY)
    a.set_value(tv_key, TruthValue(0.25, 0.75))
    assert a.tv == TruthValue(0.25, 0.75)
    assert a.get_value(tv_key) == TruthValue(0.25, 0.75)


@pytest.mark.xfail(reason="Atom.get_keys() adds the (PredicateNode \"*-TruthValueKey-*\") atom to the space as a side effect", strict=True)
def test_get_keys_does_not_change_the_space(space):
    a = ConceptNode("a", tv=TruthValue(0.5, 0.5))
    before = len(space)
    a.get_keys()
    assert len(space) == before
    assert space.get_node(types.PredicateNode, TV_KEY) is None


def test_set_value_on_the_space_and_the_atom_agree(space):
    a, k = ConceptNode("a"), PredicateNode("k")
    space.set_value(a, k, StringValue("v"))
    assert a.get_value(k) == StringValue("v")
    space.set_value(a, k, [1.0])
    assert a.get_value(k) == FloatValue(1.0)


def test_linkvalue_nested_too_deep_is_refused(space):
    # LinkValues nest at most 256 deep, as in a space: a loop that nests
    # them deeper gets a clear error, not a crash of the interpreter when
    # the chain is printed, compared, stored or freed.
    a, k = ConceptNode("deep"), PredicateNode("k")
    v = FloatValue([1])
    for _ in range(256):
        v = LinkValue([v])
    a.set_value(k, v)
    assert a.get_value(k) == v
    with pytest.raises(ValueError, match="nest at most 256 deep"):
        LinkValue([v])
    assert LinkValue([a.get_value(k).to_list()[0]]) == v


def test_linkvalue_sharing_too_much_is_refused(space):
    # A LinkValue of two copies of one, 64 times over, is 2^64 elements as
    # a store or a printout writes it out: a space refuses it at once.
    a, k = ConceptNode("shared"), PredicateNode("k")
    v = FloatValue([1])
    for _ in range(64):
        v = LinkValue([v, v])
    with pytest.raises(ValueError, match="more than 268435456 elements"):
        a.set_value(k, v)
    assert a.get_value(k) is None


def test_linkvalue_sharing_prints_and_compares_within_bounds(space):
    v = FloatValue([1])
    for _ in range(64):
        v = LinkValue([v, v])
    assert v == v
    with pytest.raises(RuntimeError, match="prints to more than 256 MiB"):
        repr(v)
    # Shared parts stay shared on the way into the space and back.
    w = FloatValue([1, 2])
    for _ in range(16):
        w = LinkValue([w, w])
    a, k = ConceptNode("shared-ok"), PredicateNode("k")
    a.set_value(k, w)
    got = a.get_value(k)
    assert got == w
    assert got.to_list()[0] is got.to_list()[1]
