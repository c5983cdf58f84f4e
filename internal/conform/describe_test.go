package conform

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

func TestOrAbsent(t *testing.T) {
	for raw, want := range map[string]string{"": "(empty)", `"x"`: `"x"`, "null": "null", `{"a":1}`: `{"a":1}`} {
		if got := OrAbsent(json.RawMessage(raw)); got != want {
			t.Errorf("OrAbsent(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := OrAbsent(nil); got != "absent" {
		t.Errorf("OrAbsent(nil) = %q, want absent", got)
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal([]byte(`{"a":1}`), &obj)
	if got := OrAbsent(obj["b"]); got != Absent {
		t.Errorf("a missing member renders %q, want %q", got, Absent)
	}
}

func TestIsString(t *testing.T) {
	for raw, want := range map[string]bool{
		`"x"`: true, `""`: true, ` "x" `: true, `"\u00e9"`: true,
		"": false, "null": false, "1": false, `{"a":"b"}`: false, `["x"]`: false, `"unterminated`: false, "true": false,
	} {
		if got := IsString(json.RawMessage(raw)); got != want {
			t.Errorf("IsString(%q) = %v, want %v", raw, got, want)
		}
	}
	if IsString(nil) {
		t.Error("IsString(nil) = true")
	}
}

func TestIsObject(t *testing.T) {
	for raw, want := range map[string]bool{
		`{}`: true, ` {"a":1} `: true,
		"": false, "null": false, `"{}"`: false, `[{}]`: false, `{"a":`: false,
	} {
		if got := IsObject(json.RawMessage(raw)); got != want {
			t.Errorf("IsObject(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestResultType(t *testing.T) {
	for raw, want := range map[string]string{
		`{"resultType":"complete"}`: "complete", `{"resultType":"task"}`: "task",
		`{}`: "", `{"resultType":null}`: "", `{"resultType":7}`: "", `{"resultType":["task"]}`: "",
	} {
		var res map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		if got := ResultType(res); got != want {
			t.Errorf("ResultType(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := ResultType(nil); got != "" {
		t.Errorf("ResultType(nil) = %q", got)
	}
}

func TestDescribe(t *testing.T) {
	msg, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	answered := &session.Response{Msg: msg}
	bare := &session.Response{Reply: &wire.Reply{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}}}
	timeout := errors.New("no response to 1 within 5s")
	for _, c := range []struct {
		name string
		resp *session.Response
		err  error
		want string
	}{
		{"a response", answered, nil, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"nothing came", nil, timeout, "no response to 1 within 5s"},
		{"an empty response and an error", &session.Response{}, timeout, "no response to 1 within 5s"},
		{"an HTTP reply without a message", bare, session.ErrNoResponse, "HTTP 400 (text/plain): no JSON-RPC response"},
		{"an HTTP reply and a timeout", bare, timeout, "HTTP 400 (text/plain): no JSON-RPC response (no response to 1 within 5s)"},
		{"no response, no error", nil, nil, "no response"},
	} {
		if got := Describe(c.resp, c.err); got != c.want {
			t.Errorf("%s: Describe = %q, want %q", c.name, got, c.want)
		}
	}
}
