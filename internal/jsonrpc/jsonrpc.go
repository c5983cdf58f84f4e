// Package jsonrpc decodes and encodes JSON-RPC 2.0 messages without losing
// what a conformance check needs: the exact JSON type of every id, which
// members were present, and the raw bytes next to the decoded values.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/internal/jsonobj"
)

// Standard and MCP error codes.
const (
	CodeParseError          = -32700
	CodeInvalidRequest      = -32600
	CodeMethodNotFound      = -32601
	CodeInvalidParams       = -32602
	CodeInternalError       = -32603
	CodeResourceNotFound    = -32002 // legacy revisions
	CodeURLElicitation      = -32042 // 2025-11-25
	CodeHeaderMismatch      = -32020 // 2026-07-28
	CodeMissingCapability   = -32021 // 2026-07-28
	CodeUnsupportedProtocol = -32022 // 2026-07-28
)

// ID is a request id that keeps its JSON type: 1 and "1" are different ids.
// The zero ID is "absent".
type ID struct {
	raw string // canonical JSON text of the id: `7`, `"7"`, `null`, `{}`...
}

// IntID returns an integer id.
func IntID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns a string id.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// RawID wraps arbitrary JSON as an id (for deliberately invalid ids).
func RawID(raw json.RawMessage) ID { return ID{raw: canonical(raw)} }

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return len(id.raw) > 0 && id.raw[0] == '"' }

// IsNumber reports whether the id is a JSON number.
func (id ID) IsNumber() bool {
	return len(id.raw) > 0 && (id.raw[0] == '-' || (id.raw[0] >= '0' && id.raw[0] <= '9'))
}

