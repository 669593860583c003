"""People's screening: a queue ranked by a model that learns from the decisions and the citation
network, a stopping rule with a stated guarantee, and replays on labelled reviews (docs/screening.md).

    features    the pool as the model sees it: text, its latent themes, citation neighbourhood, chaining provenance
    model       a seeded LinearSVC fitted on the decisions so far; ranking and "why here"
    state       where screening stands, from the pool, the seeds and config/curation.tsv
    stopping    the hypergeometric stopping rule (Callaghan & Müller-Hansen 2020) and a heuristic
    simulation  screening replayed on a labels file (b2g simulate, the `simulate` job)
    metrics     WSS@95, recall after 10%, average time to discovery
    labels      reading a labels file (SYNERGY's labels.csv form)

The core knows no Click, HTTP or Snakemake: the queue service, the corpus job and the simulate job call it.
"""
