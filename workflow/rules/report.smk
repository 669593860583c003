rule report:
    input:
        seeds="results/seed/manifest.json",
        chain="results/chain/manifest.json",
        corpus="results/corpus/manifest.json",
        screening="results/corpus/screening.parquet",
        prisma="results/corpus/prisma.json",
        works="results/corpus/works.parquet",
        metrics=expand("results/networks/{kind}/metrics.json", kind=KINDS),
        nodes=expand("results/networks/{kind}/nodes.parquet", kind=KINDS),
    output:
        html=report("results/report/index.html", caption="../report/report.rst", category="Report"),
    params:
        spec=part("name", "chain", "filter", "networks", "communities"),
    log:
        log("report"),
    benchmark:
        bench("report")
    script:
        PHASE_SCRIPT
