# The repository is itself a workspace: `snakemake --cores 2` here runs the packaged workflow.
include: "workflow/Snakefile"
