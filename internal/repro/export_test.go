package repro

import "github.com/mcpconform/mcpconform/internal/wire"

func wireHTTP() wire.HTTPInfo {
	return wire.HTTPInfo{Method: "POST", Header: map[string][]string{"Authorization": {"Bearer [REDACTED]"}, "Content-Type": {"application/json"}, "Mcp-Session-Id": {"abc"}, "X-Api-Key": {"api-key-value"}}}
}
