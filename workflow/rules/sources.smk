# With `source.kind: files`: the source files read once, merged and their references resolved; with
# `source.kind: snapshot`: the snapshot's partitions (snapshot.smk) gathered into the same tables.
if registry.RULES["sources"].wanted(SPEC):

    rule sources:
        input:
            unpack(inputs("sources")),
        output:
            **outputs("sources"),
        params:
            spec=params("sources"),
        log:
            log("sources"),
        benchmark:
            bench("sources"),
        resources:
            openalex=1,
        script:
            PHASE_SCRIPT
