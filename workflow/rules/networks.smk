wildcard_constraints:
    kind="|".join(KINDS) or "none",


rule network:
    input:
        bundle_paths("results/corpus"),
    output:
        graphml="results/networks/{kind}/network.graphml",
        nodes="results/networks/{kind}/nodes.parquet",
        edges="results/networks/{kind}/edges.parquet",
        evidence="results/networks/{kind}/evidence.parquet",
        metrics="results/networks/{kind}/metrics.json",
    params:
        spec=lambda wc: canonical_json(
            {"network": SPEC["networks"][wc.kind], "communities": SPEC["communities"]}
        ),
    log:
        log("network", ".{kind}"),
    benchmark:
        bench("network", ".{kind}")
    script:
        PHASE_SCRIPT


rule networks:
    input:
        expand("results/networks/{kind}/metrics.json", kind=KINDS),
