"""Upstream's ``opencog.logger``: a logger writing to a file, with
OpenCog's levels (NONE, ERROR, WARN, INFO, DEBUG, FINE).

Built on the standard library's :mod:`logging`; each message is written
before the call returns. ``log`` is the default logger (to
``opencog.log``); ``create_logger(filename)`` makes another::

    from atomweave.logger import create_logger
    log = create_logger("run.log")
    log.set_level("DEBUG")
    log.debug("loaded")
"""

import itertools
import logging
from typing import Final

__all__ = ["Logger", "create_logger", "log"]

# OpenCog's levels, least verbose first: a level's number is its place
# here, as upstream numbers them.
_ORDER = ["NONE", "ERROR", "WARN", "INFO", "DEBUG", "FINE"]
_LEVELS = {name: i for i, name in enumerate(_ORDER)}
# The standard library's level for each (NONE: above every message's).
_STDLIB = [logging.CRITICAL + 10, logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, 5]
_ids = itertools.count()


class Logger:
    """A logger to one file, at one level (INFO to begin with)."""

    def __init__(self, filename="opencog.log"):
        self._log = logging.getLogger(f"atomweave.logger.{next(_ids)}")
        self._log.propagate = False
        self._file = logging.FileHandler(filename, delay=True)
        self._file.setFormatter(logging.Formatter("[%(asctime)s] [%(opencog_level)s] %(message)s"))
        self._log.addHandler(self._file)
        self._stdout = None
        self._level = _LEVELS["INFO"]
        self._log.setLevel(_STDLIB[self._level])

    # The levels' numbers (NONE: the level that writes nothing).
    NONE: Final = _LEVELS["NONE"]
    ERROR: Final = _LEVELS["ERROR"]
    WARN: Final = _LEVELS["WARN"]
    INFO: Final = _LEVELS["INFO"]
    DEBUG: Final = _LEVELS["DEBUG"]
    FINE: Final = _LEVELS["FINE"]

    def set_level(self, level_name):
        """Writes messages of ``level_name`` ("INFO", "debug", ...) and
        those less verbose; returns the level's number."""
        if not isinstance(level_name, str):
            raise TypeError("set_level() takes a level name, e.g. 'INFO'")
        level = self.string_as_level(level_name)
        if level is None:
            raise ValueError(f"not a logging level: {level_name!r} (one of {', '.join(self.level_order())})")
        self._level = level
        self._log.setLevel(_STDLIB[level])
        return level

    def get_level(self):
        """The level's name, e.g. "INFO"."""
        return _ORDER[self._level]

    def string_as_level(self, level_name):
        """The number of the level named ``level_name`` (any case); None
        for a name that is not a level."""
        return _LEVELS.get(level_name.upper())

    def level_order(self):
        """The level names, least verbose first."""
        return list(_ORDER)

    def set_component(self, component_name):
        """Names the component in every message from now on."""
        fmt = f"[%(asctime)s] [%(opencog_level)s] [{component_name}] %(message)s"
        for h in self._log.handlers:
            h.setFormatter(logging.Formatter(fmt))

    def is_enabled(self, level):
        """Whether messages of ``level`` (a number) are written."""
        return 0 < level <= self._level

    def log(self, level, txt):
        """Writes ``txt`` at ``level`` (a number), if enabled."""
        if self.is_enabled(level):
            self._log.log(_STDLIB[level], txt, extra={"opencog_level": _ORDER[level]})
            for h in self._log.handlers:
                h.flush()

    def error(self, txt):
        """Writes ``txt`` at ERROR."""
        self.log(_LEVELS["ERROR"], txt)

    def warn(self, txt):
        """Writes ``txt`` at WARN."""
        self.log(_LEVELS["WARN"], txt)

    def info(self, txt):
        """Writes ``txt`` at INFO."""
        self.log(_LEVELS["INFO"], txt)

    def debug(self, txt):
        """Writes ``txt`` at DEBUG."""
        self.log(_LEVELS["DEBUG"], txt)

    def fine(self, txt):
        """Writes ``txt`` at FINE."""
        self.log(_LEVELS["FINE"], txt)

    def use_stdout(self, use_it=True):
        """Also writes messages to standard output (or stops)."""
        if use_it and self._stdout is None:
            self._stdout = logging.StreamHandler()
            self._stdout.setFormatter(self._file.formatter)
            self._log.addHandler(self._stdout)
        elif not use_it and self._stdout is not None:
            self._log.removeHandler(self._stdout)
            self._stdout = None

    def set_sync(self, s):
        """Kept for upstream's scripts: messages are always written before the call returns."""


def create_logger(filename):
    """A new logger writing to ``filename``."""
    return Logger(filename)


#: The default logger, to ``opencog.log`` in the working directory (made on first message).
log = Logger()
