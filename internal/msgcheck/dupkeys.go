package msgcheck

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// duplicateKeys returns the JSON pointer of every repeated object member in
// raw (of the second and later occurrences). decode has already accepted raw
// as JSON, so this scanner only tracks structure. Keys are compared by their
// decoded value, so "a" and "\u0061" collide.
func duplicateKeys(raw []byte) []string {
	type key struct {
		s, e int    // raw bytes of the key, without quotes
		unq  string // decoded key, set only when it has escapes
	}
	type frame struct {
		object    bool
		expectKey bool
		keysFrom  int // this object's keys are keys[keysFrom:]
		cur       key // member being read (objects)
		index     int // element being read (arrays)
	}
	var (
		stack []frame
		keys  []key
		dups  []string
	)
	keyString := func(k key) string {
		if k.unq != "" || k.s == k.e {
			return k.unq
		}
		return string(raw[k.s:k.e])
	}
	same := func(a, b key) bool {
		if a.unq == "" && b.unq == "" {
			return bytes.Equal(raw[a.s:a.e], raw[b.s:b.e])
		}
		return keyString(a) == keyString(b)
	}
	path := func(last key) string {
		var p []byte
		for _, f := range stack[:len(stack)-1] {
			p = append(p, '/')
			if f.object {
				p = append(p, escapePointer(keyString(f.cur))...)
			} else {
				p = strconv.AppendInt(p, int64(f.index), 10)
			}
		}
		p = append(p, '/')
		p = append(p, escapePointer(keyString(last))...)
		return string(p)
	}
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expectKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		case '{':
			stack = append(stack, frame{object: true, expectKey: true, keysFrom: len(keys)})
			i++
		case '[':
			stack = append(stack, frame{})
			i++
		case '}', ']':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					keys = keys[:stack[n-1].keysFrom]
				}
				stack = stack[:n-1]
			}
			valueDone()
			i++
		case '"':
			j, escaped := i+1, false
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			end := j + 1
			n := len(stack)
			if n > 0 && stack[n-1].object && stack[n-1].expectKey {
				k := key{s: i + 1, e: j}
				if escaped {
					_ = json.Unmarshal(raw[i:end], &k.unq)
				}
				top := &stack[n-1]
				for _, prev := range keys[top.keysFrom:] {
					if same(prev, k) {
						dups = append(dups, path(k))
						break
					}
				}
				keys = append(keys, k)
				top.cur = k
				top.expectKey = false
			} else {
				valueDone()
			}
			i = end
		default: // number, true, false, null
			for i < len(raw) && !endsLiteral(raw[i]) {
				i++
			}
			valueDone()
		}
	}
	return dups
}

func endsLiteral(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', ']', '}':
		return true
	}
	return false
}
