#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of the mcpconform campaign.
#
# 1. The server under test, next to the fuzzer in $OUT: the fuzz target
#    starts it from there (mcpfuzz/cflite: mcp-server beside the fuzzer).
#    A server in another language is built here the same way, as long as
#    the result runs from $OUT in the runner image.
go build -o "$OUT/mcp-server" ./cmd/server

# 2. The fuzz test, compiled for libFuzzer. compile_native_go_fuzzer needs
#    go-118-fuzz-build and its testing package in the module.
go install github.com/AdamKorcz/go-118-fuzz-build@latest
go get github.com/AdamKorcz/go-118-fuzz-build/testing
compile_native_go_fuzzer example.com/mcp-server/mcpfuzz/cflite FuzzServerLibFuzzer fuzz_mcp_server