// IsInteger reports whether the id is a JSON number without fraction or exponent.
func (id ID) IsInteger() bool {
	if !id.IsNumber() {
		return false
	}
	// Syntactic check: integers beyond int64 are still integers.
	digits := strings.TrimPrefix(id.raw, "-")
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// rawOrNull is the JSON text of id for the builders: the zero (absent) ID
// is written as null, as MarshalJSON does, so the output stays valid JSON.
func (id ID) rawOrNull() string {
	if id.IsZero() {
		return "null"
	}
	return id.raw
}

// Int returns the value of an integer id (0 for other ids).
func (id ID) Int() int64 {
	n, _ := strconv.ParseInt(id.raw, 10, 64)
	return n
}

// IsNull reports whether the id is JSON null.
func (id ID) IsNull() bool { return id.raw == "null" }

// Valid reports whether the id is valid for MCP: a string or an integer.
func (id ID) Valid() bool { return id.IsString() || id.IsInteger() }

// Key is a map key that distinguishes JSON types.
func (id ID) Key() string { return id.raw }

// LooseKey ignores the JSON type: 7 and "7" share it. Used to detect a
// response whose id came back with the wrong type.
func (id ID) LooseKey() string {
	if id.IsString() {
		var s string
		if json.Unmarshal([]byte(id.raw), &s) == nil {
			return s
		}
	}
	return id.raw
}

// TypeName names the JSON type of the id.
func (id ID) TypeName() string {
	switch {
	case id.IsZero():
		return "absent"
	case id.IsString():
		return "string"
	case id.IsInteger():
		return "integer"
	case id.IsNumber():
		return "number"
	case id.IsNull():
		return "null"
	case id.raw[0] == '{':
		return "object"
	case id.raw[0] == '[':
		return "array"
	default:
		return "boolean"
	}
}

// String returns the JSON text of the id.
func (id ID) String() string {
	if id.IsZero() {
		return "<absent>"
	}
	return id.raw
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

func canonical(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b, _ := json.Marshal(s)
			return string(b)
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// Error is a JSON-RPC error object as received.
type Error struct {
	// Code is the integer code; CodeIsInt is false when the wire value was not an integer.
	Code      int64           `json:"code"`
	CodeIsInt bool            `json:"-"`
	CodeRaw   json.RawMessage `json:"-"`
	Message   string          `json:"message"`
	// MessageIsString is false when the wire message was absent or not a string.
	MessageIsString bool            `json:"-"`
	Data            json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("JSON-RPC error %s: %s", string(e.CodeRaw), e.Message)
}

// Kind classifies a decoded message.
type Kind int

// Message kinds.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

func (k Kind) String() string {
	return [...]string{"invalid", "request", "notification", "response"}[k]
}

// Message is one decoded JSON-RPC message with presence information.
type Message struct {
	Raw     []byte
	Members map[string]json.RawMessage

	JSONRPC    string
	HasJSONRPC bool

	ID    ID
	HasID bool

	Method    string
	HasMethod bool
	// MethodIsString is false when "method" was present but not a string.
	MethodIsString bool

	Params    json.RawMessage
	HasParams bool

	Result    json.RawMessage
	HasResult bool

	Error    *Error
	ErrorRaw json.RawMessage
	HasError bool

	valid bool // decoded from valid JSON (Decode): its members need no new validation
}

// ErrNotObject is returned by Decode for JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Decode parses raw as one JSON-RPC message. It fails only when raw is not
// valid JSON or not an object; every other irregularity is kept in the
// presence fields for checks to judge. Raw is kept as given, and the
// members of a message under jsonobj.Large bytes share its memory: raw must
// not change afterwards (a frame's bytes never do). A large message's
// members are copies, so that keeping one (a result) does not keep the
// megabytes of the rest.
func Decode(raw []byte) (*Message, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, errors.New("empty payload")
	}
	if trimmed[0] != '{' {
		if jsonobj.Valid(trimmed) {
			return nil, ErrNotObject
		}
		return nil, errors.New("invalid JSON")
	}
	decode := jsonobj.DecodeShared
	if len(trimmed) >= jsonobj.Large {
		decode = jsonobj.Decode
	}
	members, err := decode(trimmed, false)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	m := &Message{Raw: raw, Members: members, valid: true}
	if v, ok := members["jsonrpc"]; ok {
		m.HasJSONRPC = true
		m.JSONRPC, _ = jsonobj.String(v)
	}
	if v, ok := members["id"]; ok {
		m.HasID = true
		m.ID = RawID(v)
	}
	if v, ok := members["method"]; ok {
		m.HasMethod = true
		m.Method, m.MethodIsString = jsonobj.String(v)
	}
	if v, ok := members["params"]; ok {
		m.HasParams = true
		m.Params = v
	}
	if v, ok := members["result"]; ok {
		m.HasResult = true
		m.Result = v
	}
	if v, ok := members["error"]; ok {
		m.HasError = true
		m.ErrorRaw = v
		m.Error = decodeError(v)
	}
	return m, nil
}

// decodeError decodes the error member v of a valid message.
func decodeError(v json.RawMessage) *Error {
	obj, err := jsonobj.DecodeShared(v, true)
	if err != nil {
		return nil
	}
	e := &Error{CodeRaw: obj["code"], Data: obj["data"]}
	if c, ok := obj["code"]; ok {
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(c)), 10, 64); err == nil {
			e.Code, e.CodeIsInt = n, true
		}
	}
	if msg, ok := obj["message"]; ok {
		e.Message, e.MessageIsString = jsonobj.String(msg)
	}
	return e
}

// Kind classifies the message by the members present. A JSON object that
// is no JSON-RPC message at all (IsJSONRPC) is KindInvalid whatever members
// it has: {"error":"Forbidden"} is no response.
func (m *Message) Kind() Kind {
	switch {
	case !m.IsJSONRPC():
		return KindInvalid
	case m.HasMethod && m.HasID:
		return KindRequest
	case m.HasMethod:
		return KindNotification
	case m.HasResult || m.HasError:
		return KindResponse
	default:
		return KindInvalid
	}
}

