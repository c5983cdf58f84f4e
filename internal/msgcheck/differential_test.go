package msgcheck

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// The differential test: the hand-written model and the official JSON Schema
// (compiled by santhosh-tekuri/jsonschema) must agree, valid or invalid, on
// every official example and on generated messages.

// modelOnly lists the rules the official schemas cannot express. Problems
// with these rules are left out of the comparison: the model may report them
// where the schema accepts the message.
var modelOnly = map[string]string{
	// Byte-level: a decoded JSON value cannot show repeated member names, so
	// no schema can forbid them (SPEC-DIGEST §17.15: unique inputRequests keys).
	RuleDuplicateKey: "duplicate object member names",
	// The schemas never say additionalProperties:false, so an object with
	// both result and error matches the result branch of JSONRPCMessage.
	RuleResultAndError: "exactly one of result/error",
	// A message with a method and a bad id (null, float, object) matches
	// JSONRPCNotification, which does not declare id.
	RuleRequestID: "request id must be string|integer",
	// Which requests a server may send is a direction rule; JSONRPCMessage
	// accepts any request.
	RuleServerRequest: "servers send no requests (2026) / only ServerRequest methods",
	// An empty batch matches "type":"array" with no minItems (2025-03-26).
	RuleBatch: "empty batch",
	// resultType is {"type":"string"} in the schema; its values are prose.
	RuleResultType:          "resultType value for the method",
	RuleResultTypeExtension: "resultType extension value",
	// InputRequiredResult has no anyOf requiring one of the two members
	// (SPEC-DIGEST §10.1, §17.15).
	RuleInputRequiredEmpty: "at least one of inputRequests/requestState",
	// format:"byte" is not a format JSON Schema validators know.
	RuleBase64: "base64 of format:byte members",
	// MetaObject is {"type":"object"}: the key grammar is prose.
	RuleMetaKey:      "_meta key grammar",
	RuleExtensionKey: "capabilities.extensions key grammar",
	// TextResourceContents|BlobResourceContents is an anyOf; both match an
	// object with text and blob.
	RuleTextAndBlob: "exactly one of text/blob",
	// maxItems:100 appears only in the 2026-07-28 schema.
	RuleCompletionValues: "at most 100 completion values before 2026-07-28",
	// Error codes are {"type":"integer"} in JSONRPCErrorResponse.
	RuleErrorCode: "forbidden/unallocated error codes (2026-07-28)",
	// inputSchema/outputSchema must themselves be valid JSON Schema; the
	// MCP schema only describes their top level.
	RuleToolSchema: "tool schemas compile as JSON Schema",
}

// The model also routes some unions by a member instead of the schema's
// anyOf; the oracle is asked the same question (see officialDef):
//   - 2026-07-28 tools/call, prompts/get, resources/read results:
//     resultType "input_required" selects InputRequiredResult, anything else
//     the method's own result. The schema's anyOf lets almost any object
//     through as an InputRequiredResult (it requires only resultType).
//   - 2025-11-25 tools/call results: a task and no content selects
//     CreateTaskResult, anything else CallToolResult.

// exampleExclusions are official examples that are not valid messages.
var exampleExclusions = map[string]string{
	// Finding: this response answers resources/read with resultType
	// "complete" but without ttlMs and cacheScope, which ReadResourceResult
	// requires (SPEC-DIGEST §5). schema.json accepts it only through the
	// InputRequiredResult branch of the result's anyOf.
	"ReadResourceResultResponse/read-resource-result-response.json": "complete resources/read result without ttlMs/cacheScope",
}

func TestModelOnlyListMatchesPackage(t *testing.T) {
	var pkg, test []string
	pkg = append(pkg, semanticRules...)
	for r := range modelOnly {
		test = append(test, r)
	}
	sort.Strings(pkg)
	sort.Strings(test)
	if strings.Join(pkg, ",") != strings.Join(test, ",") {
		t.Fatalf("model-only rules differ:\npackage: %v\ntest:    %v", pkg, test)
	}
}

// verdict summarises the model's issues: valid when nothing but model-only
// rules fired. It also checks that the model marks exactly the listed rules
// as semantic.
func verdict(t interface{ Fatalf(string, ...any) }, issues []issue) (bool, []Problem) {
	var counted []Problem
	for _, is := range issues {
		_, listed := modelOnly[is.Rule]
		if listed != is.semantic {
			t.Fatalf("rule %q: the model marks it semantic=%v, the model-only list says %v (%s)", is.Rule, is.semantic, listed, is.Problem)
		}
		if !listed {
			counted = append(counted, is.Problem)
		}
	}
	return len(counted) == 0, counted
}

