rule simulate:
    input:
        unpack(inputs("simulate")),
    output:
        **outputs("simulate"),
    params:
        spec=params("simulate"),
    log:
        log("simulate"),
    benchmark:
        bench("simulate")
    script:
        PHASE_SCRIPT
