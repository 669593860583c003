rule seed:
    input:
        unpack(inputs("seed")),
    output:
        **outputs("seed"),
    params:
        spec=params("seed"),
    log:
        log("seed"),
    benchmark:
        bench("seed")
    resources:
        openalex=1,
    script:
        PHASE_SCRIPT
