"""Every test module's file name is unique across tests/: pytest imports them by basename
(rootdir-relative packages are not used), so two `test_x.py` in different folders make the whole
run fail to collect when both are in it, though each folder passes alone."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

TESTS = Path(__file__).parents[1]


def test_no_two_test_modules_share_a_name():
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
