package tools

import (
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/internal/toolschema"
)

// JSON Schema support for tool schemas: metaschema validation (TOOL-004)
// and validation of instances against inputSchema / outputSchema (TOOL-008,
// TOOL-012, TOOL-014), with internal/toolschema.

// dialects are the $schema values the validator knows (with or without the
// empty fragment, over http or https). The MCP default (2025-11-25+) is
// 2020-12 when $schema is absent.
var dialects = map[string]string{
	"json-schema.org/draft/2020-12/schema": "2020-12",
	"json-schema.org/draft/2019-09/schema": "2019-09",
	"json-schema.org/draft-07/schema":      "draft-07",
	"json-schema.org/draft-06/schema":      "draft-06",
	"json-schema.org/draft-04/schema":      "draft-04",
	"json-schema.org/schema":               "the latest draft",
}

// declaredDialect returns the schema's $schema when it is a string, and the
// dialect name when the validator supports it ("" otherwise). ok is false
// when there is no string $schema (the default dialect applies, or the
// metaschema rejects the member).
func declaredDialect(schema json.RawMessage) (declared string, known string, ok bool) {
	var o map[string]json.RawMessage
	if json.Unmarshal(schema, &o) != nil {
		return "", "", false
	}
	s, isStr := str(o["$schema"])
	if !isStr {
		return "", "", false
	}
	u := strings.TrimSuffix(s, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return s, dialects[u], true
}

// The schema machinery is shared with the stale suite and the fuzzer.
var (
	compileSchema = toolschema.Compile
	validate      = toolschema.Validate
	oneLine       = toolschema.OneLine
	externalRef   = toolschema.ExternalRef
)
