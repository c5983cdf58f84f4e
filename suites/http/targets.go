package http

import (
	"encoding/json"
	"net/http"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// named is a request that carries Mcp-Name (tools/call, prompts/get,
// resources/read), built from what the server lists.
type named struct {
	method string
	params map[string]any
	name   string // the value Mcp-Name mirrors (params.name or params.uri)
	other  string // a value of the same kind that differs from name
	extra  http.Header
}

// namedRequests returns at most one request of each kind the server
// offers: a listed resource, a listed prompt (required arguments filled
// with a plain string), and a listed tool the call policy lets the harness
// call (arguments from ArgsFor). Reads come first: they never change state.
func namedRequests(t *c.T, s *session.Session) []named {
	var out []named
	first := func(method, items string) json.RawMessage {
		resp, err := t.TryCall(s, method, map[string]any{}, nil)
		if err != nil || !resp.IsResult() {
			return nil
		}
		var list []json.RawMessage
		_ = json.Unmarshal(resp.Msg.ResultObject()[items], &list)
		if len(list) == 0 {
			return nil
		}
		return list[0]
	}
	if c.Declared(s, "resources") {
		if r := first("resources/list", "resources"); r != nil {
			if uri := c.ItemKey(r, "uri"); uri != "" {
				out = append(out, named{method: "resources/read", params: map[string]any{"uri": uri}, name: uri, other: "mcpconform://not-" + "the-listed-resource"})
			}
		}
	}
	if c.Declared(s, "prompts") {
		if p := first("prompts/list", "prompts"); p != nil {
			if name := c.ItemKey(p, "name"); name != "" {
				args := c.RequiredPromptArgs(p)
				params := map[string]any{"name": name}
				if len(args) > 0 {
					params["arguments"] = args
				}
				out = append(out, named{method: "prompts/get", params: params, name: name, other: name + "-mcpconform-other"})
			}
		}
	}
	if c.Declared(s, "tools") {
		resp, err := t.TryCall(s, "tools/list", map[string]any{}, nil)
		if err == nil && resp.IsResult() {
			var tools []json.RawMessage
			_ = json.Unmarshal(resp.Msg.ResultObject()["tools"], &tools)
			for _, tool := range tools {
				if ok, _ := t.MayCall(tool); !ok {
					continue
				}
				args, _, ok := t.ArgsFor(tool)
				if !ok {
					continue
				}
				name := c.ItemKey(tool, "name")
				out = append(out, named{method: "tools/call", params: map[string]any{"name": name, "arguments": args}, name: name, other: name + "-mcpconform-other", extra: paramHeaders(tool, args)})
				break
			}
		}
	}
	return out
}
