# Only with `time.enabled`: how the field moves. `trends` (bursts, RPYS) reads the corpus; one `slices`
# job per network of `time.networks` builds that network in every time slice and aligns its clusters.
if registry.RULES["trends"].wanted(SPEC):

    rule trends:
        input:
            unpack(inputs("trends")),
        output:
            **outputs("trends"),
        params:
            spec=params("trends"),
        log:
            log("trends"),
        benchmark:
            bench("trends")
        script:
            PHASE_SCRIPT

    rule slices:
        input:
            unpack(inputs("slices")),
        output:
            **outputs("slices"),
        params:
            spec=params("slices"),
        threads: threads_of("slices")
        resources:
            mem_mb=mem_mb("slices"),
        log:
            log("slices", ".{kind}"),
        benchmark:
            bench("slices", ".{kind}")
        script:
            PHASE_SCRIPT
