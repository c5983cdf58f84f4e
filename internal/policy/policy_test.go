package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]CallPolicy{
		"": ReadOnly, "readonly": ReadOnly, " ReadOnly ": ReadOnly, "read-only": ReadOnly,
		"none": None, "NONE": None, "all": All,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"some", "true", "readonly,all"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "none, readonly, all") {
			t.Errorf("Parse(%q) error = %v", bad, err)
		}
	}
}

func TestAllows(t *testing.T) {
	ro := json.RawMessage(`{"name":"get_order","annotations":{"readOnlyHint":true}}`)
	rw := json.RawMessage(`{"name":"create_refund_draft","annotations":{"readOnlyHint":false,"destructiveHint":false}}`)
	none := json.RawMessage(`{"name":"plain"}`)
	noHint := json.RawMessage(`{"name":"x","annotations":{"title":"X"}}`)
	strHint := json.RawMessage(`{"name":"s","annotations":{"readOnlyHint":"true"}}`)
	nullHint := json.RawMessage(`{"name":"n","annotations":{"readOnlyHint":null}}`)
	garbage := json.RawMessage(`[1,2]`)

	cases := []struct {
		p      CallPolicy
		tool   json.RawMessage
		ok     bool
		reason []string
	}{
		{ReadOnly, ro, true, nil},
		{"", ro, true, nil},
		{ReadOnly, rw, false, []string{`"create_refund_draft"`, "readOnlyHint false", "--call-tools all"}},
		{ReadOnly, none, false, []string{`"plain"`, "does not declare", "--call-tools all"}},
		{ReadOnly, noHint, false, []string{"does not declare", "--call-tools all"}},
		{ReadOnly, strHint, false, []string{"does not declare"}},
		{ReadOnly, nullHint, false, []string{"does not declare"}},
		{ReadOnly, garbage, false, []string{"(unnamed)", "--call-tools all"}},
		{None, ro, false, []string{"none", "--call-tools"}},
		{None, rw, false, []string{"none"}},
		{All, ro, true, nil},
		{All, rw, true, nil},
		{All, garbage, true, nil},
		{"bogus", ro, false, []string{"unknown call policy"}},
	}
	for _, c := range cases {
		ok, reason := c.p.Allows(c.tool)
		if ok != c.ok {
			t.Errorf("%q.Allows(%s) = %v (%s), want %v", c.p, c.tool, ok, reason, c.ok)
		}
		if ok && reason != "" {
			t.Errorf("%q.Allows(%s): allowed with reason %q", c.p, c.tool, reason)
		}
		for _, want := range c.reason {
			if !strings.Contains(reason, want) {
				t.Errorf("%q.Allows(%s) reason %q lacks %q", c.p, c.tool, reason, want)
			}
		}
	}
}

func TestReadOnlyHint(t *testing.T) {
	if v, p := ReadOnlyHint(json.RawMessage(`{"annotations":{"readOnlyHint":false}}`)); v || !p {
		t.Errorf("false hint: %v %v", v, p)
	}
	if v, p := ReadOnlyHint(json.RawMessage(`{}`)); v || p {
		t.Errorf("no annotations: %v %v", v, p)
	}
}

func TestString(t *testing.T) {
	if CallPolicy("").String() != "readonly" || All.String() != "all" {
		t.Error("String")
	}
}
