rule layout:
    input:
        unpack(inputs("layout")),
    output:
        **outputs("layout"),
    params:
        spec=params("layout"),
    log:
        log("layout", ".{kind}"),
    benchmark:
        bench("layout", ".{kind}")
    script:
        PHASE_SCRIPT
