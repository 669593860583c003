wildcard_constraints:
    kind="|".join(KINDS) or "none",


rule network:
    input:
        unpack(inputs("network")),
    output:
        **outputs("network"),
    params:
        spec=params("network"),
    threads: threads_of("network")
    resources:
        mem_mb=mem_mb("network"),
    log:
        log("network", ".{kind}"),
    benchmark:
        bench("network", ".{kind}")
    script:
        PHASE_SCRIPT


rule clusters:
    input:
        unpack(inputs("clusters")),
    output:
        **outputs("clusters"),
    params:
        spec=params("clusters"),
    threads: threads_of("clusters")
    resources:
        mem_mb=mem_mb("clusters"),
    log:
        log("clusters", ".{kind}"),
    benchmark:
        bench("clusters", ".{kind}")
    script:
        PHASE_SCRIPT


rule stability:
    input:
        unpack(inputs("stability")),
    output:
        **outputs("stability"),
    params:
        spec=params("stability"),
    threads: threads_of("stability")
    resources:
        mem_mb=mem_mb("stability"),
    log:
        log("stability", ".{kind}"),
    benchmark:
        bench("stability", ".{kind}")
    script:
        PHASE_SCRIPT


rule networks:
    input:
        registry.targets(SPEC, "networks"),
