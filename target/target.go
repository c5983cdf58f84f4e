// Package target describes the MCP server under test, for the Go APIs of
// mcpconform: the suite (suites.Run) and the fuzzer (fuzz.Fuzz,
// fuzz.NewTarget) take the same description. It has no test framework in
// it, so a fuzzing binary built on the fuzzer carries none of the suite.
//
//	target.Stdio("go", "run", "./cmd/server")
//	target.HTTP("http://127.0.0.1:8080/mcp")
package target

// Target is the server under test: a command launched over stdio, or a
// Streamable HTTP endpoint.
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
