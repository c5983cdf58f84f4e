// Package mcptarget describes the MCP server under test: a command that
// speaks stdio, or a Streamable HTTP endpoint. The suite's Go test API
// (package suites, which re-exports these as suites.Target, suites.Stdio
// and suites.HTTP) and the fuzzer (package fuzz) both take it. It depends
// on nothing else of mcpconform, so a fuzz test binary that imports the
// fuzzer carries neither the suite nor its test framework.
package mcptarget

// Target is the server under test.
type Target struct {
	command []string
	url     string
}

// Stdio is a server launched as command with args, speaking stdio.
func Stdio(command string, args ...string) Target {
	return Target{command: append([]string{command}, args...)}
}

// HTTP is a Streamable HTTP endpoint.
func HTTP(url string) Target { return Target{url: url} }

// Command returns the command line of a stdio target (nil for HTTP).
func (t Target) Command() []string { return append([]string(nil), t.command...) }

// URL returns the endpoint of an HTTP target ("" for stdio).
func (t Target) URL() string { return t.url }
