package http

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// headerProp is a root property of a tool's inputSchema that carries
// x-mcp-header.
type headerProp struct {
	prop   string // the property name
	header string // the x-mcp-header value (Mcp-Param-<header>)
	typ    string // the property's JSON Schema type
	schema map[string]json.RawMessage
}

// headerProps returns the root properties of tool's inputSchema with a
// string x-mcp-header, sorted by property name.
func headerProps(tool json.RawMessage) []headerProp {
	var def struct {
		InputSchema struct {
			Properties map[string]map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(tool, &def) != nil {
		return nil
	}
	var out []headerProp
	for name, sch := range def.InputSchema.Properties {
		var h, typ string
		if json.Unmarshal(sch["x-mcp-header"], &h) != nil || h == "" {
			continue
		}
		_ = json.Unmarshal(sch["type"], &typ)
		out = append(out, headerProp{prop: name, header: h, typ: typ, schema: sch})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].prop < out[j].prop })
	return out
}

// headerValue encodes an argument value for an Mcp-Param-* header.
func headerValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return streamhttp.EncodeHeaderValue(x), true
	case bool:
		return fmt.Sprint(x), true
	case int:
		return fmt.Sprint(x), true
	case int64:
		return fmt.Sprint(x), true
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x)), true
		}
		return "", false
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// paramHeaders returns the Mcp-Param-* headers a client sends for args.
func paramHeaders(tool json.RawMessage, args map[string]any) http.Header {
	h := http.Header{}
	for _, p := range headerProps(tool) {
		v, ok := args[p.prop]
		if !ok || v == nil {
			continue
		}
		if s, ok := headerValue(v); ok {
			h.Set("Mcp-Param-"+p.header, s)
		}
	}
	return h
}

// sampleValue returns a value of the property's type for a probe: the
// schema's const, default, first example or first enum value, else a plain
// value of the type.
func sampleValue(p headerProp) (any, bool) {
	for _, key := range []string{"const", "default"} {
		if raw, ok := p.schema[key]; ok {
			var v any
			if json.Unmarshal(raw, &v) == nil && v != nil {
				return v, true
			}
		}
	}
	for _, key := range []string{"examples", "enum"} {
		var vs []any
		if json.Unmarshal(p.schema[key], &vs) == nil {
			for _, v := range vs {
				if v != nil {
					return v, true
				}
			}
		}
	}
	switch p.typ {
	case "string":
		return "mcpconform", true
	case "integer":
		return 42, true
	case "boolean":
		return true, true
	}
	return nil, false
}

// differentValue returns a header value that differs from v.
func differentValue(v any) string {
	switch x := v.(type) {
	case string:
		return streamhttp.EncodeHeaderValue(x + "-mcpconform-other")
	case bool:
		return fmt.Sprint(!x)
	case float64:
		return fmt.Sprint(int64(x) + 1)
	case int:
		return fmt.Sprint(x + 1)
	}
	return "mcpconform-other"
}
