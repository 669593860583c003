# bib2graph: `make demo` runs the pipeline on the bundled corpus; `make test` runs the suite but its long tests,
# `make test-long` those;
# `make test-slurm` runs the demo through a real SLURM cluster on this machine;
# `make bench` runs the benchmarks at small sizes (`.venv/bin/python benchmarks/run_all.py --full` for large ones).
PYTHON ?= python3
# The venv and Chromium install side by side: `make test` on a fresh machine waits for the slower one only.
MAKEFLAGS += -j2
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
SLURM_STAMP := $(VENV)/.slurm-stamp

.PHONY: demo test test-long test-slurm slurm-cluster fuzz bench gui chromium clean examples

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/b2g run --workspace .
	@echo ""
	@echo "Results are in $(CURDIR)/results:"
	@echo "  corpus tables   results/corpus/*.parquet (screening.parquet says why each work is in or out)"
	@echo "  networks        results/networks/<kind>/{nodes.parquet,edges.parquet,evidence.parquet,metrics.json}"
	@echo "  exports         results/export/<kind>/ (GraphML, GEXF, CSV, Pajek, VOSviewer)"
	@echo "  report          results/report/index.html"

# `make test` runs every test but the long ones (marked `long`: over about 2 s here, mostly workflow runs
# after the shared demo build, the browser and sweeps over every real file), in about 4 minutes on 2 cores;
# `make test-long` runs those (about 11 minutes); CI (.ci/run) runs both.
# Byte-compiled first: where PYTHONDONTWRITEBYTECODE is set, every b2g and Snakemake job process would
# otherwise compile bib2graph from source again (Python checks each .pyc against its source).
test: $(STAMP) chromium
	$(BIN)/python -m compileall -q src >/dev/null
	$(BIN)/python -m pytest -q -n auto --dist worksteal -m "not long"

test-long: $(STAMP) chromium
	$(BIN)/python -m compileall -q src >/dev/null
	$(BIN)/python -m pytest -q -n auto --dist worksteal -m long

# The browser tests (tests/e2e) drive Debian's Chromium: installed here when missing (Playwright's own
# browser download is not used). apt-get update runs only when the package index does not know it yet.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium || { $$SUDO apt-get update && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; }

# The demo through a real SLURM cluster, checked against a local run (tests/slurm; not in `make test`).
# The cluster is this machine alone (.ci/slurm-cluster.sh: Debian's packages through apt, sudo when not
# root), started while the slurm extra installs, and left running: `.ci/slurm-cluster.sh stop` stops it.
test-slurm: $(SLURM_STAMP) slurm-cluster
	$(BIN)/python -m compileall -q src >/dev/null
	$(BIN)/python -m pytest -q tests/slurm

$(SLURM_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,slurm]'
	touch $(SLURM_STAMP)

slurm-cluster:
	.ci/slurm-cluster.sh start

# Generated inputs for the file readers, outside `make test`; B2G_FUZZ_EXAMPLES per harness (default 10000).
fuzz: $(STAMP)
	$(BIN)/python -m pytest fuzz -q -p no:cacheprovider -n auto
	B2G_SPEC_EXAMPLES=300 $(BIN)/python -m pytest tests/unit/test_spec_agreement.py -q -p no:cacheprovider
	B2G_SIGNAL_REPEATS=20 $(BIN)/python -m pytest tests/integration/test_signals.py -k ctrl-c -q -p no:cacheprovider -n auto

# The GUI's single-page app, rebuilt from frontend/ into src/bib2graph/gui/static/ (committed: the wheel
# ships it, so `b2g gui` needs no Node). Needs Node >= 20.19; not part of `make test`.
gui:
	cd frontend && npm ci && npm run build

# The golden outputs of every verb (docs/contract/examples), regenerated from a fresh demo build; the test
# suite compares the live output with them (tests/contract/test_examples.py).
examples: $(STAMP)
	$(BIN)/python scripts/regenerate_examples.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf results/* .snakemake
