package contract

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/inspect"
)

// annotationDefaults are the spec's defaults of the tool hints (schema
// ToolAnnotations): written out, so an SDK that starts or stops omitting
// defaults changes nothing.
var annotationDefaults = map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}

// requestMeta are the per-request _meta keys (plumbing, not surface).
var requestMeta = map[string]bool{
	"io.modelcontextprotocol/protocolVersion": true, "io.modelcontextprotocol/clientInfo": true,
	"io.modelcontextprotocol/clientCapabilities": true, "io.modelcontextprotocol/subscriptionId": true,
	"io.modelcontextprotocol/logLevel": true, "io.modelcontextprotocol/serverInfo": true,
	"traceparent": true, "tracestate": true, "baggage": true, "progressToken": true,
}

// volatile are item keys that change without the surface changing.
var volatile = map[string]bool{"ttlMs": true, "nextCursor": true, "resultType": true}

// section builds the surface of one inspection: identity, capabilities,
// the lists keyed by identity, canonicalised.
func section(in *inspect.Inspection) (map[string]any, []string) {
	var notes []string
	sec := map[string]any{}
	server := map[string]any{}
	if obj, ok := tree(in.ServerInfo).(map[string]any); ok {
		server = obj
		canonIcons(server)
	}
	if in.Instructions != "" {
		server["instructions"] = in.Instructions
	}
	sec["server"] = server
	caps, _ := tree(in.Capabilities).(map[string]any)
	if caps == nil {
		caps = map[string]any{}
	}
	sec["capabilities"] = caps
	if len(in.SupportedVersions) > 0 {
		vs := slices.Clone(in.SupportedVersions)
		slices.Sort(vs)
		var list []any
		for _, v := range slices.Compact(vs) {
			list = append(list, v)
		}
		sec["supportedVersions"] = list
	}
	if len(in.CacheScopes) > 0 {
		sec["cacheScope"] = stringMap(in.CacheScopes)
	}
	lists := []struct {
		kind, method, key string
		items             []json.RawMessage
		canon             func(map[string]any)
	}{
		{"tools", "tools/list", "name", in.Tools, canonTool},
		{"prompts", "prompts/list", "name", in.Prompts, canonPrompt},
		{"resources", "resources/list", "uri", in.Resources, canonItem},
		{"resourceTemplates", "resources/templates/list", "uriTemplate", in.ResourceTemplates, canonItem},
	}
	var incomplete []any
	for _, l := range lists {
		if !declaredFor(caps, l.kind) {
			continue
		}
		for _, n := range in.Notes {
			if strings.HasPrefix(n, l.method+": ") {
				incomplete = append(incomplete, l.method)
				break
			}
		}
		m := map[string]any{}
		for _, raw := range l.items {
			obj, ok := tree(raw).(map[string]any)
			if !ok {
				notes = append(notes, fmt.Sprintf("%s: an item is not an object; left out", l.method))
				continue
			}
			id, ok := obj[l.key].(string)
			if !ok {
				notes = append(notes, fmt.Sprintf("%s: an item has no string %q; left out", l.method, l.key))
				continue
			}
			if _, dup := m[id]; dup {
				notes = append(notes, fmt.Sprintf("%s: %q is listed twice; the last one kept", l.method, id))
			}
			delete(obj, l.key)
			l.canon(obj)
			m[id] = obj
		}
		sec[l.kind] = m
	}
	if len(incomplete) > 0 {
		sec["incomplete"] = incomplete
	}
	return sec, notes
}

// declaredFor: the lists a capability covers.
func declaredFor(caps map[string]any, kind string) bool {
	c := map[string]string{"tools": "tools", "prompts": "prompts", "resources": "resources", "resourceTemplates": "resources"}[kind]
	v, ok := caps[c]
	return ok && v != nil
}

func tree(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := decodeAny(raw)
	if err != nil {
		return nil
	}
	return v
}

func canonItem(obj map[string]any) {
	for k := range obj {
		if volatile[k] {
			delete(obj, k)
		}
	}
	if meta, ok := obj["_meta"].(map[string]any); ok {
		for k := range meta {
			if requestMeta[k] {
				delete(meta, k)
			}
		}
		if len(meta) == 0 {
			delete(obj, "_meta")
		}
	}
	canonIcons(obj)
}

func canonTool(obj map[string]any) {
	canonItem(obj)
	ann, _ := obj["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	for k, d := range annotationDefaults {
		if _, ok := ann[k].(bool); !ok {
			ann[k] = d
		}
	}
	obj["annotations"] = ann
	for _, k := range []string{"inputSchema", "outputSchema"} {
		if s, ok := obj[k]; ok {
			canonSchema(s, 0)
		}
	}
}

func canonPrompt(obj map[string]any) {
	canonItem(obj)
	list, ok := obj["arguments"].([]any)
	if !ok {
		return
	}
	args := map[string]any{}
	for _, a := range list {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		delete(m, "name")
		if _, ok := m["required"].(bool); !ok {
			m["required"] = false
		}
		args[name] = m
	}
	obj["arguments"] = args
}

// canonIcons writes each data: icon as its digest, type and size (the
// bytes are noise in review; the origin of the others is what matters).
func canonIcons(obj map[string]any) {
	icons, ok := obj["icons"].([]any)
	if !ok {
		return
	}
	for _, ic := range icons {
		m, ok := ic.(map[string]any)
		if !ok {
			continue
		}
		src, _ := m["src"].(string)
		if !strings.HasPrefix(src, "data:") {
			continue
		}
		head, data, _ := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
		raw := []byte(data)
		if strings.HasSuffix(head, ";base64") {
			if b, err := base64.StdEncoding.DecodeString(data); err == nil {
				raw = b
			}
		}
		sum := sha256.Sum256(raw)
		m["src"] = fmt.Sprintf("data:%s;sha256=%s;bytes=%d", strings.TrimSuffix(head, ";base64"), hex.EncodeToString(sum[:8]), len(raw))
	}
}

// setKeywords are schema keywords whose array is a set: sorted.
var setKeywords = []string{"required", "type", "enum"}

// canonSchema sorts a schema's set-valued keywords, recursively (sequences
// such as prefixItems and allOf keep their order).
func canonSchema(v any, depth int) {
	s, ok := v.(map[string]any)
	if !ok || depth > 64 {
		return
	}
	for _, k := range setKeywords {
		if list, ok := s[k].([]any); ok {
			slices.SortFunc(list, func(a, b any) int { return strings.Compare(canonical(a), canonical(b)) })
		}
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
		if m, ok := s[k].(map[string]any); ok {
			for _, sub := range m {
				canonSchema(sub, depth+1)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"} {
		canonSchema(s[k], depth+1)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"} {
		if list, ok := s[k].([]any); ok {
			for _, sub := range list {
				canonSchema(sub, depth+1)
			}
		}
	}
}
