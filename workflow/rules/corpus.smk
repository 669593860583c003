rule corpus:
    input:
        unpack(inputs("corpus")),
    output:
        **outputs("corpus"),
    params:
        spec=params("corpus"),
    log:
        log("corpus"),
    benchmark:
        bench("corpus")
    script:
        PHASE_SCRIPT
