# Only with `source.kind: snapshot`: one job per partition of the OpenAlex works snapshot (the scatter);
# `sources` gathers them. The partitions are listed from the snapshot folder by the registry.
if registry.RULES["snapshot_part"].wanted(SPEC):

    wildcard_constraints:
        part=SNAPSHOT_KEY,

    rule snapshot_part:
        input:
            unpack(inputs("snapshot_part")),
        output:
            **outputs("snapshot_part"),
        params:
            spec=params("snapshot_part"),
        log:
            log("snapshot_part", ".{part}"),
        benchmark:
            bench("snapshot_part", ".{part}")
        script:
            PHASE_SCRIPT
