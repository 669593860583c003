"""Fuzz harnesses for the readers of files people hand bib2graph: `make fuzz`, never part of `make test`
(they live outside tests/). B2G_FUZZ_EXAMPLES sets the inputs per harness (default 10000); runs are
derandomized, so a failure repeats, and hypothesis keeps no example database in the repository."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fuzz", max_examples=int(os.environ.get("B2G_FUZZ_EXAMPLES", "10000")), derandomize=True, deadline=None,
    database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.large_base_example])
settings.load_profile("fuzz")
