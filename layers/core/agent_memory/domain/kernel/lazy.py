"""A package's names loaded on first use (PEP 562): what few requests need stays out of a cold
start, while other capabilities still import it from the package, as the layering rule asks."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's `__getattr__`: each name of `modules` (name -> its module, relative to the
    package) imported when first asked for, then kept in the package like an eager import."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
