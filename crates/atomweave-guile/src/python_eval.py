"""python-eval's capture of what its code prints (crates/atomweave-guile/src/python.rs).

Per thread: evaluations on two Guile threads keep their output apart, and
what runs outside an evaluation (py: procedures, Python's own threads)
prints to the real stream, never into a capture.
"""

import io
import sys
import threading

_local = threading.local()


class _Capture:
    """sys.stdout while python-eval may capture: a write goes to the calling
    thread's capture buffer when it has one, else to the stream it wraps."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        buf = getattr(_local, "buf", None)
        return (self._stream if buf is None else buf).write(text)

    def flush(self):
        if getattr(_local, "buf", None) is None:
            self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def run(code, globals):
    """Runs ``code`` in ``globals``; what it printed."""
    if not isinstance(sys.stdout, _Capture):
        sys.stdout = _Capture(sys.stdout)
    outer = getattr(_local, "buf", None)
    _local.buf = io.StringIO()
    try:
        exec(compile(code, "<python-eval>", "exec"), globals)
        return _local.buf.getvalue()
    finally:
        _local.buf = outer


def line_buffered():
    """Python embedded in Guile is never finalized: what it prints to a pipe
    or file must not wait in a buffer for an exit that never flushes it."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)