// officialDef validates inst against def, routing the MRTR unions the way
// the model does.
func officialDef(o *oracle, def string, inst any, raw []byte) error {
	if err := o.validate(def, raw); err != nil {
		return err
	}
	switch def {
	case "CallToolResultResponse", "GetPromptResultResponse", "ReadResourceResultResponse":
		m, _ := inst.(map[string]any)
		branch := strings.TrimSuffix(def, "Response")
		if r, ok := m["result"].(map[string]any); ok && r["resultType"] == "input_required" {
			branch = "InputRequiredResult"
		}
		b, _ := json.Marshal(m["result"])
		return o.validate(branch, b)
	}
	return nil
}

func TestDifferentialExamples(t *testing.T) {
	const rev = "2026-07-28"
	o := loadOracle(t, rev)
	dir := filepath.Join(schemaDir(t), rev, "examples")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 129 {
		t.Errorf("found %d examples, want 129", len(files))
	}
	var agree, bothValid, excluded int
	for _, f := range files {
		def := filepath.Base(filepath.Dir(f))
		name := def + "/" + filepath.Base(f)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var inst any
		if err := json.Unmarshal(raw, &inst); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		issues := validateAs(rev, def, raw)
		modelOK, counted := verdict(t, issues)
		offErr := officialDef(o, def, inst, raw)
		if modelOK != (offErr == nil) {
			t.Errorf("%s: model and official schema disagree\nmodel: %v\nofficial: %s", name, counted, briefErr(offErr))
			continue
		}
		agree++
		if why, ok := exampleExclusions[name]; ok {
			excluded++
			if modelOK {
				t.Errorf("%s is excluded (%s) but is now valid; drop the exclusion", name, why)
			}
			continue
		}
		if len(issues) > 0 || offErr != nil {
			t.Errorf("%s: example should be valid\nmodel: %v\nofficial: %s", name, problems(issues), briefErr(offErr))
			continue
		}
		bothValid++
	}
	t.Logf("%d examples: %d agree, %d valid in both, %d excluded as findings", len(files), agree, bothValid, excluded)
}

// rapidChecks sets rapid's number of checks unless -rapid.checks was given.
var rapidChecksOnce sync.Once

func rapidChecks(n int) {
	rapidChecksOnce.Do(func() {
		given := false
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "rapid.checks" {
				given = true
			}
		})
		if !given {
			if f := flag.Lookup("rapid.checks"); f != nil {
				_ = f.Value.Set(fmt.Sprint(n))
			}
		}
	})
}

// counts tallies agreements for the log.
type counts struct {
	mu                       sync.Mutex
	valid, invalid, excluded int
}

func (c *counts) add(modelOK bool, onlyExcluded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case onlyExcluded:
		c.excluded++
	case modelOK:
		c.valid++
	default:
		c.invalid++
	}
}

func (c *counts) String() string {
	return fmt.Sprintf("%d agreements (%d both valid, %d both invalid, %d valid once model-only rules are set aside)",
		c.valid+c.invalid+c.excluded, c.valid, c.invalid, c.excluded)
}

func comparableDefs(t *testing.T, o *oracle, rev string) []string {
	model := map[string]bool{}
	for _, d := range Definitions(rev) {
		model[d] = true
	}
	var both, officialOnly []string
	for _, d := range o.names() {
		if model[d] {
			both = append(both, d)
		} else {
			officialOnly = append(officialOnly, d)
		}
	}
	if len(officialOnly) > 0 {
		t.Errorf("%s: the model lacks official definitions %v", rev, officialOnly)
	}
	return both
}

// shards splits xs into groups of about n, one rapid property each, so every
// definition gets a fair share of the checks.
func shards[T any](xs []T, n int) [][]T {
	var out [][]T
	for len(xs) > n {
		out = append(out, xs[:n])
		xs = xs[n:]
	}
	if len(xs) > 0 {
		out = append(out, xs)
	}
	return out
}

