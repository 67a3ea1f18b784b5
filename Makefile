# actionspace — set-up, the main job, the tests.
#
#   make bench   crawl the bundled corpus, then sweep the crawl (runs setup first)
#   make crawl   crawl the bundled corpus into results/runs/<run-id>/
#   make test    run every test, real Chromium included (runs setup-test first)
#   make soak    the long soak and timing tests (minutes each), on their own
#   make throughput  the crawl's time as ratios to the bare navigation loop
#                (docs/throughput.md); URLS=FILE measures on a URL list
#
# setup installs what the main job needs: Chromium's headless build
# (Debian's chromium-headless-shell), Node.js and the Playwright driver.
# setup-test adds what only the tests need: the S3-compatible test server
# (compiled from source once, into the module cache), python3-zstandard
# (the dataset card's recipe is tested) and the full browser (Debian's
# chromium, which one test compares with the headless build).

GO       ?= go
CHROMIUM ?= /usr/bin/chromium-headless-shell
# FULL_CHROMIUM is Debian's full browser. Only the tests launch it: one
# checks that it captures what the headless build captures.
FULL_CHROMIUM ?= /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS     ?=
URLS     ?=

# RUN names a bench run: make bench crawls into results/runs/$(RUN)/crawl
# and sweeps that into results/runs/$(RUN). CRAWL_ARGS go to the crawl,
# ARGS to bench (and to the crawl in make crawl).
ifndef RUN
RUN := $(shell date -u +bench-%Y%m%dT%H%M%SZ)
endif
RUNDIR    = results/runs/$(RUN)
CRAWL_ARGS ?=
# BIN holds the two commands, built in one go build (their packages are
# compiled once, in parallel; two go runs would compile one after the other).
BIN       = bin

# SOAK_TIMEOUT bounds make soak; the soak tests take minutes each.
SOAK_TIMEOUT ?= 60m

.PHONY: all setup setup-test commands crawl bench bench-check throughput test test-short soak vet goldens clean

all: test

# setup and setup-test are idempotent: each step checks before it acts.
setup:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		echo "setup: installing Debian chromium-headless-shell"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium-headless-shell; \
	fi
	@if ! command -v node >/dev/null 2>&1; then \
		echo "setup: installing Debian nodejs"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs; \
	fi
	@$(GO) run ./cmd/setup

setup-test: setup
	@if [ ! -x "$(FULL_CHROMIUM)" ]; then \
		echo "setup-test: installing Debian chromium (a test compares it with the headless build)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; \
	fi
	@if ! python3 -c 'import zstandard' 2>/dev/null && ! /usr/bin/python3 -c 'import zstandard' 2>/dev/null; then \
		echo "setup-test: installing Debian python3-zstandard (the dataset card's recipe is tested)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3 python3-zstandard; \
	fi
	@$(GO) run ./tools/s3setup

commands:
	$(GO) build -o $(BIN)/ ./cmd/crawl ./cmd/bench

crawl: setup commands
	$(BIN)/crawl $(ARGS)

bench: setup commands
	$(BIN)/crawl --run-id $(RUN) --out $(RUNDIR)/crawl $(CRAWL_ARGS)
	$(BIN)/bench --run-id $(RUN) --out $(RUNDIR) $(ARGS) $(RUNDIR)/crawl

# bench-check is bench compared with the committed baseline: it exits 1
# when a cell's tokens grew by more than 2%, its median render time by
# more than 25% (timings are noisy: see docs/bench.md) or
# its mean recall fell by more than half a percentage point.
bench-check: setup commands
	$(BIN)/crawl --run-id $(RUN) --out $(RUNDIR)/crawl $(CRAWL_ARGS)
	$(BIN)/bench --run-id $(RUN) --out $(RUNDIR) --baseline results/baseline/summary.json $(ARGS) $(RUNDIR)/crawl

# throughput crawls the bundled corpus (or the list URLS names) as the
# floor (goto, content) and as the crawl, in one run, alternating, and
# writes the crawl's times as ratios to the floor's into
# results/throughput.md (see docs/throughput.md).
throughput: setup
	@mkdir -p results
	$(GO) run ./tools/throughput $(ARGS) $(URLS)

# test runs every test once on real Chromium and against the S3-compatible
# test server (built once by setup-test into the module cache), and the
# browser-free tests a second time under the race detector (racing the
# browser tests too would double a suite that 2 cores already need most of
# their time for). The soak and timing tests skip, saying so: make soak
# runs them.
test: setup-test vet
	$(GO) test -race -short -count=1 -timeout 20m ./...
	ACTIONSPACE_REQUIRE_CHROMIUM=1 ACTIONSPACE_REQUIRE_S3=1 $(GO) test -count=1 -timeout 60m ./...

# test-short skips everything that needs Chromium.
test-short:
	$(GO) test -short ./...

# soak runs only the tests that ACTIONSPACE_SOAK=1 lets run (a crawl of
# thousands of URLs, the renderer's timing on the largest pages): each
# takes minutes, and each says in its skip message what it measures.
soak: setup-test
	ACTIONSPACE_SOAK=1 ACTIONSPACE_REQUIRE_CHROMIUM=1 ACTIONSPACE_REQUIRE_S3=1 $(GO) test -count=1 -timeout $(SOAK_TIMEOUT) -run 'Soak' ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# goldens re-captures the corpus into render/testdata and rewrites the
# golden renderings; review the diff before committing.
goldens: setup
	$(GO) run ./tools/goldens render/testdata
	$(GO) test ./render -run Golden -update

clean:
	rm -rf results/runs $(BIN)
