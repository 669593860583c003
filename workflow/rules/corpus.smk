rule corpus:
    input:
        seeds="results/seed/seeds.parquet",
        candidates="results/chain/candidates.parquet",
        pool=bundle_paths("results/chain/pool"),
        curation=CURATION,
    output:
        tables=bundle_paths("results/corpus"),
        screening="results/corpus/screening.parquet",
        manifest="results/corpus/manifest.json",
    params:
        spec=part("filter"),
    log:
        log("corpus"),
    benchmark:
        bench("corpus")
    script:
        PHASE_SCRIPT
