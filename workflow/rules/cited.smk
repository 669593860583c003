rule cited:
    input:
        unpack(inputs("cited")),
    output:
        **outputs("cited"),
    params:
        spec=params("cited"),
    log:
        log("cited"),
    benchmark:
        bench("cited")
    resources:
        openalex=1,
    script:
        PHASE_SCRIPT
