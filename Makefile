# mcpconform — conformance suite and protocol fuzzer for MCP servers.
GO      ?= go
BIN     ?= bin/mcpconform
REPORTS ?= mcpconform-report

.PHONY: build test test-slow corpus corpus-update sidebyside demo demo-http demo-client bench lint checks-list clean

build:
	$(GO) build -o $(BIN) ./cmd/mcpconform

# The whole test suite, including the kill matrix (reference fixtures pass
# everything; each mutant fails exactly its listed requirements). -p 4: four
# test binaries at a time whatever the cores, so the packages that mostly
# wait on servers and browsers (cmd/mcpconform, fuzz, reports) run beside
# the kill matrix instead of one after another in go test's second slot.
TEST_P ?= 4
test:
	$(GO) test -count=1 -p $(TEST_P) -timeout 20m ./...

# The slow tests (build tag slow), which make test leaves out and .ci/run
# runs right after it: the fuzzer's whole campaigns (fuzz/campaign_test.go:
# the fuzz-only mutants found, shrunk and replayed, a mutant that drops a
# request only while another is in flight found as a FAIL with its
# reproduction rate in 5 campaigns of 5 seeds
# (TestConcurrencyDropFailsInEveryCampaign), the state machines'
# lifecycle defects, the reference with no finding over both transports, a
# crash found and the campaign going on), the go-sdk control-character crash
# (fuzz/gosdk_test.go, builds a go-sdk example), `go test -fuzz` from another
# module (fuzz/native_test.go), the HTML report in headless Chromium
# (reports/htmlbrowser_test.go) and the reference fixture's verdicts with
# and without --parallel (fixtures/killmatrix/parallel_test.go), the
# verdicts against servers slow only under concurrency
# (fixtures/killmatrix/load_test.go, ~3 minutes), and the
# scripts of mcpconform repro for every kill-matrix row's FAIL results
# against the mutant and the reference (fixtures/killmatrix/repro_test.go)
# and those of a go-sdk v1.8.0 example's crashes (internal/repro/gosdk_test.go,
# builds two go-sdk examples). ~3 minutes without the repro proof, which
# runs every kill-matrix row again and verifies each script, three runs at least (~14 minutes); the
# campaigns' shrinking is bounded in time, so they run on their own, not
# beside the kill matrix.
SLOW_TESTS = TestFuzzOnlyMutantsAreFound|TestConcurrencyDropFailsInEveryCampaign|TestOneJudgeCampaigns|TestSeqFindsLifecycleDefects|TestNativeEngineFromAnotherModule|TestReferenceHasNoFinding|TestCrashIsAFindingAndTheCampaignGoesOn|TestGoSDKResourceReadControlCharacter|TestHTMLInHeadlessChromium|TestParallelSameVerdicts|TestLoadIndependentVerdicts|TestReproScripts|TestReproGoSDK
test-slow:
	$(GO) test -tags slow -count=1 -timeout 40m -run '^($(SLOW_TESTS))$$' ./fuzz/ ./reports/ ./fixtures/killmatrix/ ./internal/repro/

# The third-party corpus (fixtures/thirdparty, slow, not part of test):
# installs pinned independent servers (npm and go-sdk examples) into
# $$MCPCONFORM_CORPUS_CACHE (default ~/.cache/mcpconform-corpus), runs the
# suite on each, two at a time, and fails on any FAIL/WARN/ERROR not in
# fixtures/thirdparty/expected.yaml and on any listed one that is gone.
# corpus-update rewrites the file (audit reasons kept, new entries UNAUDITED).
corpus:
	$(GO) vet -tags corpus ./fixtures/thirdparty/
	$(GO) test -tags corpus -count=1 -v -parallel 2 -timeout 40m -run 'TestThirdPartyCorpus|TestThirdPartyClients|TestContractHistory|TestCorpusLints' ./fixtures/thirdparty/

corpus-update:
	$(GO) test -tags corpus -count=1 -v -parallel 2 -timeout 40m -run 'TestThirdPartyCorpus|TestThirdPartyClients' ./fixtures/thirdparty/ -update

# Side by side (fixtures/thirdparty/sidebyside.sh; slow, not part of test or
# CI, timings need a quiet machine): the official MCP conformance suite's
# default run and a full mcpconform run (both eras, every report) against the
# same go-sdk conformance server on 127.0.0.1, alternating; prints median wall
# time, CPU, peak RSS and report sizes. SIDEBYSIDE_FLAGS: -n N, --stateful, --check.
SIDEBYSIDE_FLAGS ?= -n 5
sidebyside:
	fixtures/thirdparty/sidebyside.sh $(SIDEBYSIDE_FLAGS)