func TestDifferentialDefinitions(t *testing.T) {
	rapidChecks(200)
	for _, rev := range Revisions() {
		t.Run(rev, func(t *testing.T) {
			o := loadOracle(t, rev)
			defs := comparableDefs(t, o, rev)
			var c counts
			for i, shard := range shards(defs, 12) {
				t.Run(fmt.Sprintf("%02d-%s", i, shard[0]), func(t *testing.T) {
					rapid.Check(t, func(rt *rapid.T) {
						def := rapid.SampledFrom(shard).Draw(rt, "definition")
						g := newGen(rt, o)
						var inst any // a mutation may replace the whole value
						g.defInto(def, func(x any) { inst = x })
						compareDef(rt, o, rev, def, inst, "generated", &c)
						if len(g.sites) == 0 {
							return
						}
						s := g.sites[rapid.IntRange(0, len(g.sites)-1).Draw(rt, "mutation")]
						s.apply()
						compareDef(rt, o, rev, def, inst, s.desc, &c)
					})
				})
			}
			t.Logf("%s: %d definitions compared; %s", rev, len(defs), &c)
		})
	}
}

func compareDef(t *rapid.T, o *oracle, rev, def string, inst any, what string, c *counts) {
	raw, err := json.Marshal(inst)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	issues := validateAs(rev, def, raw)
	modelOK, counted := verdict(t, issues)
	offErr := officialDef(o, def, inst, raw)
	if what == "generated" && offErr != nil {
		// The generator reads the official schema; what it builds before
		// mutating must be valid there, or the comparison proves little.
		t.Fatalf("%s %s: generated instance is not valid against the official schema\nmessage: %s\nofficial: %s",
			rev, def, raw, briefErr(offErr))
	}
	if modelOK != (offErr == nil) {
		t.Fatalf("%s %s (%s): model and official schema disagree\nmessage: %s\nmodel: %v\nofficial: %s",
			rev, def, what, raw, counted, briefErr(offErr))
	}
	c.add(modelOK, modelOK && len(issues) > 0)
}

// ---- server messages ----

// The oracle's own routing tables, written from the specification
// independently of the model's (model_base.go routes).

func officialResultDef(rev, method string, result any) string {
	modern := rev == "2026-07-28"
	r, _ := result.(map[string]any)
	inputRequired := modern && r != nil && r["resultType"] == "input_required"
	switch method {
	case "initialize":
		if !modern {
			return "InitializeResult"
		}
	case "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
		if !modern {
			return "EmptyResult"
		}
	case "server/discover":
		if modern {
			return "DiscoverResult"
		}
	case "subscriptions/listen":
		if modern {
			return "SubscriptionsListenResult"
		}
	case "tools/list":
		return "ListToolsResult"
	case "resources/list":
		return "ListResourcesResult"
	case "resources/templates/list":
		return "ListResourceTemplatesResult"
	case "prompts/list":
		return "ListPromptsResult"
	case "completion/complete":
		return "CompleteResult"
	case "tools/call":
		if inputRequired {
			return "InputRequiredResult"
		}
		if rev == "2025-11-25" && r != nil {
			_, task := r["task"]
			_, content := r["content"]
			if task && !content {
				return "CreateTaskResult"
			}
		}
		return "CallToolResult"
	case "prompts/get":
		if inputRequired {
			return "InputRequiredResult"
		}
		return "GetPromptResult"
	case "resources/read":
		if inputRequired {
			return "InputRequiredResult"
		}
		return "ReadResourceResult"
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		if rev == "2025-11-25" {
			return map[string]string{"tasks/get": "GetTaskResult", "tasks/result": "GetTaskPayloadResult",
				"tasks/cancel": "CancelTaskResult", "tasks/list": "ListTasksResult"}[method]
		}
	}
	return "Result"
}

var officialNotifications = map[string]string{
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/progress":                   "ProgressNotification",
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/prompts/list_changed":       "PromptListChangedNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/tasks/status":               "TaskStatusNotification",
	"notifications/elicitation/complete":       "ElicitationCompleteNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
}

var officialServerRequests = map[string]string{
	"ping":                   "PingRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"roots/list":             "ListRootsRequest",
	"elicitation/create":     "ElicitRequest",
	"tasks/get":              "GetTaskRequest",
	"tasks/result":           "GetTaskPayloadRequest",
	"tasks/cancel":           "CancelTaskRequest",
	"tasks/list":             "ListTasksRequest",
}

