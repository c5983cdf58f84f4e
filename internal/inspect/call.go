package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Layers of a call's outcome.
const (
	// LayerTransport: no JSON-RPC response came (HTTP error without one,
	// timeout, connection closed).
	LayerTransport = "transport"
	// LayerJSONRPC: a JSON-RPC error response.
	LayerJSONRPC = "jsonrpc-error"
	// LayerTool: a result with isError true (the tool reported a failure).
	LayerTool = "tool-error"
	// LayerInputRequired: a 2026-07-28 result with resultType
	// "input_required" (the server needs answers from the client first).
	LayerInputRequired = "input-required"
	// LayerResult: a successful result.
	LayerResult = "result"
)

// CallRecord is the log entry of one tool call. Request and Response are
// the bytes that travelled, redacted.
type CallRecord struct {
	Time       time.Time       `json:"time"`
	DurationMs float64         `json:"durationMs"`
	Revision   string          `json:"revision"`
	Transport  string          `json:"transport"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	// Request is the JSON-RPC request as sent; Response the JSON-RPC
	// response as received (absent when none came).
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Layer is the layer of the outcome: transport, jsonrpc-error,
	// tool-error, input-required or result.
	Layer string `json:"layer"`
	// ErrorCode is the JSON-RPC error code (jsonrpc-error).
	ErrorCode *int64 `json:"errorCode,omitempty"`
	// HTTPStatus is the status of the HTTP reply (0 on stdio).
	HTTPStatus int `json:"httpStatus,omitempty"`
	// Error describes a transport failure or the JSON-RPC error message.
	Error string `json:"error,omitempty"`
	// Body is the start of a non-JSON HTTP reply body (transport layer).
	Body string `json:"body,omitempty"`
	// InCatalog is false for a tool that discovery did not return.
	InCatalog bool `json:"inCatalog"`
	// Notes explain the record ("not in the discovered catalog", input
	// requests not answered).
	Notes []string `json:"notes,omitempty"`
}

// ErrRefused wraps every refusal by the call policy.
var ErrRefused = errors.New("refused by the call policy")

// Call calls tool name with args (a JSON object; empty means {}) on the
// open session.
//
// The call policy is applied to the discovered definition of the tool; a
// refusal returns an error wrapping ErrRefused that names the policy and
// --call-tools. A name that is not in the discovered catalog is still sent
// (that is how a stale reference is probed) unless the policy is none;
// under readonly the tool list is read again first, and a tool that has
// appeared since discovery is judged by its new definition.
//
// Once the request was sent, Call returns a record and a nil error whatever
// the outcome; the record's Layer says which layer answered.
func (in *Inspection) Call(ctx context.Context, name string, args json.RawMessage) (*CallRecord, error) {
	s := in.Session()
	if s == nil {
		return nil, errors.New("the inspection is closed")
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, fmt.Errorf("--args must be a JSON object: %v", err)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, args) == nil {
		args = compact.Bytes()
	}

	rec := &CallRecord{Tool: name, Arguments: in.redactJSON(args), Revision: string(s.Revision()), Transport: s.Transport()}
	tool, found := in.Tool(name)
	if !found && in.Policy != policy.All && in.Policy != policy.None {
		// A stale catalog must not let readonly call a tool it never judged.
		if fresh, ok := in.refreshTool(ctx, name); ok {
			tool, found = fresh, true
			rec.Notes = append(rec.Notes, fmt.Sprintf("tool %q was not in the discovered catalog but appeared in a fresh tools/list; judged by its new definition", name))
		}
	}
	if found {
		if ok, why := in.Policy.Allows(tool); !ok {
			return nil, fmt.Errorf("%w: not calling %q: %s", ErrRefused, name, why)
		}
	} else {
		if in.Policy == policy.None {
			_, why := in.Policy.Allows(nil)
			return nil, fmt.Errorf("%w: not calling %q: %s", ErrRefused, name, why)
		}
		rec.Notes = append(rec.Notes, fmt.Sprintf("tool %q is not in the discovered catalog (%d tools); sent anyway to see how the server answers a reference to it", name, len(in.Tools)))
	}
	rec.InCatalog = found

	id := s.NewID()
	seq := in.rec.Seq()
	rec.Time = time.Now()
	resp, err := s.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": json.RawMessage(args)}, &session.CallOptions{ID: &id})
	rec.DurationMs = float64(time.Since(rec.Time).Microseconds()) / 1000
	if resp != nil && resp.Elapsed > 0 {
		rec.DurationMs = float64(resp.Elapsed.Microseconds()) / 1000
	}
	rec.Request = in.sentRequest(s, seq, id)
	rec.HTTPStatus = resp.Status()
	in.classify(rec, resp, err)
	return rec, nil
}

// classify sets Layer and the outcome fields of rec.
func (in *Inspection) classify(rec *CallRecord, resp *session.Response, err error) {
	if resp == nil || resp.Msg == nil {
		rec.Layer = LayerTransport
		switch {
		case err != nil:
			rec.Error = in.redact(err.Error())
		default:
			rec.Error = "no JSON-RPC response"
		}
		if resp != nil {
			for _, f := range resp.Exchange {
				if f.Dir == wire.In && (f.Kind == wire.KindBody || f.Kind == wire.KindMessage) && len(f.Raw) > 0 {
					rec.Body = in.redact(clipString(string(f.Raw), 2000))
					break
				}
			}
		}
		return
	}
	rec.Response = in.redactJSON(bytes.TrimSpace(resp.Msg.Raw))
	if resp.Msg.IsError() {
		rec.Layer = LayerJSONRPC
		if code, ok := resp.Msg.ErrorCode(); ok {
			rec.ErrorCode = &code
		}
		if resp.Msg.Error != nil {
			rec.Error = in.redact(resp.Msg.Error.Message)
		}
		return
	}
	if !resp.Msg.HasResult {
		rec.Layer = LayerTransport
		rec.Error = "the response has neither result nor error"
		return
	}
	var res struct {
		IsError    bool   `json:"isError"`
		ResultType string `json:"resultType"`
	}
	if e := json.Unmarshal(resp.Msg.Result, &res); e != nil {
		rec.Layer = LayerResult
		rec.Notes = append(rec.Notes, "the result is not a JSON object")
		return
	}
	switch {
	case res.ResultType == "input_required":
		rec.Layer = LayerInputRequired
		rec.Notes = append(rec.Notes, "the server answered input_required: it needs answers from the client (elicitation, sampling or roots) before the tool completes; mcpconform inspect does not answer input requests yet")
	case res.IsError:
		rec.Layer = LayerTool
	default:
		rec.Layer = LayerResult
	}
	if resp.IDTypeMismatch {
		rec.Notes = append(rec.Notes, "the response id has a different JSON type than the request id")
	}
}

// refreshTool walks tools/list again and returns name's definition when it
// is there now (the catalog is updated).
func (in *Inspection) refreshTool(ctx context.Context, name string) (json.RawMessage, bool) {
	notes := len(in.Notes)
	tools := in.walk(ctx, "tools/list", "tools")
	in.Notes = in.Notes[:notes] // failures of a refresh are not discovery notes
	for _, t := range tools {
		if itemString(t, "name") == name {
			in.mu.Lock()
			in.Tools = tools
			in.mu.Unlock()
			return t, true
		}
	}
	return nil, false
}

// sentRequest returns the recorded (redacted) bytes of the request with id
// that session s sent after seq.
func (in *Inspection) sentRequest(s *session.Session, seq int64, id jsonrpc.ID) json.RawMessage {
	conn := s.Conn().Name()
	var cut json.RawMessage // a request the recorder kept only the start of
	for _, f := range in.rec.Since(seq, 0) {
		if f.Conn != conn || f.Dir != wire.Out || f.Kind != wire.KindMessage {
			continue
		}
		m, err := jsonrpc.Decode(f.Raw)
		if err == nil && m.HasID && m.ID.Key() == id.Key() {
			return json.RawMessage(bytes.TrimSpace(f.Raw))
		}
		if f.Truncated && cut == nil {
			cut = quoteJSON(f.Raw)
		}
	}
	return cut
}

// redactJSON redacts b; if that leaves invalid JSON, the text is returned
// as a JSON string.
func (in *Inspection) redactJSON(b []byte) json.RawMessage {
	r := in.redactBytes(b)
	if json.Valid(r) {
		return json.RawMessage(r)
	}
	return quoteJSON(r)
}

func quoteJSON(b []byte) json.RawMessage {
	q, _ := json.Marshal(string(b))
	return q
}
