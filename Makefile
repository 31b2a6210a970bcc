# gridpath: two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Seconds a SIGTERM waits for in-flight requests before closing them (then exit 0).
GRACEFUL_TIMEOUT ?= 25

# The pinned versions (`make lock` refreshes them): every install here, CI's and the image's
# take their versions from it. `make LOCK= run` installs without it (the newest allowed).
LOCK   ?= requirements.lock
CONSTRAINTS := $(if $(LOCK),-c $(LOCK))

.PHONY: run test test-quick bench install dev warmup clean lock

## run: create .venv, install, serve the maps in maps/ on $(HOST):$(PORT)
run: $(VENV)/.installed
	$(BIN)/python -m app --host $(HOST) --port $(PORT) --timeout-graceful-shutdown $(GRACEFUL_TIMEOUT)

## test: create .venv, install the dev extras, run the whole suite
test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

## test-quick: the inner loop, without the system tests (real processes, containers, benches)
test-quick: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -m "not system"

## bench: Moving AI scenarios, Theta*, memory and the subgoal tier (needs ../shared/benchmarks/movingai)
bench: $(VENV)/.installed
	$(BIN)/python -m bench.movingai
	$(BIN)/python -m bench.terrain anyangle
	$(BIN)/python -m bench.memory
	$(BIN)/python -m bench.tiers --check --city 4096 8192

## bench-peers: our kernels against tcod, pyastar2d, python-pathfinding, networkx, heapq A*
.PHONY: bench-peers
bench-peers: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.peers

# wrk (a Debian package) is the HTTP benches' load: installed here when it is missing
.PHONY: need-wrk
need-wrk:
	@command -v wrk >/dev/null 2>&1 || { \
	  echo "wrk is not installed; installing the Debian package 'wrk'"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq wrk || { apt-get update -qq && apt-get install -y -qq wrk; }; \
	  else sudo -n apt-get install -y -qq wrk; fi \
	  || { echo "could not install wrk (needs root or sudo: 'apt-get install wrk')"; exit 1; }; }

## bench-http: the real server under HTTP load on loopback (wrk, and an open-loop client)
.PHONY: bench-http
bench-http: $(VENV)/.installed need-wrk
	@pids=$$(mktemp); \
	trap 'for g in $$(cat "$$pids" 2>/dev/null); do kill -KILL "-$$g" 2>/dev/null; done; rm -f "$$pids"' EXIT INT TERM; \
	$(BIN)/python -m bench.http_load --pid-file "$$pids" $(BENCH_HTTP_ARGS)

## bench-ratios: the two HTTP ratios side by side (wrk): /path over a bare FastAPI endpoint,
## /paths x100 over /path (BENCH_RATIOS_ARGS="--before ../other-checkout" serves it too)
.PHONY: bench-ratios
bench-ratios: $(VENV)/.installed need-wrk
	@pids=$$(mktemp); \
	trap 'for g in $$(cat "$$pids" 2>/dev/null); do kill -KILL "-$$g" 2>/dev/null; done; rm -f "$$pids"' EXIT INT TERM; \
	$(BIN)/python -m bench.ratios --pid-file "$$pids" $(BENCH_RATIOS_ARGS)

## bench-cluster: several server processes on one Redis: change propagation, Redis vs folder
## store, one vs two processes (starts its own redis-server)
.PHONY: bench-cluster
bench-cluster: $(VENV)/.installed
	@pids=$$(mktemp); \
	trap 'for g in $$(cat "$$pids" 2>/dev/null); do kill -KILL "-$$g" 2>/dev/null; done; rm -f "$$pids"' EXIT INT TERM; \
	$(BIN)/python -m bench.cluster --pid-file "$$pids" $(BENCH_CLUSTER_ARGS)

## bench-dynamic: map changes alternating with query batches, per tier, in process and over
## HTTP (real servers on loopback): queries/s including the changes, and the crossover
.PHONY: bench-dynamic
bench-dynamic: $(VENV)/.installed
	@pids=$$(mktemp); \
	trap 'for g in $$(cat "$$pids" 2>/dev/null); do kill -KILL "-$$g" 2>/dev/null; done; rm -f "$$pids"' EXIT INT TERM; \
	$(BIN)/python -m bench.dynamic --pid-file "$$pids" $(BENCH_DYNAMIC_ARGS)

## bench-worlds: paths through a world of two 512x512 Moving AI maps joined by links
## (expansions against dijkstra, 1,000 links against 10, a world query against its legs),
## then a link toggle (PATCH) on two 1M-cell maps with the subgoal tier, folder store and Redis
.PHONY: bench-worlds
bench-worlds: $(VENV)/.installed
	$(BIN)/python -m bench.worlds $(BENCH_WORLDS_ARGS)
	@pids=$$(mktemp); \
	trap 'for g in $$(cat "$$pids" 2>/dev/null); do kill -KILL "-$$g" 2>/dev/null; done; rm -f "$$pids"' EXIT INT TERM; \
	$(BIN)/python -m bench.worlds --toggle --pid-file "$$pids" $(BENCH_WORLDS_TOGGLE_ARGS)

## fuzz: schemathesis against the OpenAPI document, longer than in `make test`
## (FUZZ_EXAMPLES examples per operation and phase, a random seed unless FUZZ_SEED is set)
.PHONY: fuzz
fuzz: $(VENV)/.installed-dev
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} $(BIN)/python -m pytest -s -p no:cacheprovider \
	  --timeout 3600 tests/system/test_schemathesis.py

## clients: a Python client (openapi-python-client) and TypeScript types (openapi-typescript)
## generated from the OpenAPI document into clients/ (gitignored)
.PHONY: clients
clients: $(VENV)/.installed-dev
	$(BIN)/python -m tests.clients

## warmup: compile the kernels into numba's on-disk cache (one progress line per step)
warmup: $(VENV)/.installed
	$(BIN)/python -m gridpath.search.warmup

install: $(VENV)/.installed
dev: $(VENV)/.installed-dev

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml $(LOCK) | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet $(CONSTRAINTS) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(LOCK) | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet $(CONSTRAINTS) -e '.[dev]'
	touch $(VENV)/.installed $@

## lock: re-resolve requirements.lock from pyproject.toml (after changing a dependency)
lock: | $(VENV)/bin/python
	$(BIN)/python -m tools.lock

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

## bench-group: POST /group on the real server (random 32x32, den312d, field) and the
## cbs-mapf peer on small instances (needs ../shared/benchmarks/movingai)
.PHONY: bench-group
bench-group: $(VENV)/.installed-dev
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.group $(BENCH_GROUP_ARGS)
