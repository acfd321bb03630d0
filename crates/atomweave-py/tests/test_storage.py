"""The StorageNode calls from Python, against real LMDB and file stores."""

import pytest

import atomweave
from conftest import PORTABLE
from atomweave import (
    AtomSpace,
    ConceptNode,
    FloatValue,
    InheritanceLink,
    ListLink,
    PredicateNode,
    TruthValue,
    barrier,
    cog_close,
    cog_delete,
    cog_delete_recursive,
    cog_open,
    fetch_atom,
    fetch_incoming_by_type,
    fetch_incoming_set,
    fetch_value,
    load_atoms_of_type,
    load_atomspace,
    store_atom,
    store_atomspace,
    store_value,
    types,
    update_value,
)


@pytest.mark.skipif(PORTABLE, reason="the portable wheel has no RocksDB")
def test_upstream_style_rocks_script_round_trip(space, tmp_path):
    # As an upstream script writes it: RocksStorageNode writes upstream's
    # atomspace-rocks layout (a RocksDB database, not atomweave's LMDB).
    sn = atomweave.RocksStorageNode(f"rocks://{tmp_path}/kb")
    cog_open(sn)
    a = ConceptNode("Apple", TruthValue(1, 0.8))
    b = ConceptNode("Berry")
    ab = InheritanceLink(a, b, tv=TruthValue(0.5, 0.5))
    k = PredicateNode("weight")
    a.set_value(k, FloatValue([1.5, 2.5]))
    store_atom(ab)
    store_atom(a)
    barrier()
    cog_close(sn)
    assert (tmp_path / "kb" / "CURRENT").is_file() and not (tmp_path / "kb" / "data.mdb").exists()

    fresh = AtomSpace()
    sn2 = atomweave.RocksStorageNode(f"rocks://{tmp_path}/kb", atomspace=fresh)
    cog_open(sn2)
    assert load_atomspace(fresh) >= 4
    cog_close(sn2)
    a2 = fresh.get_node(types.ConceptNode, "Apple")
    b2 = fresh.get_node(types.ConceptNode, "Berry")
    assert a2.tv == TruthValue(1, 0.8)
    assert a2.get_value(fresh.get_node(types.PredicateNode, "weight")) == FloatValue([1.5, 2.5])
    assert fresh.get_link(types.InheritanceLink, [a2, b2]).tv == TruthValue(0.5, 0.5)


@pytest.mark.skipif(not PORTABLE, reason="the development module has RocksDB")
def test_the_portable_wheel_says_it_has_no_rocksdb(space, tmp_path):
    with pytest.raises(RuntimeError, match="built without RocksDB"):
        cog_open(atomweave.RocksStorageNode(f"rocks://{tmp_path}/kb"))


def test_fetches_deletes_and_updates(space, tmp_path):
    sn = atomweave.LmdbStorageNode(f"lmdb://{tmp_path}/db")
    cog_open(sn)
    cat, dog, animal = ConceptNode("cat"), ConceptNode("dog"), ConceptNode("animal")
    InheritanceLink(cat, animal)
    InheritanceLink(dog, animal)
    ListLink(cat, dog)
    assert store_atomspace() == len(space)
    key = PredicateNode("count")
    assert update_value(cat, key, [2.0]) == FloatValue([2.0])
    assert update_value(cat, key, [3.0]) == FloatValue([5.0])
    store_value(cat, key)
    barrier()

    other = AtomSpace()
    animal2 = other.add_node(types.ConceptNode, "animal")
    assert fetch_incoming_set(animal2) == 2
    assert fetch_incoming_by_type(other.get_node(types.ConceptNode, "cat"), types.ListLink) == 1
    cat2 = other.get_node(types.ConceptNode, "cat")
    key2 = other.add_node(types.PredicateNode, "count")
    assert fetch_value(cat2, key2) is cat2
    assert cat2.get_value(key2) == FloatValue([5.0])
    assert fetch_atom(cat2) is cat2

    third = AtomSpace()
    assert load_atoms_of_type(types.InheritanceLink, atomspace=third) == 2

    assert cog_delete(animal) is False
    assert cog_delete_recursive(animal) is True
    assert space.get_node(types.ConceptNode, "animal") is None
    cog_close(sn)

    last = AtomSpace()
    cog_open(atomweave.LmdbStorageNode(f"lmdb://{tmp_path}/db", atomspace=last))
    load_atomspace(last)
    cog_close()
    assert last.get_node(types.ConceptNode, "animal") is None
    assert len(last.get_atoms_by_type(types.InheritanceLink)) == 0
    assert last.get_node(types.ConceptNode, "cat") is not None


