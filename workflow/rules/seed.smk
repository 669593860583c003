rule seed:
    input:
        phases.source_inputs(SPEC) + phases.seed_inputs(SPEC),
    output:
        seeds="results/seed/seeds.parquet",
        manifest="results/seed/manifest.json",
    params:
        spec=part("source", "seed"),
    log:
        log("seed"),
    benchmark:
        bench("seed")
    resources:
        openalex=1,
    script:
        PHASE_SCRIPT
