package session

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The retry driver answers each input request, retries with a new id and
// the original params, and echoes requestState byte for byte (escapes
// included), until a complete result.
func TestRoundTripEchoesStateVerbatim(t *testing.T) {
	f := newFake(wire.Stdio)
	s := New(f, Options{Revision: catalog.Modern})
	defer s.Close()
	const state = `"a\u003cb\u00e9\/c"` // the raw token, escapes and all
	done := make(chan *Trace, 1)
	go func() {
		done <- s.RoundTrip(context.Background(), "prompts/get", map[string]any{"name": "p"}, nil)
	}()
	first := f.next(t)
	f.pushMsg(`{"jsonrpc":"2.0","id":` + first.msg.ID.String() + `,"result":{"resultType":"input_required","requestState":` + state +
		`,"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"tone":{"type":"string","enum":["x","y"]},"n":{"type":"integer","minimum":3}}}}},"r":{"method":"roots/list"}}}}`)
	second := f.next(t)
	if second.msg.ID.String() == first.msg.ID.String() {
		t.Fatalf("the retry reused id %s", first.msg.ID)
	}
	if !bytes.Contains(second.payload, []byte(`"requestState":`+state)) {
		t.Fatalf("requestState not echoed verbatim: %s", second.payload)
	}
	var p struct {
		Name           string `json:"name"`
		InputResponses map[string]struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
			Roots   []any          `json:"roots"`
		} `json:"inputResponses"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(second.msg.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "p" || p.InputResponses["k"].Action != "accept" || p.InputResponses["k"].Content["tone"] != "x" ||
		p.InputResponses["k"].Content["n"] != float64(3) || len(p.InputResponses["r"].Roots) != 1 {
		t.Fatalf("retry params: %s", second.msg.Params)
	}
	if string(p.Meta[MetaClientCapabilities]) == "{}" {
		t.Fatalf("the retry declared no capabilities")
	}
	f.pushMsg(`{"jsonrpc":"2.0","id":` + second.msg.ID.String() + `,"result":{"resultType":"complete","messages":[]}}`)
	tr := <-done
	if !tr.Complete || len(tr.Rounds) != 2 || tr.Problem != "" {
		t.Fatalf("trace: complete=%v rounds=%d problem=%q", tr.Complete, len(tr.Rounds), tr.Problem)
	}
}

// A bare interim result stops the driver (a retry would be identical).
func TestRoundTripStopsOnBareInterim(t *testing.T) {
	f := newFake(wire.Stdio)
	s := New(f, Options{Revision: catalog.Modern})
	defer s.Close()
	done := make(chan *Trace, 1)
	go func() { done <- s.RoundTrip(context.Background(), "tools/call", map[string]any{"name": "x"}, nil) }()
	m := f.next(t)
	f.pushMsg(`{"jsonrpc":"2.0","id":` + m.msg.ID.String() + `,"result":{"resultType":"input_required"}}`)
	tr := <-done
	if tr.Complete || !tr.Malformed {
		t.Fatalf("trace: %+v", tr)
	}
}
