"""Browser tests share the integration tests' built demo (one build per test run)."""

from tests.integration.conftest import built_demo, demo, timed_demo  # noqa: F401  (fixtures)
