// Package tools checks tools/list and tools/call (TOOL).
package tools
