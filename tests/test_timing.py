"""The suite's time unit (tests/timing.py): stretched by the load, set by the variable."""

from __future__ import annotations

import os

import pytest

from tests import timing


def test_the_load_per_core_stretches_the_unit_between_one_and_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for load, factor in ((0.3, 1.0), (2.0, 1.0), (3.0, 1.5), (5.0, 2.5), (40.0, 3.0)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert timing.load_factor() == factor


def test_a_set_unit_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (40.0, 0.0, 0.0))
    monkeypatch.setenv(timing.UNIT_VARIABLE, "0.5")
    assert timing._unit() == 0.5
    monkeypatch.delenv(timing.UNIT_VARIABLE)
    assert timing._unit() == timing.MAX_LOAD_FACTOR
    monkeypatch.setenv(timing.UNIT_VARIABLE, "fast")
    with pytest.raises(ValueError, match="must be a number"):
        timing._unit()
