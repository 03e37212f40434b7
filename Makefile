# wakewheel — make targets. Needs only Go and git.
GO      ?= go
BIN     := bin/wakewheel
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# The engine packages run under the race detector in `make test`.
ENGINE_PKGS := ./deadlines/... ./scheduler/... ./store/... ./obligations/... ./wakes/... ./internal/... ./api/...

.PHONY: build run test test-race test-rest bench lint clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/wakewheel

## run: build and start the daemon with zero configuration (Ctrl-C stops it)
run: build
	./scripts/run.sh $(BIN)

## test: vet, the engine under the race detector, everything else; < 10 min on 2 cores
test: lint test-race test-rest

test-race:
	$(GO) test -race -count=1 -timeout 8m $(ENGINE_PKGS)

test-rest: build
	$(GO) test -count=1 -timeout 8m $$($(GO) list ./... | grep -v -E '/(deadlines|scheduler|store|obligations|wakes|internal|api)(/|$$)')

## bench: the long benchmarks quoted in BENCHMARKS.md, with ratios to the
## baselines measured in the same run (raw output kept in bench.out)
BENCH_COUNT ?= 3
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -timeout 60m ./deadlines/ ./store/ ./scheduler/ ./wakes/ | tee bench.out
	$(GO) run ./internal/benchratio < bench.out

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
