package conform

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/session"
)

// Prompt is a listed prompt as far as the checks need it (the prompts and
// completion checks read them).
type Prompt struct {
	Name string
	Args []PromptArg
}

// PromptArg is a declared prompt argument; Required is true only for a
// boolean true (anything else is PRM-001's concern).
type PromptArg struct {
	Name        string
	Description string
	Required    bool
}

// ParsePrompt reads a prompts/list item; ok is false when it has no string
// name.
func ParsePrompt(raw json.RawMessage) (p Prompt, ok bool) {
	var o struct {
		Name      *string           `json:"name"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(raw, &o) != nil || o.Name == nil {
		// arguments may be malformed: retry for the name alone
		var n struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(raw, &n) != nil || n.Name == nil {
			return Prompt{}, false
		}
		return Prompt{Name: *n.Name}, true
	}
	p.Name = *o.Name
	for _, a := range o.Arguments {
		var x struct {
			Name        *string         `json:"name"`
			Required    json.RawMessage `json:"required"`
			Description json.RawMessage `json:"description"`
		}
		if json.Unmarshal(a, &x) != nil || x.Name == nil {
			continue
		}
		var desc string
		_ = json.Unmarshal(x.Description, &desc)
		p.Args = append(p.Args, PromptArg{Name: *x.Name, Description: desc, Required: string(x.Required) == "true"})
	}
	return p, true
}

// Required returns the names of the prompt's required arguments.
func (p Prompt) Required() []string {
	var out []string
	for _, a := range p.Args {
		if a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

// ListedPrompts walks prompts/list and returns the walk and the prompts
// with a string name, in order.
func ListedPrompts(t *T, s *session.Session) (*Walk, []Prompt) {
	w := t.WalkList(s, "prompts/list")
	var ps []Prompt
	for _, it := range w.Items {
		if p, ok := ParsePrompt(it); ok {
			ps = append(ps, p)
		}
	}
	return w, ps
}

// UnknownPromptName returns a prompt name that is not among ps.
func UnknownPromptName(ps []Prompt) string {
	name := "mcpconform-no-such-prompt"
	for i := 0; ; i++ {
		taken := false
		for _, p := range ps {
			if p.Name == name {
				taken = true
				break
			}
		}
		if !taken {
			return name
		}
		name = fmt.Sprintf("mcpconform-no-such-prompt-%d", i+1)
	}
}
