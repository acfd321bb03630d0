"""atomweave.logger: upstream's opencog.logger levels and file output."""

import os

import pytest

from atomweave.logger import Logger, create_logger, log


def size(path):
    return os.path.getsize(path) if os.path.exists(path) else 0


def test_a_level_writes_itself_and_less_verbose_levels(tmp_path):
    path = tmp_path / "x.log"
    lg = create_logger(str(path))
    lg.set_level("WARN")
    for name in ["DEBUG", "INFO", "FINE"]:
        before = size(path)
        lg.log(lg.string_as_level(name), "muted")
        assert size(path) == before, name
    for name in ["ERROR", "WARN"]:
        before = size(path)
        lg.log(lg.string_as_level(name), "shown")
        assert size(path) > before, name
    text = path.read_text()
    assert "[ERROR] shown" in text and "[WARN] shown" in text and "muted" not in text


def test_levels_by_name_and_order(tmp_path):
    lg = create_logger(str(tmp_path / "y.log"))
    assert lg.level_order() == ["NONE", "ERROR", "WARN", "INFO", "DEBUG", "FINE"]
    for name in lg.level_order():
        lg.set_level(name.lower())
        assert lg.get_level() == name
    assert lg.string_as_level("nonsense") is None
    with pytest.raises(ValueError):
        lg.set_level("nonsense")
    with pytest.raises(TypeError):
        lg.set_level(3)
    assert [lg.NONE, lg.ERROR, lg.WARN, lg.INFO, lg.DEBUG, lg.FINE] == list(range(6))
    assert [lg.string_as_level(n) for n in lg.level_order()] == list(range(6))


def test_none_mutes_and_fine_shows_everything(tmp_path):
    path = tmp_path / "z.log"
    lg = create_logger(str(path))
    lg.set_level("NONE")
    lg.error("never")
    assert size(path) == 0
    lg.set_level("FINE")
    lg.set_component("comp")
    lg.fine("tiny")
    assert "[FINE] [comp] tiny" in path.read_text()


def test_the_default_logger_is_a_logger():
    assert isinstance(log, Logger) and log.get_level() == "INFO"


def test_the_package_has_the_logger_by_upstreams_names():
    import atomweave

    assert atomweave.create_logger is create_logger and atomweave.Logger is Logger and atomweave.log is log
