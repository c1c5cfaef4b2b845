# `make plan` and `make test` bootstrap .venv on first use (and again when the
# dependency declarations change), so a fresh clone needs nothing but python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv plan test lint typecheck unit bench bench-instructions docs clean cluster-tools cluster-tools-if-go kueue-controller kueue-controller-if-go karpenter-kwok karpenter-kwok-if-go engine-tools engine-tools-if-go engine-check helm helm-if-go downloads-in-background

venv: $(STAMP)

# uv (from PyPI, pinned in constraints.txt) installs the pinned set: 22 s from its warm cache where
# pip took 191 s (pulumi_oci and pulumi_aws alone are 600 MB of files), 29 s from none. Its cache
# lives outside the clone (~/.cache/uv). The environment is the one pip would make: same versions,
# same editable install of this repository.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt -e '.[test]'
	touch $(STAMP)

plan: $(STAMP)
	$(BIN)/python -m nodepools plan --stack dev

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# basedpyright in strict mode over components/ and policies/ ([tool.basedpyright]); part of
# `make test`. `.typecheck/nodepools` mirrors the package-dir mapping of pyproject.toml with
# symlinks (rebuilt each run) so the checker resolves `nodepools.*` imports to those files.
# `--project`: this repository's config, never a pyrightconfig.json in a folder above it.
typecheck: $(STAMP)
	rm -rf .typecheck && mkdir -p .typecheck/nodepools
	for f in components/*; do case $$f in */__pycache__) ;; *) ln -s ../../$$f .typecheck/nodepools/;; esac; done
	ln -s ../../policies .typecheck/nodepools/policies
	$(BIN)/basedpyright --project pyproject.toml

# kube-apiserver, kube-scheduler, kube-controller-manager and etcd for tests/controlplane and tests/engine, built from the pinned versions
# (scripts/cluster_tools.versions) through the Go module proxy into a folder outside the clone keyed
# by those versions (~/.cache/nodepools/cluster-tools-...); a second run does nothing. Without them those tests skip (fail when NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1).
cluster-tools:
	bash scripts/cluster_tools.sh control-plane

# helm (pinned HELM=, module helm.sh/helm/v3) for tests/controlplane/test_helm_charts.py and
# tests/charts (`helm template` of the pinned charts in ../shared/charts), built through the Go
# module proxy into ~/.cache/nodepools/helm-<version>/bin; a second run does nothing. Without it
# those tests skip (fail when NODEPOOLS_REQUIRE_HELM=1).
helm:
	bash scripts/cluster_tools.sh helm

helm-if-go:
	@if command -v go >/dev/null; then bash scripts/cluster_tools.sh helm; \
	else echo "helm: no 'go' on PATH: tests/charts and test_helm_charts will be skipped"; fi

# Kueue's controller manager (pinned KUEUE=), for tests/controlplane/test_kueue_*.py and
# test_doctor_kueue.py: built by `make test` when Go is there; without it those tests skip (fail
# when NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 or NODEPOOLS_REQUIRE_CONTROLLERS=1, as in .ci/run).
kueue-controller:
	bash scripts/cluster_tools.sh kueue

kueue-controller-if-go:
	@if command -v go >/dev/null; then bash scripts/cluster_tools.sh kueue; \
	else echo "kueue controller: no 'go' on PATH: its tests will be skipped"; fi

# Karpenter's controller with its KWOK cloud provider (pinned KARPENTER=), for
# tests/controlplane/test_karpenter*_kwok.py and test_doctor_karpenter.py: `make test` builds it
# when Go is there (karpenter-kwok-if-go); without it they skip (fail when NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1, as in CI).
karpenter-kwok:
	bash scripts/cluster_tools.sh karpenter-kwok

karpenter-kwok-if-go:
	@if command -v go >/dev/null; then bash scripts/cluster_tools.sh karpenter-kwok; \
	else echo "karpenter (kwok provider): no 'go' on PATH: its tests in tests/controlplane will be skipped"; fi

# `make test` builds them when Go is there (cached: instant once built), says so when it is not.
cluster-tools-if-go:
	@if command -v go >/dev/null; then bash scripts/cluster_tools.sh control-plane; \
	else echo "cluster tools: no 'go' on PATH: tests/controlplane will be skipped"; fi

# The Pulumi CLI, the pulumi-kubernetes provider plugin and the YAML language host for tests/engine
# (the real engine against the loopback cluster), and tsc with the Node.js SDK from npm, built from the pinned versions
# (scripts/engine_tools.versions) through the Go module proxy into a folder outside the clone keyed by
# those versions (~/.cache/nodepools/engine-tools-...); a second run does nothing. Without them
# tests/engine skips (fails when NODEPOOLS_REQUIRE_ENGINE_TOOLS=1).
engine-tools:
	bash scripts/engine_tools.sh

# `make test` builds them when Go and npm are there (cached: instant once built), says so when not.
engine-tools-if-go:
	@if command -v go >/dev/null && command -v npm >/dev/null; then bash scripts/engine_tools.sh; \
	else echo "engine tools: no 'go' or 'npm' on PATH: tests/engine will be skipped"; fi

# The real-engine checks alone (README: "Running the real engine on your machine"): builds what is
# missing, then preview/up/refresh/up/destroy, the YAML program and the policy pack through the CLI.
engine-check: $(STAMP) cluster-tools engine-tools
	NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 NODEPOOLS_REQUIRE_ENGINE_TOOLS=1 $(BIN)/python -m pytest -p no:xdist tests/engine

# One pytest worker per core (PYTEST_WORKERS=0 runs in-process). tests/controlplane is one
# xdist group (tests/conftest.py), so its session cluster starts once, on one worker.
PYTEST_WORKERS ?= auto
unit: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup

# What the tool builds of `make test` fetch (the Go modules of the shared cluster module, of Kueue
# and of the engine tools; npm's packages), fetched in the background while the virtualenv, lint
# and type check run; each build then waits on the same lock and finds its part done (a cold CI
# saves the ~1.5 minutes of downloads). Nothing to fetch once the tools are built. Log:
# ~/.cache/nodepools/downloads.log.
downloads-in-background:
	@if command -v go >/dev/null; then \
	  log="$${XDG_CACHE_HOME:-$$HOME/.cache}/nodepools/downloads.log"; mkdir -p "$$(dirname "$$log")"; \
	  ( bash scripts/cluster_tools.sh control-plane --download-only; \
	    bash scripts/cluster_tools.sh kueue --download-only; \
	    if command -v npm >/dev/null; then bash scripts/engine_tools.sh --download-only; fi \
	  ) < /dev/null > "$$log" 2>&1 & \
	fi

test: downloads-in-background lint typecheck cluster-tools-if-go helm-if-go kueue-controller-if-go karpenter-kwok-if-go engine-tools-if-go unit

# All five benchmarks, the fresh-clone test suite included; rewrites benchmarks/README.md.
bench: $(STAMP)
	$(BIN)/python -m benchmarks --suite

# The mixed-fleet ratios counted in instructions under valgrind (steady under load; minutes).
bench-instructions: $(STAMP)
	$(BIN)/python -m benchmarks.instructions

# The documentation site (mkdocs.yml, docs/) into site/, strict: a broken link or nav entry
# fails. `make test` builds it too (tests/test_docs.py); `$(BIN)/mkdocs serve` previews it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis .typecheck site
