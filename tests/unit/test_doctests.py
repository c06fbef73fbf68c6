"""The examples in docstrings run, on the embedded backend: every module of graphmem with a
``>>>`` line is found, so a new example cannot be left out of the run."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import graphmem


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(graphmem.__path__, "graphmem."):
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(".py"):
            with open(origin, encoding="utf-8") as source:
                if ">>>" in source.read():
                    names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules_with_examples())
def test_the_examples_of_a_module_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has '>>>' but no example doctest could find"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
