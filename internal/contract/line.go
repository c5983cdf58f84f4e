package contract

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// LineOf is the line (1-based) in a contract file of the deepest member
// on the JSON pointer's way (0 when even the first is absent): where a
// SARIF result or a reviewer looks.
func LineOf(b []byte, pointer string) int {
	var want []string
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		want = append(want, strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj     bool
		wantKey bool
		key     string
	}
	var stack []frame
	best, bestLen := 0, 0
	path := func() []string {
		var p []string
		for _, f := range stack {
			p = append(p, f.key)
		}
		return p
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return best
		}
		n := len(stack)
		if n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				if m := len(stack); m > 0 && stack[m-1].obj {
					stack[m-1].wantKey = true
				}
				continue
			}
			k, _ := tok.(string)
			stack[n-1].key, stack[n-1].wantKey = k, false
			p := path()
			if len(p) > bestLen && len(p) <= len(want) && slices.Equal(p, want[:len(p)]) {
				best, bestLen = bytes.Count(b[:dec.InputOffset()], []byte{'\n'})+1, len(p)
			}
			continue
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
				continue
			case '[':
				stack = append(stack, frame{key: "[]"})
				continue
			case '}', ']':
				if n == 0 {
					return best
				}
				stack = stack[:n-1]
			}
		}
		// a value ended: the enclosing object wants its next key
		if m := len(stack); m > 0 && stack[m-1].obj {
			stack[m-1].wantKey = true
		}
	}
}
