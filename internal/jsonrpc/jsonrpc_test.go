package jsonrpc

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func decodeOK(t *testing.T, raw string) *Message {
	t.Helper()
	m, err := Decode([]byte(raw))
	if err != nil {
		t.Fatalf("Decode(%s): unexpected error %v", raw, err)
	}
	return m
}

func decodeID(t *testing.T, rawID string) ID {
	t.Helper()
	m := decodeOK(t, `{"jsonrpc":"2.0","id":`+rawID+`,"result":{}}`)
	if !m.HasID {
		t.Fatalf("id %s: HasID false", rawID)
	}
	return m.ID
}

func TestIDKeepsJSONType(t *testing.T) {
	i, s := IntID(1), StringID("1")
	if i.Key() == s.Key() {
		t.Fatalf("IntID(1) and StringID(\"1\") share Key %q", i.Key())
	}
	if i.LooseKey() != s.LooseKey() {
		t.Fatalf("LooseKey differs: %q vs %q", i.LooseKey(), s.LooseKey())
	}
	if !i.IsNumber() || !i.IsInteger() || i.IsString() || !i.Valid() || i.TypeName() != "integer" {
		t.Errorf("IntID(1): number=%v integer=%v string=%v valid=%v type=%s", i.IsNumber(), i.IsInteger(), i.IsString(), i.Valid(), i.TypeName())
	}
	if !s.IsString() || s.IsNumber() || s.IsInteger() || !s.Valid() || s.TypeName() != "string" {
		t.Errorf("StringID(\"1\"): number=%v integer=%v string=%v valid=%v type=%s", s.IsNumber(), s.IsInteger(), s.IsString(), s.Valid(), s.TypeName())
	}
	if got := i.String(); got != "1" {
		t.Errorf("IntID(1).String() = %q", got)
	}
	if got := s.String(); got != `"1"` {
		t.Errorf("StringID(\"1\").String() = %q", got)
	}
	// Decoded ids equal the constructed ones, type included.
	if d := decodeID(t, `1`); d.Key() != i.Key() {
		t.Errorf("decoded 1 has Key %q, want %q", d.Key(), i.Key())
	}
	if d := decodeID(t, `"1"`); d.Key() != s.Key() {
		t.Errorf(`decoded "1" has Key %q, want %q`, d.Key(), s.Key())
	}
	if d := decodeID(t, `-42`); d.Key() != IntID(-42).Key() || !d.IsInteger() {
		t.Errorf("decoded -42: key %q integer %v", d.Key(), d.IsInteger())
	}
}

func TestIDStringCanonicalisation(t *testing.T) {
	cases := []struct {
		name  string
		wire  string // JSON text of the id on the wire
		equal ID
	}{
		{"unicode escape", `"\u00e9"`, StringID("é")},
		{"literal unicode", `"é"`, StringID("é")},
		{"escaped slash", `"a\/b"`, StringID("a/b")},
		{"escaped letters", `"\u0061bc"`, StringID("abc")},
		{"surrogate pair", `"\ud83d\udd11"`, StringID("🔑")},
		{"html chars", `"<&>"`, StringID("<&>")},
		{"escaped html chars", `"\u003c\u0026\u003e"`, StringID("<&>")},
		{"escaped quote", `"a\"b"`, StringID(`a"b`)},
		{"whitespace around", " \"x\" ", StringID("x")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeID(t, tc.wire)
			if d.Key() != tc.equal.Key() {
				t.Errorf("Key(%s) = %q, want %q", tc.wire, d.Key(), tc.equal.Key())
			}
			if d.LooseKey() != tc.equal.LooseKey() {
				t.Errorf("LooseKey(%s) = %q, want %q", tc.wire, d.LooseKey(), tc.equal.LooseKey())
			}
			if r := RawID(json.RawMessage(tc.wire)); r.Key() != tc.equal.Key() {
				t.Errorf("RawID(%s).Key() = %q, want %q", tc.wire, r.Key(), tc.equal.Key())
			}
			if !d.IsString() || !d.Valid() {
				t.Errorf("%s: IsString %v Valid %v", tc.wire, d.IsString(), d.Valid())
			}
		})
	}
	// Distinct strings stay distinct.
	if StringID("é").Key() == StringID("e").Key() {
		t.Error("é and e share a key")
	}
	// A string id whose text is a number loosely matches the number only.
	if StringID("07").LooseKey() == IntID(7).LooseKey() {
		t.Error(`"07" loosely matches 7`)
	}
}

