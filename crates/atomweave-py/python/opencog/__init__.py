"""``opencog``: upstream OpenCog's Python module names over atomweave.

Classic scripts import ``opencog.atomspace``, ``opencog.type_constructors``,
``opencog.utilities`` and the rest; each of these modules is atomweave's
whole public API (``atomweave.__all__``) under upstream's name, so such a
script runs with no line changed. New code imports ``atomweave`` directly.
"""
