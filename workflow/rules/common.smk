# The spec and the registry of jobs shared by the rules. The spec is validated (and its defaults
# filled) by bib2graph.spec with workflow/schemas/spec.schema.yaml, the same code `b2g` uses; every
# rule's inputs, outputs and params come from bib2graph.registry, which status, validate, the
# preflight, snapshots and the manifests ask too.

from bib2graph import registry
from bib2graph import spec as b2g_spec

SPEC = b2g_spec.validate(config)
KINDS = registry.kinds(SPEC)
PHASE_SCRIPT = "../scripts/phase.py"
from bib2graph.sources.snapshot_layout import KEY_PATTERN as SNAPSHOT_KEY


def outputs(rule):
    return registry.outputs(SPEC, rule)


def wildcard(wildcards):
    """The value of a job's one wildcard (a network kind or a snapshot partition), or None."""
    return getattr(wildcards, "kind", None) or getattr(wildcards, "part", None)


def inputs(rule):
    """An input function: the job's named inputs (upstream artifacts and external files)."""
    return lambda wildcards: registry.inputs(SPEC, rule, wildcard(wildcards))


def params(rule):
    """The canonical JSON of the spec the job is given: it re-runs exactly when this text changes."""
    return lambda wildcards: registry.params(SPEC, rule, wildcard(wildcards))


def log(rule, suffix=""):
    return f"results/logs/{rule}{suffix}.log"


def bench(rule, suffix=""):
    return f"results/benchmarks/{rule}{suffix}.tsv"


def threads_of(rule):
    """A threads function: the job's threads from the rows of its inputs (registry.threads)."""
    return lambda wildcards, input: registry.threads(rule, list(input))


def mem_mb(rule):
    """A resource function: the job's memory (MB) from the rows of its inputs (registry.mem_mb), asked
    again by Snakemake when the job is ready to run and its inputs exist."""
    return lambda wildcards, input: registry.mem_mb(rule, list(input))
