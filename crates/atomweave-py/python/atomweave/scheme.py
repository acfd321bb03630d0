"""Scheme over an AtomSpace, by upstream's names (``opencog.scheme``):
``scheme_eval(atomspace, "(cog-count-atoms 'ConceptNode)")`` returns what the
expression printed and its value; ``scheme_eval_h`` returns the atom it gives.
Guile, with ``(opencog)`` loaded, starts on first use."""

from ._atomweave import scheme_eval, scheme_eval_h, scheme_eval_v

__all__ = ["scheme_eval", "scheme_eval_h", "scheme_eval_v"]
