# wakewheel — make targets. Needs only Go and git.
GO      ?= go
BIN     := bin/wakewheel
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# The engine packages run under the race detector in `make test`.
ENGINE_PKGS := ./deadlines/... ./scheduler/... ./store/... ./obligations/... ./wakes/... ./liveness/... ./roots/... ./internal/... ./api/... ./lanerun/...

.PHONY: build run test test-race test-rest fuzz bench bench-scale lint clean fleet-test fleet-bench

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/wakewheel

## run: build and start the daemon with zero configuration (Ctrl-C stops it)
run: build
	./scripts/run.sh $(BIN)

## test: vet, the engine under the race detector, everything else, a short
## run of each fuzz target; < 10 min on 2 cores
test: lint test-race test-rest fuzz

test-race:
	$(GO) test -race -count=1 -timeout 8m $(ENGINE_PKGS)

test-rest: build
	$(GO) test -count=1 -timeout 8m $$($(GO) list ./... | grep -v -E '/(deadlines|scheduler|store|obligations|wakes|liveness|roots|internal|api|lanerun)(/|$$)')

## fuzz: each fuzz target for FUZZ_TIME (the socket API's request decoding,
## the MCP tool arguments, the git porcelain parser, the record decoders).
## A count, not a duration: Go 1.26's fuzz coordinator can report a spurious
## "context deadline exceeded" when a duration ends mid-execution on a busy
## machine (go.dev/issue/75804); a count has no deadline to race.
FUZZ_TIME ?= 40000x
FUZZ_TARGETS := api:FuzzReminderBody api:FuzzObligationBody api:FuzzRequest mcpserver:FuzzToolArguments \
                detectors:FuzzParsePorcelainV2Z store:FuzzDecodeDeadline obligations:FuzzDecode
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t#*:}; \
	  echo "fuzz $$pkg $$fn for $(FUZZ_TIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZ_TIME) ./$$pkg/ || exit 1; done

## bench: the long benchmarks quoted in BENCHMARKS.md, with ratios to the
## baselines measured in the same run (raw output kept in bench.out)
BENCH_COUNT ?= 3
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -timeout 60m ./deadlines/ ./store/ ./scheduler/ ./wakes/ | tee bench.out
	$(GO) run ./internal/benchratio < bench.out
	$(GO) test -count=1 -run TestCorruptionClasses -v -timeout 30m ./cmd/wakewheel/ -args -corruption-trials 20 | tee corruption.out
	$(MAKE) bench-scale

## bench-scale: a real daemon process with SCALE_N pending reminders
## (restart, RSS, status, lateness and posts under load, 64 posters through
## the socket), then its idle wake-ups counted with strace for 60 s
SCALE_N ?= 1000000
bench-scale: build
	$(GO) run ./internal/scalebench -bin $(BIN) -n $(SCALE_N)
	./scripts/idle-wakeups.sh $(BIN) 60

## fleet-test: the multi-process fleet tests: real broker processes (R3) and
## daemons, SIGKILLed; partitions in network namespaces when root. Not part
## of `make test`: they are gated by the fleet build tag.
fleet-test: build
	$(GO) test -tags fleet -count=1 -timeout 25m ./fleet/...

## fleet-bench: cross-host posts/s beside local posts and raw JetStream synced
## publishes, and post->wake latency, on one R3 cluster (quoted in BENCHMARKS.md)
fleet-bench:
	WAKEWHEEL_FLEET_BENCH=1 $(GO) test -tags fleet -count=1 -timeout 20m -run TestFleetThroughputAndLatency -v ./fleet/ | grep -E 'BENCH|^(--- |ok|FAIL)'

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
