# wakewheel — make targets. Needs only Go and git.
GO      ?= go
BIN     := bin/wakewheel
# The broker's program: a node of the fleet's broker (nats-server), apart
# from the daemon's binary so the daemon never links nats-server.
BROKER_BIN := bin/wakewheel-broker
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# The engine packages run under the race detector in `make test`.
ENGINE_PKGS := ./deadlines/... ./scheduler/... ./store/... ./obligations/... ./wakes/... ./liveness/... ./roots/... ./internal/... ./api/... ./lanerun/...

.PHONY: build run test test-race test-rest test-readme fuzz bench bench-checkout bench-scale bench-wheels lint clean fleet-test fleet-bench install uninstall

## build: bin/wakewheel (the daemon and its CLI) and bin/wakewheel-broker
## (the broker node `wakewheel broker` and fleet.embed run)
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/wakewheel ./cmd/wakewheel-broker

## run: build and start the daemon with zero configuration (Ctrl-C stops it)
run: build
	./scripts/run.sh $(BIN)

## test: vet, the engine under the race detector, everything else, the
## README walk-through, a short run of each fuzz target; < 10 min on 2 cores
test: lint test-race test-rest test-readme fuzz

test-race:
	$(GO) test -race -count=1 -timeout 8m $(ENGINE_PKGS)

test-rest: build
	$(GO) test -count=1 -timeout 8m $$($(GO) list ./... | grep -v -E '/(deadlines|scheduler|store|obligations|wakes|liveness|roots|internal|api|lanerun)(/|$$)')
	$(GO) test -count=1 -run '^TestNewEntriesFaultEachPageOnce$$' ./deadlines/  # counts page faults: not under the race detector

## test-readme: every command block of README.md, run in a private home
## against a real daemon; a non-zero exit the README does not announce fails
test-readme: build
	./scripts/readme-walkthrough.sh

## fuzz: each fuzz target for FUZZ_TIME (the socket API's request decoding,
## the MCP tool arguments, the git porcelain parser, the record decoders).
## A count, not a duration: Go 1.26's fuzz coordinator can report a spurious
## "context deadline exceeded" when a duration ends mid-execution on a busy
## machine (go.dev/issue/75804); a count has no deadline to race.
FUZZ_TIME ?= 40000x
FUZZ_TARGETS := api:FuzzReminderBody api:FuzzObligationBody api:FuzzRequest api:FuzzPostJSON api:FuzzPostStream api:FuzzPipelinedPostStream mcpserver:FuzzToolArguments \
                detectors:FuzzParsePorcelainV2Z store:FuzzDecodeDeadline obligations:FuzzDecode
## Each target first builds a coverage-instrumented test binary: on a cold
## build cache the first one rebuilds every dependency so (minutes, with no
## output of its own), so each step says what it does and how long it took.
fuzz:
	@n=0; total=$$(echo $(FUZZ_TARGETS) | wc -w); for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t#*:}; n=$$((n+1)); \
	  echo "fuzz [$$n/$$total] $$pkg $$fn: building the instrumented test binary (the first build on a cold cache instruments every dependency), then $(FUZZ_TIME) inputs"; \
	  start=$$(date +%s); \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZ_TIME) ./$$pkg/ || exit 1; \
	  echo "fuzz [$$n/$$total] $$pkg $$fn: done in $$(( $$(date +%s) - start ))s"; done

## bench: the long benchmarks quoted in BENCHMARKS.md, with ratios to the
## baselines measured in the same run (raw output kept in bench.out)
BENCH_COUNT ?= 3
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -timeout 60m ./deadlines/ ./store/ ./scheduler/ ./wakes/ | tee bench.out
	$(GO) run ./internal/benchratio < bench.out
	$(GO) test -count=1 -run TestCorruptionClasses -v -timeout 30m ./cmd/wakewheel/ -args -corruption-trials 20 | tee corruption.out
	$(GO) test -count=1 -run 'TestRetentionMemory|TestDiskFullHealsWithoutRestart' -v -timeout 30m ./cmd/wakewheel/ -args -retention-posts 500000 | tee retention.out
	$(MAKE) bench-wheels
	$(MAKE) bench-scale
	$(MAKE) bench-checkout