func TestIDNumbers(t *testing.T) {
	// Big integers keep every digit (no float64 rounding).
	big := decodeID(t, `9007199254740993`)
	if big.Key() != "9007199254740993" || big.Key() == decodeID(t, `9007199254740992`).Key() {
		t.Errorf("2^53+1 lost precision: %q", big.Key())
	}
	if big.Key() != IntID(9007199254740993).Key() || !big.IsInteger() || !big.Valid() {
		t.Errorf("2^53+1: key %q integer %v valid %v", big.Key(), big.IsInteger(), big.Valid())
	}
	maxInt := decodeID(t, `9223372036854775807`)
	if maxInt.Key() != IntID(1<<63-1).Key() || !maxInt.IsInteger() {
		t.Errorf("MaxInt64: key %q integer %v", maxInt.Key(), maxInt.IsInteger())
	}
	// Beyond int64: still a JSON number without fraction or exponent.
	huge := decodeID(t, `123456789012345678901234567890`)
	if huge.Key() != "123456789012345678901234567890" {
		t.Errorf("huge integer key %q", huge.Key())
	}
	if !huge.IsNumber() || !huge.IsInteger() || !huge.Valid() || huge.TypeName() != "integer" {
		t.Errorf("huge integer: number %v integer %v valid %v type %s", huge.IsNumber(), huge.IsInteger(), huge.Valid(), huge.TypeName())
	}
	if StringID("123456789012345678901234567890").LooseKey() != huge.LooseKey() {
		t.Error("huge integer and its string form do not share LooseKey")
	}

	for _, raw := range []string{`1.5`, `1e3`, `1E3`, `-2.0`, `1.0e2`} {
		id := decodeID(t, raw)
		if !id.IsNumber() || id.IsInteger() || id.Valid() || id.IsString() || id.TypeName() != "number" {
			t.Errorf("%s: number %v integer %v valid %v string %v type %s", raw, id.IsNumber(), id.IsInteger(), id.Valid(), id.IsString(), id.TypeName())
		}
		if id.Key() != raw {
			t.Errorf("%s: Key %q", raw, id.Key())
		}
	}
	// 1.0 is not the integer 1.
	if decodeID(t, `1.0`).Key() == IntID(1).Key() {
		t.Error("1.0 and 1 share a key")
	}
}

func TestIDOtherTypes(t *testing.T) {
	cases := []struct {
		raw, typ, key string
	}{
		{`null`, "null", `null`},
		{`{}`, "object", `{}`},
		{`{ "a" : 1 }`, "object", `{"a":1}`},
		{`[1, 2]`, "array", `[1,2]`},
		{`true`, "boolean", `true`},
		{`false`, "boolean", `false`},
	}
	for _, tc := range cases {
		id := decodeID(t, tc.raw)
		if id.TypeName() != tc.typ {
			t.Errorf("%s: TypeName %q, want %q", tc.raw, id.TypeName(), tc.typ)
		}
		if id.Key() != tc.key {
			t.Errorf("%s: Key %q, want %q", tc.raw, id.Key(), tc.key)
		}
		if id.Valid() || id.IsString() || id.IsNumber() || id.IsInteger() || id.IsZero() {
			t.Errorf("%s: valid %v string %v number %v integer %v zero %v", tc.raw, id.Valid(), id.IsString(), id.IsNumber(), id.IsInteger(), id.IsZero())
		}
		if id.IsNull() != (tc.typ == "null") {
			t.Errorf("%s: IsNull %v", tc.raw, id.IsNull())
		}
	}
	// "null" the string is not null.
	if s := StringID("null"); s.IsNull() || s.Key() == decodeID(t, "null").Key() {
		t.Error(`StringID("null") is treated as null`)
	}

	var zero ID
	if !zero.IsZero() || zero.Valid() || zero.TypeName() != "absent" || zero.String() != "<absent>" {
		t.Errorf("zero ID: zero %v valid %v type %q string %q", zero.IsZero(), zero.Valid(), zero.TypeName(), zero.String())
	}
	if b, err := json.Marshal(zero); err != nil || string(b) != "null" {
		t.Errorf("Marshal(zero ID) = %s, %v", b, err)
	}
	m := decodeOK(t, `{"jsonrpc":"2.0","result":{}}`)
	if m.HasID || !m.ID.IsZero() {
		t.Errorf("absent id: HasID %v IsZero %v", m.HasID, m.ID.IsZero())
	}
}

