rule report:
    input:
        unpack(inputs("report")),
    output:
        html=report(outputs("report")["html"], caption="../report/report.rst", category="Report"),
        manifest=outputs("report")["manifest"],
    params:
        spec=params("report"),
    log:
        log("report"),
    benchmark:
        bench("report")
    script:
        PHASE_SCRIPT
