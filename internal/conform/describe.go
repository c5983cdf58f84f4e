package conform

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpconform/mcpconform/internal/session"
)

// The small helpers every area uses to read server JSON and render it in
// verdicts, in one place so that they mean the same everywhere.

// Absent is how a verdict shows a member the server left out.
const Absent = "absent"

// OrAbsent renders a member's raw value for a verdict (clipped, see Clip),
// or Absent when the member is missing.
func OrAbsent(raw json.RawMessage) string {
	if raw == nil {
		return Absent
	}
	return Clip(raw)
}

// Describe renders the answer to a request for a verdict: the response
// (HTTP status, body or JSON-RPC message) when anything came, followed by
// the error when it says more (a timeout, a closed connection); the error
// alone when nothing came.
func Describe(resp *session.Response, err error) string {
	came := resp != nil && (resp.Msg != nil || resp.Reply != nil)
	switch {
	case err == nil:
		return resp.Describe()
	case !came:
		return err.Error()
	case errors.Is(err, session.ErrNoResponse):
		return resp.Describe() // it says "no JSON-RPC response" already
	}
	return resp.Describe() + " (" + err.Error() + ")"
}

// IsString reports whether raw is a JSON string (null and a missing member
// are not).
func IsString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
}

// IsObject reports whether raw is a JSON object.
func IsObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	var o map[string]json.RawMessage
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &o) == nil
}

// ResultType returns a result's resultType ("" when it is absent or not a
// string).
func ResultType(res map[string]json.RawMessage) string {
	var s string
	if !IsString(res["resultType"]) || json.Unmarshal(res["resultType"], &s) != nil {
		return ""
	}
	return s
}
