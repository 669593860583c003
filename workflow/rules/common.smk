# Spec loading and path helpers shared by the rules. The spec is validated (and its defaults
# filled) by bib2graph.spec with workflow/schemas/spec.schema.yaml, the same code `b2g` uses.

from bib2graph import phases
from bib2graph import spec as b2g_spec
from bib2graph.atomic import canonical_json
from bib2graph.tables import bundle_paths

SPEC = b2g_spec.validate(config)
KINDS = sorted(SPEC["networks"])
PHASE_SCRIPT = "../scripts/phase.py"
CURATION = "config/curation.tsv"
EXPORT_OUTPUTS = [f"results/export/{{kind}}/{name}" for name in phases.export_names(SPEC["export"]["formats"])]


def part(*keys):
    """The canonical JSON of spec sections: a rule re-runs exactly when its sections change."""
    return b2g_spec.part(SPEC, *keys)


def log(rule, suffix=""):
    return f"results/logs/{rule}{suffix}.log"


def bench(rule, suffix=""):
    return f"results/benchmarks/{rule}{suffix}.tsv"
