rule layout:
    input:
        unpack(inputs("layout")),
    output:
        **outputs("layout"),
    params:
        spec=params("layout"),
    threads: threads_of("layout")
    resources:
        mem_mb=mem_mb("layout"),
    log:
        log("layout", ".{kind}"),
    benchmark:
        bench("layout", ".{kind}")
    script:
        PHASE_SCRIPT
