rule chain:
    input:
        unpack(inputs("chain")),
    output:
        **outputs("chain"),
    params:
        spec=params("chain"),
    log:
        log("chain"),
    benchmark:
        bench("chain")
    resources:
        openalex=1,
    script:
        PHASE_SCRIPT