func officialMessage(o *oracle, rev string, msg any, raw []byte, method string) error {
	if err := o.validate("JSONRPCMessage", raw); err != nil {
		return err
	}
	if batch, ok := msg.([]any); ok {
		for _, el := range batch {
			b, _ := json.Marshal(el)
			if err := officialElement(o, rev, el, b, ""); err != nil {
				return err
			}
		}
		return nil
	}
	return officialElement(o, rev, msg, raw, method)
}

func officialElement(o *oracle, rev string, msg any, raw []byte, method string) error {
	m, ok := msg.(map[string]any)
	if !ok {
		return nil
	}
	check := func(def string, v any) error {
		if o.defs[def] == nil {
			return nil
		}
		b, _ := json.Marshal(v)
		return o.validate(def, b)
	}
	if name, isCall := m["method"]; isCall {
		s, _ := name.(string)
		if _, hasID := m["id"]; hasID {
			if rev == "2026-07-28" {
				return nil
			}
			return check(officialServerRequests[s], msg)
		}
		return check(officialNotifications[s], msg)
	}
	_, r := m["result"]
	_, e := m["error"]
	switch {
	case r && !e:
		return check(officialResultDef(rev, method, m["result"]), m["result"])
	case e && !r:
		errObj, _ := m["error"].(map[string]any)
		code := fmt.Sprint(errObj["code"])
		def := map[string]string{}
		if rev == "2026-07-28" {
			def = map[string]string{"-32020": "HeaderMismatchError", "-32021": "MissingRequiredClientCapabilityError", "-32022": "UnsupportedProtocolVersionError"}
		}
		if rev == "2025-11-25" {
			def = map[string]string{"-32042": "URLElicitationRequiredError"}
		}
		return check(def[code], msg)
	}
	return nil
}

// msgKind builds one kind of server message.
type msgKind struct {
	name   string
	method string // the request method a response answers
	build  func(g *gen) map[string]any
	valid  bool // build makes valid messages (before mutation)
}

func serverKinds(o *oracle, rev string) []msgKind {
	modern := rev == "2026-07-28"
	var kinds []msgKind
	has := func(d string) bool { return o.defs[d] != nil }
	envelope := func(g *gen, m map[string]any, withID bool) map[string]any {
		if _, ok := m["jsonrpc"]; !ok {
			m["jsonrpc"] = "2.0"
		}
		if _, ok := m["id"]; !ok && withID {
			m["id"] = rapid.SampledFrom([]any{1, "req-1", 0, -7}).Draw(g.t, "id")
		}
		return m
	}
	methods := []string{"tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read",
		"prompts/list", "prompts/get", "completion/complete", ""}
	if modern {
		methods = append(methods, "server/discover", "subscriptions/listen")
	} else {
		methods = append(methods, "initialize", "ping", "resources/subscribe", "logging/setLevel")
	}
	if rev == "2025-11-25" {
		methods = append(methods, "tasks/get", "tasks/result", "tasks/cancel", "tasks/list")
	}
	for _, method := range methods {
		method := method
		kinds = append(kinds, msgKind{name: "result of " + method, method: method, valid: true, build: func(g *gen) map[string]any {
			var branches []string
			switch {
			case modern && (method == "tools/call" || method == "prompts/get" || method == "resources/read"):
				branches = []string{officialResultDef(rev, method, nil), "InputRequiredResult"}
			case rev == "2025-11-25" && method == "tools/call":
				branches = []string{"CallToolResult", "CreateTaskResult"}
			default:
				branches = []string{officialResultDef(rev, method, nil)}
			}
			def := rapid.SampledFrom(branches).Draw(g.t, "result definition")
			res := g.def(def)
			return envelope(g, map[string]any{"result": res}, true)
		}})
	}
	errDef := "JSONRPCError"
	if has("JSONRPCErrorResponse") {
		errDef = "JSONRPCErrorResponse"
	}
	kinds = append(kinds, msgKind{name: "error", build: func(g *gen) map[string]any {
		m := g.def(errDef).(map[string]any)
		if e, ok := m["error"].(map[string]any); ok {
			e["code"] = rapid.SampledFrom([]int{-32700, -32600, -32601, -32602, -32603, -32002, -32042,
				-32020, -32021, -32022, -32050, -32000, 7}).Draw(g.t, "code")
		}
		return m
	}})
	for _, d := range []string{"HeaderMismatchError", "UnsupportedProtocolVersionError",
		"MissingRequiredClientCapabilityError", "URLElicitationRequiredError"} {
		if d := d; has(d) {
			kinds = append(kinds, msgKind{name: d, valid: true, build: func(g *gen) map[string]any {
				return g.def(d).(map[string]any)
			}})
		}
	}
	for _, d := range officialNotifications {
		if d := d; has(d) {
			kinds = append(kinds, msgKind{name: d, valid: true, build: func(g *gen) map[string]any {
				return envelope(g, g.def(d).(map[string]any), false)
			}})
		}
	}
	if !modern {
		for _, d := range officialServerRequests {
			if d := d; has(d) {
				kinds = append(kinds, msgKind{name: d, valid: true, build: func(g *gen) map[string]any {
					return envelope(g, g.def(d).(map[string]any), true)
				}})
			}
		}
	} else {
		kinds = append(kinds, msgKind{name: "request from a 2026 server", valid: true, build: func(g *gen) map[string]any {
			return envelope(g, map[string]any{"method": "ping"}, true)
		}})
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].name < kinds[j].name })
	return kinds
}

