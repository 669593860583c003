rule export:
    input:
        unpack(inputs("export")),
    output:
        **outputs("export"),
    params:
        spec=params("export"),
    threads: threads_of("export")
    resources:
        mem_mb=mem_mb("export"),
    log:
        log("export", ".{kind}"),
    benchmark:
        bench("export", ".{kind}")
    script:
        PHASE_SCRIPT


rule exports:
    input:
        registry.targets(SPEC, "exports"),
