rule chain:
    input:
        phases.source_inputs(SPEC),
        lambda wildcards: phases.monitor_inputs(),
        seeds="results/seed/seeds.parquet",
    output:
        candidates="results/chain/candidates.parquet",
        pool=bundle_paths("results/chain/pool"),
        manifest="results/chain/manifest.json",
    params:
        spec=part("source", "chain"),
    log:
        log("chain"),
    benchmark:
        bench("chain")
    resources:
        openalex=1,
    script:
        PHASE_SCRIPT
