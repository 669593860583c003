"""The MCP adapter's checks of a call's arguments, beyond what JSON Schema says."""

from __future__ import annotations

import math

import pytest

from bib2graph.errors import UsageError
from bib2graph.mcp_server.tools import check_arguments, tools


def test_a_whole_float_in_an_integer_field_is_that_integer():
    """JSON Schema's integer admits 2.0: the queue tool then sliced with a float and the server ended
    INTERNAL (exit 70), where the CLI's --limit takes it as an integer or refuses it."""
    params = check_arguments(tools()["queue"], {"limit": 2.0})
    assert params["limit"] == 2 and type(params["limit"]) is int


@pytest.mark.parametrize("tool, arguments", [("monitor", {"timeout": math.nan}), ("monitor", {"timeout": math.inf}),
                                             ("queue", {"limit": math.nan})])
def test_a_number_that_is_not_finite_is_a_usage_error(tool, arguments):
    """NaN fails no bound (no comparison holds): `monitor {"timeout": NaN}` reached the service."""
    with pytest.raises(UsageError):
        check_arguments(tools()[tool], arguments)