## bench-checkout: the same checkout of a 10,000- and a 100,000-file
## repository delivered through the daemon (no-op ingest) and through a
## Watchman trigger (apt-get install watchman; its side is skipped with a
## message when it is missing), in one run
bench-checkout:
	WAKEWHEEL_BENCH_CHECKOUT=1 WAKEWHEEL_BENCH_BIG=1 $(GO) test -count=1 -run TestCheckoutBesideWatchman -v -timeout 40m ./cmd/wakewheel/ | tee checkout.out

## bench-wheels: the wheel beside the runtime's timers and
## RussellLuo/timingwheel in one run (bench/wheelcmp, a module of its own so
## that wheel is never the product's dependency); skipped with a message
## where the module proxy does not serve it
bench-wheels:
	@cd bench/wheelcmp && if GOFLAGS=-mod=mod $(GO) mod download github.com/RussellLuo/timingwheel >/dev/null 2>&1; then \
	  GOFLAGS=-mod=mod $(GO) test -run '^$$' -bench . -count $(BENCH_COUNT) -timeout 60m . | tee ../../wheels.out && \
	  GOFLAGS=-mod=mod $(GO) run ./table < ../../wheels.out; \
	else echo "bench-wheels: skipped: the module proxy does not serve github.com/RussellLuo/timingwheel here"; fi

## bench-scale: a real daemon process with SCALE_N pending reminders
## (restart, RSS, status, lateness and posts under load, 64 posters through
## the socket), a restart on SCALE_N reminders past due until they have
## run, then its idle wake-ups counted with strace for 60 s
SCALE_N ?= 1000000
bench-scale: build
	$(GO) run ./internal/scalebench -bin $(BIN) -n $(SCALE_N)
	$(GO) run ./internal/scalebench -bin $(BIN) -n $(SCALE_N) -only backlog -rounds 1
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

## install: the binaries (wakewheel and wakewheel-broker, side by side:
## wakewheel looks for the broker's program beside itself first), the
## systemd user unit (Linux), shell completion
## and man pages, under PREFIX (default ~/.local: no root needed).
## uninstall removes exactly those files.
PREFIX     ?= $(HOME)/.local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man/man1
BASHCOMP   ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMP    ?= $(PREFIX)/share/zsh/site-functions
FISHCOMP   ?= $(PREFIX)/share/fish/vendor_completions.d
SYSTEMDDIR ?= $(HOME)/.config/systemd/user
install: build
	install -Dm0755 $(BIN) $(DESTDIR)$(BINDIR)/wakewheel
	install -Dm0755 $(BROKER_BIN) $(DESTDIR)$(BINDIR)/wakewheel-broker
	mkdir -p $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMP) $(DESTDIR)$(ZSHCOMP) $(DESTDIR)$(FISHCOMP)
	$(BIN) man $(DESTDIR)$(MANDIR) >/dev/null
	$(BIN) completion bash >$(DESTDIR)$(BASHCOMP)/wakewheel
	$(BIN) completion zsh >$(DESTDIR)$(ZSHCOMP)/_wakewheel
	$(BIN) completion fish >$(DESTDIR)$(FISHCOMP)/wakewheel.fish
	@if [ "$$(uname)" = Linux ]; then \
	  mkdir -p $(DESTDIR)$(SYSTEMDDIR); \
	  sed 's|^ExecStart=.*|ExecStart=$(BINDIR)/wakewheel daemon|' packaging/wakewheel.service >$(DESTDIR)$(SYSTEMDDIR)/wakewheel.service; \
	  echo "installed $(BINDIR)/wakewheel and $(BINDIR)/wakewheel-broker; start it: systemctl --user daemon-reload && systemctl --user enable --now wakewheel"; \
	  echo "its log: journalctl --user -u wakewheel -f"; \
	else echo "installed $(BINDIR)/wakewheel and $(BINDIR)/wakewheel-broker; on macOS see packaging/README.md for the launchd agent (log: /tmp/dev.wakewheel.log)"; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/wakewheel $(DESTDIR)$(BINDIR)/wakewheel-broker $(DESTDIR)$(MANDIR)/wakewheel.1 $(DESTDIR)$(MANDIR)/wakewheel-*.1
	rm -f $(DESTDIR)$(BASHCOMP)/wakewheel $(DESTDIR)$(ZSHCOMP)/_wakewheel $(DESTDIR)$(FISHCOMP)/wakewheel.fish
	rm -f $(DESTDIR)$(SYSTEMDDIR)/wakewheel.service
	@echo "uninstalled; the store and the config are kept (~/.local/state/wakewheel, ~/.config/wakewheel)"

clean:
	rm -rf bin