func TestIDMarshalJSON(t *testing.T) {
	v := struct {
		A ID `json:"a"`
		B ID `json:"b"`
		C ID `json:"c"`
	}{IntID(-3), StringID("é\"x"), RawID(json.RawMessage(`{ "k": [1, 2] }`))}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":-3,"b":"é\"x","c":{"k":[1,2]}}` {
		t.Errorf("Marshal = %s", b)
	}
}

func TestDecodePresence(t *testing.T) {
	t.Run("method not a string", func(t *testing.T) {
		for _, method := range []string{`42`, `null`, `{"a":1}`, `["x"]`, `true`} {
			m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"method":`+method+`}`)
			if !m.HasMethod || m.MethodIsString || m.Method != "" {
				t.Errorf("method %s: HasMethod %v MethodIsString %v Method %q", method, m.HasMethod, m.MethodIsString, m.Method)
			}
			if m.Kind() != KindRequest {
				t.Errorf("method %s: Kind %v", method, m.Kind())
			}
		}
		m := decodeOK(t, `{ "jsonrpc" : "2.0" , "method" :  "tools/list" }`)
		if !m.HasMethod || !m.MethodIsString || m.Method != "tools/list" {
			t.Errorf("string method: HasMethod %v MethodIsString %v Method %q", m.HasMethod, m.MethodIsString, m.Method)
		}
	})
	t.Run("id null", func(t *testing.T) {
		m := decodeOK(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		if !m.HasID || !m.ID.IsNull() || m.ID.IsZero() {
			t.Errorf("HasID %v IsNull %v IsZero %v", m.HasID, m.ID.IsNull(), m.ID.IsZero())
		}
		if m.Kind() != KindResponse || !m.IsError() {
			t.Errorf("Kind %v IsError %v", m.Kind(), m.IsError())
		}
		if code, ok := m.ErrorCode(); !ok || code != CodeParseError {
			t.Errorf("ErrorCode = %d, %v", code, ok)
		}
	})
	t.Run("error code as string", func(t *testing.T) {
		m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"nope"}}`)
		if !m.HasError || m.Error == nil {
			t.Fatalf("HasError %v Error %v", m.HasError, m.Error)
		}
		if m.Error.CodeIsInt || m.Error.Code != 0 || string(m.Error.CodeRaw) != `"-32601"` {
			t.Errorf("CodeIsInt %v Code %d CodeRaw %s", m.Error.CodeIsInt, m.Error.Code, m.Error.CodeRaw)
		}
		if !m.Error.MessageIsString || m.Error.Message != "nope" {
			t.Errorf("MessageIsString %v Message %q", m.Error.MessageIsString, m.Error.Message)
		}
		if _, ok := m.ErrorCode(); ok {
			t.Error("ErrorCode ok for a string code")
		}
		if !m.IsError() {
			t.Error("IsError false")
		}
	})
	t.Run("error code not an integer", func(t *testing.T) {
		for _, code := range []string{`-32601.5`, `1e3`, `null`, `true`} {
			m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"code":`+code+`,"message":"x"}}`)
			if m.Error == nil || m.Error.CodeIsInt {
				t.Errorf("code %s: Error %+v", code, m.Error)
			}
		}
		m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`)
		if m.Error == nil || m.Error.CodeIsInt || m.Error.CodeRaw != nil {
			t.Errorf("code missing: Error %+v", m.Error)
		}
	})
	t.Run("message missing or not a string", func(t *testing.T) {
		m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}`)
		if m.Error == nil || !m.Error.CodeIsInt || m.Error.Code != CodeInternalError || m.Error.MessageIsString || m.Error.Message != "" {
			t.Errorf("message missing: %+v", m.Error)
		}
		m = decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":42}}`)
		if m.Error == nil || m.Error.MessageIsString {
			t.Errorf("message 42: %+v", m.Error)
		}
		m = decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","data":{"k":1}}}`)
		if m.Error == nil || string(m.Error.Data) != `{"k":1}` {
			t.Errorf("data: %+v", m.Error)
		}
	})
	t.Run("error not an object", func(t *testing.T) {
		m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"error":"boom"}`)
		if !m.HasError || m.Error != nil || string(m.ErrorRaw) != `"boom"` {
			t.Errorf("HasError %v Error %+v ErrorRaw %s", m.HasError, m.Error, m.ErrorRaw)
		}
		if _, ok := m.ErrorCode(); ok {
			t.Error("ErrorCode ok")
		}
	})
	t.Run("both result and error", func(t *testing.T) {
		m := decodeOK(t, `{"jsonrpc":"2.0","id":1,"result":{"a":1},"error":{"code":-32603,"message":"x"}}`)
		if !m.HasResult || !m.HasError {
			t.Fatalf("HasResult %v HasError %v", m.HasResult, m.HasError)
		}
		if m.IsError() {
			t.Error("IsError true with a result present")
		}
		if _, ok := m.ErrorCode(); ok {
			t.Error("ErrorCode ok with a result present")
		}
		if m.Kind() != KindResponse {
			t.Errorf("Kind %v", m.Kind())
		}
		if obj := m.ResultObject(); obj == nil || string(obj["a"]) != "1" {
			t.Errorf("ResultObject %v", obj)
		}
	})
	t.Run("result null and jsonrpc variants", func(t *testing.T) {
		m := decodeOK(t, `{"id":1,"result":null}`)
		if !m.HasResult || m.HasJSONRPC || m.Kind() != KindResponse || m.ResultObject() != nil {
			t.Errorf("HasResult %v HasJSONRPC %v Kind %v", m.HasResult, m.HasJSONRPC, m.Kind())
		}
		m = decodeOK(t, `{"jsonrpc":2,"id":1,"result":[1]}`)
		if !m.HasJSONRPC || m.JSONRPC != "" || m.ResultObject() != nil {
			t.Errorf("jsonrpc 2: HasJSONRPC %v JSONRPC %q", m.HasJSONRPC, m.JSONRPC)
		}
		m = decodeOK(t, `{"jsonrpc":"1.0","method":"x","params":[1,2]}`)
		if m.JSONRPC != "1.0" || !m.HasParams || string(m.Params) != `[1,2]` {
			t.Errorf("jsonrpc %q params %s", m.JSONRPC, m.Params)
		}
	})
	t.Run("raw and members kept", func(t *testing.T) {
		raw := "  {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{},\"extra\":[1]}\n"
		m := decodeOK(t, raw)
		if string(m.Raw) != raw {
			t.Errorf("Raw = %q", m.Raw)
		}
		if string(m.Members["extra"]) != `[1]` || len(m.Members) != 4 {
			t.Errorf("Members = %v", m.Members)
		}
	})
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name, raw string
		notObject bool
	}{
		{"array", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, true},
		{"empty array", `[]`, true},
		{"string", `"hello"`, true},
		{"number", `42`, true},
		{"null", `null`, true},
		{"invalid", `not json`, false},
		{"truncated object", `{"jsonrpc":"2.0"`, false},
		{"trailing garbage", `{"jsonrpc":"2.0"} x`, false},
		{"two objects", `{"a":1}{"b":2}`, false},
		{"empty", ``, false},
		{"blank", " \t\r\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.raw))
			if err == nil {
				t.Fatalf("Decode(%q) = %+v, want an error", tc.raw, m)
			}
			if m != nil {
				t.Errorf("message returned with error")
			}
			if got := errors.Is(err, ErrNotObject); got != tc.notObject {
				t.Errorf("errors.Is(err, ErrNotObject) = %v (err %v)", got, err)
			}
		})
	}
}

func TestKind(t *testing.T) {
	cases := []struct {
		raw  string
		want Kind
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, KindRequest},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, KindResponse},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":""}}`, KindResponse},
		{`{"jsonrpc":"2.0","result":{}}`, KindResponse},
		{`{"jsonrpc":"2.0","id":1}`, KindInvalid},
		{`{}`, KindInvalid},
		{`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, KindRequest},
	}
	for _, tc := range cases {
		if got := decodeOK(t, tc.raw).Kind(); got != tc.want {
			t.Errorf("Kind(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
	names := map[Kind]string{KindInvalid: "invalid", KindRequest: "request", KindNotification: "notification", KindResponse: "response"}
	for k, n := range names {
		if k.String() != n {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), n)
		}
	}
}

func TestBuildersRoundTrip(t *testing.T) {
	ids := []ID{IntID(0), IntID(-7), IntID(1<<63 - 1), StringID(""), StringID("é \"q\" \n <x>"), StringID("🔑")}
	type params struct {
		Name string         `json:"name"`
		Args map[string]int `json:"args"`
	}
	for _, id := range ids {
		t.Run("request "+id.String(), func(t *testing.T) {
			for _, p := range []any{nil, params{"t", map[string]int{"a": 1}}, json.RawMessage(`{"x":[1,2]}`), []byte(`[1]`), map[string]any{}} {
				b := Request(id, "tools/call", p)
				if !json.Valid(b) {
					t.Fatalf("Request(%s, %v) not valid JSON: %s", id, p, b)
				}
				m := decodeOK(t, string(b))
				if m.Kind() != KindRequest || m.ID.Key() != id.Key() || m.Method != "tools/call" || !m.MethodIsString || m.JSONRPC != "2.0" {
					t.Errorf("round trip of %s: %+v", b, m)
				}
				if m.HasParams != (p != nil) {
					t.Errorf("%s: HasParams %v", b, m.HasParams)
				}
			}
		})
		t.Run("response "+id.String(), func(t *testing.T) {
			b := Response(id, map[string]any{"ok": true})
			if !json.Valid(b) {
				t.Fatalf("Response not valid JSON: %s", b)
			}
			m := decodeOK(t, string(b))
			if m.Kind() != KindResponse || m.ID.Key() != id.Key() || !m.HasResult || m.HasError || string(m.Result) != `{"ok":true}` {
				t.Errorf("round trip of %s: %+v", b, m)
			}
			// An unmarshalable result becomes {}.
			b = Response(id, func() {})
			if m := decodeOK(t, string(b)); string(m.Result) != `{}` {
				t.Errorf("unmarshalable result: %s", b)
			}
			b = ErrorResponse(id, CodeMethodNotFound, `no "such" method é`)
			if !json.Valid(b) {
				t.Fatalf("ErrorResponse not valid JSON: %s", b)
			}
			m = decodeOK(t, string(b))
			if m.Kind() != KindResponse || m.ID.Key() != id.Key() || !m.IsError() || m.HasResult {
				t.Errorf("round trip of %s: %+v", b, m)
			}
			if code, ok := m.ErrorCode(); !ok || code != CodeMethodNotFound {
				t.Errorf("ErrorCode = %d, %v", code, ok)
			}
			if m.Error.Message != `no "such" method é` || !m.Error.MessageIsString {
				t.Errorf("message %q", m.Error.Message)
			}
			if !strings.Contains(m.Error.Error(), "-32601") {
				t.Errorf("Error() = %q", m.Error.Error())
			}
		})
	}
	t.Run("notification", func(t *testing.T) {
		for _, p := range []any{nil, map[string]any{"progress": 1}} {
			b := Notification("notifications/progress", p)
			if !json.Valid(b) {
				t.Fatalf("Notification not valid JSON: %s", b)
			}
			m := decodeOK(t, string(b))
			if m.Kind() != KindNotification || m.HasID || m.Method != "notifications/progress" || m.HasParams != (p != nil) {
				t.Errorf("round trip of %s: %+v", b, m)
			}
		}
	})
	t.Run("unmarshalable params are omitted", func(t *testing.T) {
		b := Request(IntID(1), "x", make(chan int))
		if !json.Valid(b) {
			t.Fatalf("not valid JSON: %s", b)
		}
		if decodeOK(t, string(b)).HasParams {
			t.Errorf("params present: %s", b)
		}
	})
	t.Run("empty raw params are omitted", func(t *testing.T) {
		for _, p := range []any{json.RawMessage(nil), []byte{}} {
			b := Request(IntID(1), "x", p)
			if !json.Valid(b) {
				t.Fatalf("Request with empty raw params not valid JSON: %s", b)
			}
			if decodeOK(t, string(b)).HasParams {
				t.Errorf("params present: %s", b)
			}
			if b := Notification("x", p); !json.Valid(b) {
				t.Fatalf("Notification with empty raw params not valid JSON: %s", b)
			}
		}
	})
	t.Run("absent id", func(t *testing.T) {
		var zero ID
		for _, b := range [][]byte{Request(zero, "x", nil), Response(zero, struct{}{}), ErrorResponse(zero, CodeParseError, "parse")} {
			if !json.Valid(b) {
				t.Fatalf("builder with the zero ID produced invalid JSON: %s", b)
			}
			m := decodeOK(t, string(b))
			if !m.ID.IsNull() {
				t.Errorf("%s: id %s, want null", b, m.ID)
			}
		}
	})
	t.Run("deliberately invalid ids", func(t *testing.T) {
		for _, raw := range []string{`null`, `1.5`, `{"a":1}`, `[1]`, `true`} {
			id := RawID(json.RawMessage(raw))
			b := Request(id, "ping", nil)
			m := decodeOK(t, string(b))
			if m.ID.Key() != id.Key() || m.Kind() != KindRequest {
				t.Errorf("%s: id %s kind %v", b, m.ID, m.Kind())
			}
		}
	})
}

// Built makes the message Decode makes of its bytes.
func TestBuiltIsDecoded(t *testing.T) {
	for _, c := range []struct {
		id     ID
		method string
		params json.RawMessage
	}{
		{IntID(7), "tools/list", nil},
		{StringID("a\"b"), "tools/call", json.RawMessage(`{"name":"x","arguments":{"k":[1,2]}}`)},
		{IntID(0), "weird\nmethod ü", json.RawMessage(`{}`)},
	} {
		raw, got := Built(c.id, c.method, c.params)
		want, err := Decode(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Built(%s) = %+v, Decode gives %+v", raw, got, want)
		}
	}
}
