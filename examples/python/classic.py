#! /usr/bin/env python3
#
# classic.py
#
"""
The classic OpenCog Python tour: atoms with truth values, inheritance
links, lookups by type, incoming sets, values, and a pattern-matcher query.

Written as for the upstream `opencog` Python bindings; only the import
lines differ (upstream's are shown beside them).
"""

from atomweave import Atom, AtomSpace, TruthValue, types  # from opencog.atomspace import Atom, AtomSpace, TruthValue, types
from atomweave import *                                 # from opencog.type_constructors import *
from atomweave import set_default_atomspace, get_default_atomspace  # from opencog.utilities import ...
from atomweave import execute_atom                      # from opencog.bindlink import execute_atom

a = AtomSpace()

# Tell the type constructors which atomspace to use.
set_default_atomspace(a)
assert get_default_atomspace() == a

# A truth value asserting true and mostly confident.
TV = TruthValue(1, 0.8)

# Three concepts ...
A = ConceptNode('Apple', tv=TV)
B = ConceptNode('Berry', tv=TruthValue(0.5, 0.75))
C = ConceptNode('Comestible', tv=TV)

# ... and three inheritance links: apples are berries, berries are edible.
AB = InheritanceLink(A, B, tv=TV)
BC = InheritanceLink(B, C, tv=TV)
AC = InheritanceLink(A, C)

print("The atomspace holds", len(a), "atoms")
print("Apple:", A)
print("Apple's truth value: strength", A.tv.mean, "confidence", A.tv.confidence)
print("Berry is a", B.type_name, "- same as types.ConceptNode:", B.type == types.ConceptNode)
print("AB:", AB.type_name, [x.name for x in AB.out])

# Atoms by type, with and without subtypes.
concepts = a.get_atoms_by_type(types.ConceptNode)
print("Concepts:", sorted(atom.name for atom in concepts))
print("Links:", len(a.get_atoms_by_type(types.Link)))
print("Plain Links (no subtypes):", len(a.get_atoms_by_type(types.Link, subtype=False)))

# The incoming set: the links that hold an atom.
for link in sorted(B.incoming, key=lambda l: l.out[0].name):
    print("Berry is held by:", link.type_name, link.out[0].name, "->", link.out[1].name)
print("Apple's inheritance links:", len(A.incoming_by_type(types.InheritanceLink)))

# Values: any atom can carry values under keys.
featureKey = PredicateNode('features')
A.set_value(featureKey, FloatValue([1.0, 2.0, 3.0]))
B.set_value(featureKey, StringValue(['red', 'small']))
apple_features = A.get_value(featureKey)
berry_features = B.get_value(featureKey)
assert isinstance(apple_features, FloatValue) and isinstance(berry_features, StringValue)
print("Apple features:", apple_features.to_list())
print("Berry features:", berry_features.to_list())
print("Apple keys:", sorted(k.name for k in A.get_keys()))

# Changing a truth value.
AC.tv = TruthValue(0.9, 0.9)
print("AC truth value:", AC.tv)

# A query: what is edible?
X = VariableNode('$X')
query = GetLink(X, InheritanceLink(X, C))
result = execute_atom(a, query)
assert isinstance(result, Atom)  # a Get gives a SetLink of its groundings (other atoms give values)
print("Comestibles:", sorted(atom.name for atom in result.out))

# A rewrite: everything edible is food.
rule = BindLink(X, InheritanceLink(X, C), EvaluationLink(PredicateNode('food'), X))
foods = execute_atom(a, rule)
assert isinstance(foods, Atom)
print("Foods:", sorted(link.out[1].name for link in foods.out))

# Removing atoms.
print("Remove Apple alone:", a.remove(A))
print("Remove Apple and its links:", a.remove(A, recursive=True))
print("Apple still there:", A in a)
print("The atomspace holds", len(a), "atoms")