// IsJSONRPC reports whether m is a JSON-RPC message at all, whatever its
// faults: it has a "jsonrpc" member (of any value), or the shape of a
// request or notification (a "method"), or of a response (an "id" with a
// "result" or an "error"). Only such objects on the MCP channel are MCP
// messages that the message rules (RPC-001, RPC-003, RPC-013 …) judge.
// Other JSON objects are not: an HTTP rejection body such as
// {"error":"Forbidden","message":"…"} or RFC 6750's
// {"error":"invalid_token"} is the HTTP layer's to judge (a 4xx body "MAY
// comprise a JSON-RPC error response", it need not), and a stdout line
// that is one is a framing fault (STD-001: stdout carries only MCP
// messages).
func (m *Message) IsJSONRPC() bool {
	return m != nil && (m.HasJSONRPC || m.HasMethod || m.HasID && (m.HasResult || m.HasError))
}

// IsError reports a response that carries an error and no result. A
// response with both is a protocol violation (RPC-003); the harness then
// reads the result so that one defect does not cascade into other checks.
func (m *Message) IsError() bool { return m.HasError && !m.HasResult }

// ErrorCode returns the integer error code, or false.
func (m *Message) ErrorCode() (int64, bool) {
	if !m.IsError() || m.Error == nil || !m.Error.CodeIsInt {
		return 0, false
	}
	return m.Error.Code, true
}

// ResultObject decodes the result as a JSON object (nil when not an object).
func (m *Message) ResultObject() map[string]json.RawMessage {
	obj, err := jsonobj.DecodeShared(m.Result, m.valid) // the result is the message's: it does not change
	if err != nil {
		return nil
	}
	return obj
}

// Request builds the bytes of a request. params may be nil (omitted) or any
// value json.Marshal accepts, including json.RawMessage.
func Request(id ID, method string, params any) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.WriteString(id.rawOrNull())
	buf.WriteString(`,"method":`)
	mb, _ := json.Marshal(method)
	buf.Write(mb)
	writeParams(&buf, params)
	buf.WriteByte('}')
	return buf.Bytes()
}

// Built is Request for params that are valid JSON (nil: none), returning
// with the bytes the message Decode would make of them, without parsing
// them again: the session and the run-wide observer share it
// (wire.Frame.Decoded).
func Built(id ID, method string, params json.RawMessage) ([]byte, *Message) {
	var raw []byte
	if params == nil {
		raw = Request(id, method, nil)
	} else {
		raw = Request(id, method, params)
	}
	mb, _ := json.Marshal(method)
	m := &Message{Raw: raw, JSONRPC: "2.0", HasJSONRPC: true, ID: id, HasID: true,
		Method: method, HasMethod: true, MethodIsString: true, valid: true,
		Members: map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": json.RawMessage(id.rawOrNull()), "method": mb}}
	if params != nil {
		m.Params, m.HasParams = params, true
		m.Members["params"] = params
	}
	return raw, m
}

// Notification builds the bytes of a notification.
func Notification(method string, params any) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","method":`)
	mb, _ := json.Marshal(method)
	buf.Write(mb)
	writeParams(&buf, params)
	buf.WriteByte('}')
	return buf.Bytes()
}

// Response builds the bytes of a success response (for answering server requests).
func Response(id ID, result any) []byte {
	rb, err := json.Marshal(result)
	if err != nil {
		rb = []byte("{}")
	}
	return []byte(`{"jsonrpc":"2.0","id":` + id.rawOrNull() + `,"result":` + string(rb) + `}`)
}

// ErrorResponse builds the bytes of an error response.
func ErrorResponse(id ID, code int64, message string) []byte {
	mb, _ := json.Marshal(message)
	return []byte(`{"jsonrpc":"2.0","id":` + id.rawOrNull() + `,"error":{"code":` + strconv.FormatInt(code, 10) + `,"message":` + string(mb) + `}}`)
}

func writeParams(buf *bytes.Buffer, params any) {
	if params == nil {
		return
	}
	var pb []byte
	switch p := params.(type) {
	case json.RawMessage:
		pb = p
	case []byte:
		pb = p
	default:
		var err error
		pb, err = json.Marshal(p)
		if err != nil {
			return
		}
	}
	if len(bytes.TrimSpace(pb)) == 0 {
		return // empty raw params (json.RawMessage(nil)) would make invalid JSON: omit
	}
	buf.WriteString(`,"params":`)
	buf.Write(pb)
}
