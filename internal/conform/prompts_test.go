package conform

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParsePrompt(t *testing.T) {
	p, ok := ParsePrompt(json.RawMessage(`{"name":"a","arguments":[{"name":"x","required":true},{"name":"y","required":"true"},{"name":"z"}]}`))
	if !ok || p.Name != "a" || len(p.Args) != 3 || !slices.Equal(p.Required(), []string{"x"}) {
		t.Fatalf("got %+v %v", p, ok)
	}
	if p, ok := ParsePrompt(json.RawMessage(`{"name":"a","arguments":5}`)); !ok || p.Name != "a" || len(p.Args) != 0 {
		t.Fatalf("malformed arguments: %+v %v", p, ok)
	}
	if _, ok := ParsePrompt(json.RawMessage(`{"title":"a"}`)); ok {
		t.Fatalf("a prompt without a name")
	}
	if got := UnknownPromptName([]Prompt{{Name: "mcpconform-no-such-prompt"}}); got != "mcpconform-no-such-prompt-1" {
		t.Fatalf("UnknownPromptName: %q", got)
	}
}