def test_file_storage_and_errors(space, tmp_path):
    with pytest.raises(RuntimeError, match="no StorageNode is open"):
        barrier()
    sn = atomweave.FileStorageNode(str(tmp_path / "kb.scm"))
    cog_open(sn)
    InheritanceLink(ConceptNode("a"), ConceptNode("b"))
    store_atomspace()
    with pytest.raises(RuntimeError, match="file store cannot fetch"):
        fetch_atom(ConceptNode("a"))
    cog_close(sn)
    back = AtomSpace()
    cog_open(atomweave.FileStorageNode(str(tmp_path / "kb.scm"), atomspace=back))
    load_atomspace(back)
    cog_close()
    assert back.get_node(types.ConceptNode, "b") is not None

    with pytest.raises(RuntimeError, match="cannot connect to 127.0.0.1:1"):
        cog_open(atomweave.CogStorageNode("cog://127.0.0.1:1"))
    with pytest.raises(RuntimeError, match="rocks:///dir"):
        cog_open(atomweave.RocksStorageNode("/no/scheme"))
    with pytest.raises(RuntimeError, match="cannot"):
        cog_open(atomweave.LmdbStorageNode("lmdb:///proc/nowhere/db"))


def test_a_space_opened_over_lmdb_reads_what_it_needs(space, tmp_path):
    sn = atomweave.LmdbStorageNode(f"lmdb://{tmp_path}/db")
    cog_open(sn)
    likes = PredicateNode("likes")
    for a, b in [("ann", "bob"), ("bob", "cy"), ("dan", "eve")]:
        atomweave.EvaluationLink(likes, ListLink(ConceptNode(a), ConceptNode(b)), tv=TruthValue(0.5, 0.25))
    ConceptNode("bob").set_value(PredicateNode("weight"), FloatValue([70.0]))
    store_atomspace()
    cog_close(sn)

    kb = AtomSpace.open(f"lmdb://{tmp_path}/db")
    # Added by content, the stored atom shows its values.
    bob = kb.add_node(types.ConceptNode, "bob")
    assert bob.get_value(kb.add_node(types.PredicateNode, "weight")) == FloatValue([70.0])
    # Its incoming set is read from the store.
    assert sorted(len(l.out) for l in bob.incoming) == [2, 2]
    pair = kb.add_link(types.ListLink, [bob, kb.add_node(types.VariableNode, "$x")])
    get = kb.add_link(types.GetLink, [kb.add_link(types.EvaluationLink, [kb.add_node(types.PredicateNode, "likes"), pair])])
    assert [a.name for a in atomweave.execute_atom(kb, get).out] == ["cy"]
    # A lookup by content reads the store too: the space answers as if it held it all.
    dan, eve = kb.add_node(types.ConceptNode, "dan"), kb.add_node(types.ConceptNode, "eve")
    assert kb.is_link_in_atomspace(types.ListLink, [dan, eve])
    assert kb.get_link(types.ListLink, [eve, dan]) is None

    with pytest.raises(RuntimeError, match="no store there"):
        AtomSpace.open(f"lmdb://{tmp_path}/nothing")
    (tmp_path / "a.scm").write_text('(Concept "a")\n')
    with pytest.raises(RuntimeError, match="only an LMDB .lmdb:...dir. or Redis"):
        AtomSpace.open(f"file://{tmp_path}/a.scm")