// envelopeSites are the JSON-RPC mutations of a built message.
func envelopeSites(g *gen, m map[string]any, modern bool) {
	g.site("null id", func() { m["id"] = nil })
	g.site("fractional id", func() { m["id"] = 1.5 })
	g.site("boolean id", func() { m["id"] = true })
	g.site("drop id", func() { delete(m, "id") })
	g.site("drop jsonrpc", func() { delete(m, "jsonrpc") })
	g.site("jsonrpc 1.0", func() { m["jsonrpc"] = "1.0" })
	g.site("numeric jsonrpc", func() { m["jsonrpc"] = 2.0 })
	if _, ok := m["result"]; ok {
		g.site("both result and error", func() { m["error"] = map[string]any{"code": -32603, "message": "x"} })
		g.site("result not an object", func() { m["result"] = "done" })
	}
	if _, ok := m["error"]; ok {
		res := map[string]any{}
		if modern {
			res["resultType"] = "complete"
		}
		g.site("both error and result", func() { m["result"] = res })
		g.site("error code not integer", func() {
			if e, ok := m["error"].(map[string]any); ok {
				e["code"] = "-32603"
			}
		})
	}
	if _, ok := m["method"]; ok {
		g.site("method not a string", func() { m["method"] = 5 })
		g.site("params not an object", func() { m["params"] = []any{1} })
	}
}

func TestDifferentialServerMessages(t *testing.T) {
	rapidChecks(200)
	for _, rev := range Revisions() {
		t.Run(rev, func(t *testing.T) {
			o := loadOracle(t, rev)
			kinds := serverKinds(o, rev)
			var c counts
			for i, shard := range shards(kinds, 6) {
				t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
					rapid.Check(t, func(rt *rapid.T) {
						k := rapid.SampledFrom(shard).Draw(rt, "kind")
						g := newGen(rt, o)
						var msg any = k.build(g)
						if rev == "2025-03-26" && rapid.IntRange(0, 9).Draw(rt, "batch") == 0 {
							msg = []any{msg}
							k.method = ""
						} else {
							envelopeSites(g, msg.(map[string]any), rev == "2026-07-28")
						}
						compareMessage(rt, o, rev, msg, k, "generated", &c)
						if len(g.sites) == 0 {
							return
						}
						s := g.sites[rapid.IntRange(0, len(g.sites)-1).Draw(rt, "mutation")]
						s.apply()
						compareMessage(rt, o, rev, msg, k, s.desc, &c)
					})
				})
			}
			t.Logf("%s: %d message kinds; %s", rev, len(kinds), &c)
		})
	}
}

func compareMessage(t *rapid.T, o *oracle, rev string, msg any, k msgKind, what string, c *counts) {
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	issues := validateServer(rev, raw, k.method)
	modelOK, counted := verdict(t, issues)
	offErr := officialMessage(o, rev, msg, raw, k.method)
	if what == "generated" && offErr != nil && k.valid {
		t.Fatalf("%s %s: generated message is not valid against the official schema\nmessage: %s\nofficial: %s",
			rev, k.name, raw, briefErr(offErr))
	}
	if modelOK != (offErr == nil) {
		t.Fatalf("%s %s (%s, answering %q): model and official schema disagree\nmessage: %s\nmodel: %v\nofficial: %s",
			rev, k.name, what, k.method, raw, counted, briefErr(offErr))
	}
	c.add(modelOK, modelOK && len(issues) > 0)
}
