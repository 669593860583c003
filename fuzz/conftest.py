"""Fuzz harnesses for the readers of files people hand bib2graph: `make fuzz`, never part of `make test`
(they live outside tests/). B2G_FUZZ_EXAMPLES sets the inputs per harness (default 10000); runs are
derandomized, so a failure repeats, and hypothesis keeps no example database in the repository."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, settings

from bib2graph.errors import B2GError

settings.register_profile("b2g-fuzz", max_examples=int(os.environ.get("B2G_FUZZ_EXAMPLES", "10000")),
                          derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.large_base_example])
settings.load_profile("b2g-fuzz")


def _typed(call, *args):
    try:
        found = call(*args)
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5, f"{type(exc).__name__} {exc.code} exit {exc.exit_code}: {exc}"
        event(f"{call.__name__}: {exc.code}")
        return None
    event(f"{call.__name__}: returned")
    return found


@pytest.fixture(scope="session")
def typed():
    """`typed(call, *args)`: what `call` returns, or None when it raised a B2GError with exit code 2..5;
    any other exception (or another exit code) fails the harness. The outcome is a hypothesis event, so
    `--hypothesis-show-statistics` shows how often each error code came up."""
    return _typed


def _ingested(path, name: str, fmt: str, strict: bool):
    from bib2graph.skips import Skips
    from bib2graph.sources.ingest import ingest

    try:
        found = ingest([path], [name], [fmt], Skips(strict=strict))
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5, f"{type(exc).__name__} {exc.code} exit {exc.exit_code}: {exc}"
        assert name in exc.message, exc
        event(f"{fmt}: {exc.code}")
        return None
    event(f"{fmt}: {'works' if len(found.bundle.works) else 'no works'}")
    return found.bundle


@pytest.fixture(scope="session")
def ingested():
    """`ingested(path, name, fmt, strict)`: the bundle `ingest` makes of one export file declared `fmt`,
    or None when it raised a B2GError with exit code 2..5 whose message names the file as `name`;
    any other exception fails the harness (outcomes are hypothesis events, as with `typed`)."""
    return _ingested


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    """A folder the harnesses write their generated files into (one per session: hypothesis reruns a
    test many times within one call, so a function-scoped tmp_path would be shared anyway)."""
    return tmp_path_factory.mktemp("fuzz")
