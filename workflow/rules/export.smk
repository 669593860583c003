rule export:
    input:
        nodes="results/networks/{kind}/nodes.parquet",
        edges="results/networks/{kind}/edges.parquet",
        metrics="results/networks/{kind}/metrics.json",
        corpus=bundle_paths("results/corpus"),
    output:
        EXPORT_OUTPUTS,
    params:
        spec=part("export"),
    log:
        log("export", ".{kind}"),
    benchmark:
        bench("export", ".{kind}")
    script:
        PHASE_SCRIPT


rule exports:
    input:
        expand(EXPORT_OUTPUTS, kind=KINDS),
