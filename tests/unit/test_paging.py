"""Cursors: what this service issued reads back; anything else is a 400, never a 500."""

import pytest

from agent_memory.domain.kernel.errors import InvalidRequest
from agent_memory.domain.kernel.paging import (
    decode_cursor,
    encode_cursor,
    int_field,
    int_pair_field,
)


def test_a_cursor_reads_back_as_issued():
    position = decode_cursor(encode_cursor({"before": 7, "after": [3, 12]}))
    assert int_field(position, "before") == 7
    assert int_pair_field(position, "after") == (3, 12)
    assert int_field(None, "before") is None and int_pair_field(None, "after") is None


@pytest.mark.parametrize("value", [2**70, -(2**70), 2**62, True, 1.5, "7", None, [7]])
def test_a_number_no_store_can_compare_is_an_invalid_cursor(value):
    # 2**70 once reached SQLite and failed there as an OverflowError: a 500.
    with pytest.raises(InvalidRequest) as caught:
        int_field(decode_cursor(encode_cursor({"before": value})), "before")
    assert caught.value.code == "invalid_cursor"


@pytest.mark.parametrize("value", ["ab", [1], [1, 2, 3], [1, "2"], [1, 2**70], 5, None, [True, 1]])
def test_a_pair_that_is_not_two_small_integers_is_an_invalid_cursor(value):
    with pytest.raises(InvalidRequest) as caught:
        int_pair_field(decode_cursor(encode_cursor({"after": value})), "after")
    assert caught.value.code == "invalid_cursor"
