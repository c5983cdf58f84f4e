# mcpconform — conformance suite and protocol fuzzer for MCP servers.
GO      ?= go
BIN     ?= bin/mcpconform
REPORTS ?= mcpconform-report

.PHONY: build test demo bench lint clean

build:
	$(GO) build -o $(BIN) ./cmd/mcpconform

# The whole test suite, including the kill matrix (reference fixtures pass
# everything; each mutant fails exactly its listed requirements).
test:
	$(GO) test -count=1 ./...

# Runs the suite against the built-in aftersales reference server over stdio
# and over Streamable HTTP; reports land in $(REPORTS)/stdio and $(REPORTS)/http.
demo: build
	$(BIN) run --report-dir $(REPORTS)/stdio -- $(BIN) fixture aftersales
	@set -e; rm -f $(REPORTS)/.url; mkdir -p $(REPORTS); \
	$(BIN) fixture aftersales --http 127.0.0.1:0 > $(REPORTS)/.url & pid=$$!; \
	trap 'kill $$pid 2>/dev/null' EXIT; \
	for i in $$(seq 1 100); do grep -q '^listening on ' $(REPORTS)/.url 2>/dev/null && break; sleep 0.05; done; \
	url=$$(sed -n 's/^listening on //p' $(REPORTS)/.url); \
	$(BIN) run --report-dir $(REPORTS)/http --url $$url

# Wall time and peak memory of full runs, plus micro-benchmarks.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin $(REPORTS)
