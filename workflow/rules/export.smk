rule export:
    input:
        unpack(inputs("export")),
    output:
        **outputs("export"),
    params:
        spec=params("export"),
    log:
        log("export", ".{kind}"),
    benchmark:
        bench("export", ".{kind}")
    script:
        PHASE_SCRIPT


rule exports:
    input:
        registry.targets(SPEC, "exports"),
