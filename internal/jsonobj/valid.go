package jsonobj

// maxDepth is encoding/json's nesting limit: 10000 levels of arrays and
// objects are valid, 10001 are not.
const maxDepth = 10000

// Valid reports whether b is one valid JSON value (with optional white
// space around it), exactly as json.Valid does — the same grammar, the same
// nesting limit, bytes of invalid UTF-8 accepted inside strings — in a
// fraction of its time: encoding/json's scanner calls a function per byte,
// and every message of a run is validated at least once.
func Valid(b []byte) bool {
	i := skipSpace(b, 0)
	// containers holds, per open level, '{' or '['.
	var stack [64]byte
	containers := stack[:0]
	for {
		// a value starts at b[i]
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(containers) == maxDepth {
				return false
			}
			containers = append(containers, c)
			i = skipSpace(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				containers = containers[:len(containers)-1]
				i++
				break // an empty container: a complete value
			}
			if c == '{' {
				var ok bool
				if i, ok = validKey(b, i); !ok {
					return false
				}
			}
			continue // its first value
		case '"':
			var ok bool
			if i, ok = validString(b, i); !ok {
				return false
			}
		case 't':
			if !hasLiteral(b, i, "true") {
				return false
			}
			i += 4
		case 'f':
			if !hasLiteral(b, i, "false") {
				return false
			}
			i += 5
		case 'n':
			if !hasLiteral(b, i, "null") {
				return false
			}
			i += 4
		default:
			var ok bool
			if i, ok = validNumber(b, i); !ok {
				return false
			}
		}
		// a value ended just before b[i]: close containers, or go on to
		// the next member or element
		for {
			i = skipSpace(b, i)
			if len(containers) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := containers[len(containers)-1]
			switch {
			case b[i] == ',':
				i = skipSpace(b, i+1)
				if top == '{' {
					var ok bool
					if i, ok = validKey(b, i); !ok {
						return false
					}
				}
			case top == '{' && b[i] == '}', top == '[' && b[i] == ']':
				containers = containers[:len(containers)-1]
				i++
				continue
			default:
				return false
			}
			break
		}
	}
}

// validKey checks a member's key and colon at b[i]; it returns the index
// of the member's value (after white space).
func validKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := validString(b, i)
	if !ok {
		return 0, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

// validString checks the string starting at b[i] ('"') and returns the
// index after it: no control characters, only JSON's escapes.
func validString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// validNumber checks the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
