# The one script every rule runs: hands the job to bib2graph's Snakemake adapter.
from bib2graph.rules import run_job

run_job(snakemake)  # noqa: F821 - injected by Snakemake