# Runs the suite against the built-in reference servers: aftersales and
# tutor (bearer-protected over HTTP), each over stdio and Streamable HTTP.
# Each run leaves report.json, junit.xml, report.html and summary.md in
# $(REPORTS)/<fixture>-<transport>; $(REPORTS)/matrix.html compares them.
DEMO_TOKEN ?= demo-token-not-a-secret
demo: build
	$(BIN) run --report-dir $(REPORTS)/aftersales-stdio -- $(BIN) fixture aftersales
	@$(MAKE) --no-print-directory demo-http FIXTURE=aftersales
	$(BIN) run --quiet --report-dir $(REPORTS)/tutor-stdio -- $(BIN) fixture tutor
	@$(MAKE) --no-print-directory demo-http FIXTURE=tutor RUNFLAGS="--quiet --bearer-env TUTOR_TOKEN"
	$(BIN) report --html $(REPORTS)/matrix.html $(REPORTS)/aftersales-stdio $(REPORTS)/aftersales-http $(REPORTS)/tutor-stdio $(REPORTS)/tutor-http
	@$(MAKE) --no-print-directory demo-client

# The client half: the reference client (fixtures/clientref, on the
# go-sdk) played every scenario over Streamable HTTP and over stdio;
# reports in $(REPORTS)/refclient-<transport>.
demo-client: build
	$(GO) build -o bin/refclient ./fixtures/cmd/refclient
	$(BIN) client --report-dir $(REPORTS)/refclient-http -- bin/refclient
	$(BIN) client --quiet --report-dir $(REPORTS)/refclient-stdio -- bin/refclient --stdio -- {server}

demo-http:
	@set -e; mkdir -p $(REPORTS); url=$(REPORTS)/.$(FIXTURE).url; rm -f $$url; \
	TUTOR_TOKEN=$(DEMO_TOKEN) $(BIN) fixture $(FIXTURE) --http 127.0.0.1:0 > $$url & pid=$$!; \
	trap 'kill $$pid 2>/dev/null' EXIT; \
	for i in $$(seq 1 100); do grep -q '^listening on ' $$url 2>/dev/null && break; sleep 0.05; done; \
	TUTOR_TOKEN=$(DEMO_TOKEN) $(BIN) run $(RUNFLAGS) --report-dir $(REPORTS)/$(FIXTURE)-http --url $$(sed -n 's/^listening on //p' $$url)

# Micro-benchmarks (./fuzz: the fuzzer's exchanges/s and harness CPU per
# exchange over stdio and HTTP beside a bare request loop against the same
# server); then, one iteration each (they take seconds): the full
# suite against the reference fixture over stdio and HTTP (wall time, peak
# memory, checks, ms/check), full runs against a fixture that behaves like a
# TypeScript SDK server (mutant ts-sdk-like: invalid requests dropped, a few ms
# per message) and one whose every error carries "id": null (errors-id-null,
# RPC-002 must FAIL), with the processes started and the observed p99
# latency, full runs against the reference fixture behind a 300 ms start-up
# without and with the processes started ahead of need (--prestart), the report sizes (report.html, report.json, junit.xml) and peak
# RSS of a full run with every report, full default runs against the
# reference made slow like the servers of issue 24 (a 1.3 s first answer on
# stdio, 1 s per HTTP session, a 2 s tool, every answer 370 ms late: wall,
# harness CPU, handshake wall time, lane workers, the longest NA), walking a 1,000- and a 10,000-item catalog page
# by page through the session layer (ns/item stays flat: linear growth), and
# building the 10,000-item fixture catalog.
SLOW_BENCH_PKGS = ./cmd/mcpconform ./fixtures
bench:
	$(GO) test -run '^$$' -bench . -benchmem $$($(GO) list ./... | grep -v -x -e '.*/cmd/mcpconform' -e '.*/fixtures')
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x $(SLOW_BENCH_PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags slow ./fuzz/ ./reports/ ./fixtures/killmatrix/ ./internal/repro/
	@$(GO) run ./cmd/mcpconform list --all | diff -u suites/checks.txt - \
		|| { echo "suites/checks.txt differs from 'mcpconform list --all': run make checks-list and commit it"; exit 1; }
	@$(GO) run ./cmd/mcpconform list --markdown | diff -u docs/requirements.md - \
		|| { echo "docs/requirements.md differs from 'mcpconform list --markdown': run make checks-list and commit it"; exit 1; }

# suites/checks.txt: every requirement, its links, where its check is
# registered and the kill-matrix mutants that kill it; docs/requirements.md:
# the published catalog (requirements with their statements and links, and
# the tolerances). Both generated; make lint diffs them.
checks-list:
	$(GO) run ./cmd/mcpconform list --all > suites/checks.txt
	$(GO) run ./cmd/mcpconform list --markdown > docs/requirements.md

clean:
	rm -rf bin $(REPORTS)
