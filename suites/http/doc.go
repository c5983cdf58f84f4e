// Package http holds the Streamable HTTP transport checks (HTTP-xxx).
package http
