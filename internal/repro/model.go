package repro

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/internal/msgcheck"
)

// The message model (RPC-013): the script judges the one member the
// violation is about — its JSON pointer and the constraint it broke —
// with a small JSON-pointer reader in awk, not a whole validator. The
// problem is found again by validating the evidence frame (the answer
// the run judged) with the model; a problem whose constraint has no
// short form, or a message that answers no request of the run, replays
// and exits 2.

// constraint is what the member at ptr must be, as awk tests over its
// raw JSON text v (absent: "\001").
type constraint struct {
	ptr   string
	test  string // an awk expression over v
	words string // what it requires, in words
}

var (
	reMustBe   = regexp.MustCompile(`^must be (an? )?([a-z]+( or [a-z]+)*), got`)
	reConst    = regexp.MustCompile(`^must be ("(?:[^"\\]|\\.)*"), got`)
	reOneOf    = regexp.MustCompile(`must be one of (.*), got`)
	reBound    = regexp.MustCompile(`^must be (>=|<=) (-?[0-9]+), got`)
	reMaxItems = regexp.MustCompile(`^must have at most ([0-9]+) (items|values), got`)
	reQuoted   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// constraintOf turns a model problem into a constraint (false: none).
func constraintOf(p msgcheck.Problem) (constraint, bool) {
	ptr := p.Path
	msg := p.Message
	c := constraint{ptr: ptr}
	switch {
	case p.Rule == msgcheck.RuleResultAndError:
		return constraint{ptr: "", test: `!(jget(ans, "/result") != ABSENT && jget(ans, "/error") != ABSENT)`, words: "exactly one of result and error"}, true
	case p.Rule == msgcheck.RuleMetaKey:
		c.test, c.words = "v == ABSENT", "absent (not a valid _meta key)"
		return c, true
	case p.Rule == msgcheck.RuleBase64:
		c.test, c.words = `(v ~ /^"[A-Za-z0-9+\/]*=?=?"$/ && (length(v) - 2) % 4 == 0)`, "standard base64 (RFC 4648)"
	case strings.HasPrefix(msg, "must be an absolute URI"):
		c.test, c.words = `v ~ /^"[A-Za-z][A-Za-z0-9+.-]*:/`, "an absolute URI"
	case strings.HasPrefix(msg, "missing required member"):
		// where the answer has the object that lacks it (another
		// answer's list may be shorter: nothing to judge there)
		parent := ptr
		if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
			parent = ptr[:i]
		}
		c.test, c.words = "(v != ABSENT || jget(ans, "+strconv.Quote(parent)+") == ABSENT)", "present"
	case strings.HasPrefix(msg, "id must be a string or integer"):
		c.test, c.words = typeTest([]string{"string", "integer"}), "a string or an integer"
	case reConst.MatchString(msg):
		q := reConst.FindStringSubmatch(msg)[1]
		c.test, c.words = "v == "+awkString(q), q
	case reOneOf.MatchString(msg) || strings.HasPrefix(msg, "resultType must be"):
		list := msg
		if m := reOneOf.FindStringSubmatch(msg); m != nil {
			list = m[1]
		} else {
			list, _, _ = strings.Cut(strings.TrimPrefix(msg, "resultType must be "), ", got")
		}
		var alts []string
		for _, q := range reQuoted.FindAllString(list, -1) {
			alts = append(alts, "v == "+awkString(q))
		}
		if len(alts) == 0 {
			return c, false
		}
		c.test, c.words = "("+strings.Join(alts, " || ")+")", "one of "+list
	case reBound.MatchString(msg):
		m := reBound.FindStringSubmatch(msg)
		c.test, c.words = fmt.Sprintf("v ~ /^-?[0-9]/ && v + 0 %s %s", m[1], m[2]), m[1]+" "+m[2]
	case reMaxItems.MatchString(msg):
		m := reMaxItems.FindStringSubmatch(msg)
		c.test, c.words = "v ~ /^\\[/ && jlen(v) <= "+m[1], "at most "+m[1]+" "+m[2]
	case reMustBe.MatchString(msg):
		c.test = typeTest(strings.Split(reMustBe.FindStringSubmatch(msg)[2], " or "))
		c.words = reMustBe.FindStringSubmatch(msg)[1] + reMustBe.FindStringSubmatch(msg)[2]
	default:
		return c, false
	}
	if c.test == "" {
		return c, false
	}
	if c.words != "present" {
		// a member the answer lacks breaks no constraint but presence
		c.test = "(v == ABSENT || " + c.test + ")"
	}
	return c, true
}

// typeTest: the awk test that v is a JSON value of one of the types.
func typeTest(types []string) string {
	var alts []string
	for _, t := range types {
		switch t {
		case "string":
			alts = append(alts, `v ~ /^"/`)
		case "integer":
			alts = append(alts, `v ~ /^-?[0-9]+$/`)
		case "number":
			alts = append(alts, `v ~ /^-?[0-9]/`)
		case "object":
			alts = append(alts, `v ~ /^\{/`)
		case "array":
			alts = append(alts, `v ~ /^\[/`)
		case "boolean":
			alts = append(alts, `(v == "true" || v == "false")`)
		case "null":
			alts = append(alts, `v == "null"`)
		default:
			return ""
		}
	}
	return "(" + strings.Join(alts, " || ") + ")"
}

// awkString is a JSON string's text (quotes included) as an awk string
// literal.
func awkString(q string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(q) + `"`
}

// modelConstraint: the constraint of the first judgeable problem the
// model finds in the evidence frame tx[a] (an answer to method), the
// ones the result's text quotes first.
func (in input) modelConstraint(a int, method string) (constraint, bool) {
	body := []byte(firstLine(in.tx[a].Body))
	ps := msgcheck.ValidateServerMessage(in.revision, body, method)
	var quoted, rest []msgcheck.Problem
	text := in.message + " " + in.expected + " " + in.actual
	for _, p := range ps {
		switch {
		case strings.Contains(text, p.String()) || strings.Contains(text, p.Message),
			p.Rule == msgcheck.RuleResultAndError && strings.Contains(text, "result and error"):
			quoted = append(quoted, p)
		case in.requirement != "RPC-013" && namesMember(text, p.Path):
			quoted = append(quoted, p)
		case in.requirement == "RPC-013":
			rest = append(rest, p)
		}
	}
	for _, p := range append(quoted, rest...) {
		if c, ok := constraintOf(p); ok {
			return c, true
		}
	}
	return constraint{}, false
}

// pickModel: the request whose answer (an evidence frame) breaks the
// model in a way a constraint judges; the constraint goes to the judge.
func (in input) pickModel() ([]int, constraint) {
	for _, a := range in.evidenceFrames() {
		i := in.requestOf(a)
		if i < 0 {
			continue
		}
		_, method := idAndMethod([]byte(in.tx[i].Body))
		if c, ok := in.modelConstraint(a, method); ok {
			return []int{i}, c
		}
	}
	return nil, constraint{}
}

// jsonAwk reads JSON in awk: jget(s, ptr) is the raw text of the value at
// the JSON pointer ptr of the (whitespace-free) JSON text s, ABSENT when
// there is none; jlen(s) the number of elements of an array.
const jsonAwk = `function jend(s, i,    c, d, q, n) {
	n = length(s); c = substr(s, i, 1)
	if (c == "\"") { for (i++; i <= n; i++) { c = substr(s, i, 1); if (c == "\\") { i++; continue } if (c == "\"") return i + 1 } return i }
	if (c == "{" || c == "[") {
		d = 0; q = 0
		for (; i <= n; i++) {
			c = substr(s, i, 1)
			if (q) { if (c == "\\") i++; else if (c == "\"") q = 0; continue }
			if (c == "\"") q = 1
			else if (c == "{" || c == "[") d++
			else if (c == "}" || c == "]") { d--; if (d == 0) return i + 1 }
		}
		return i
	}
	while (i <= n && index(",}]", substr(s, i, 1)) == 0) i++
	return i
}
function jget(s, ptr,    parts, np, k, key, i, e, j, name, idx, found) {
	np = split(ptr, parts, "/")
	for (k = 2; k <= np; k++) {
		key = parts[k]; gsub(/~1/, "/", key); gsub(/~0/, "~", key); gsub(/[ \t\r]/, "", key)
		found = 0
		if (substr(s, 1, 1) == "{") {
			i = 2
			while (i <= length(s) && substr(s, i, 1) != "}") {
				j = jend(s, i); name = substr(s, i + 1, j - i - 2); i = j + 1
				e = jend(s, i)
				if (name == key) { s = substr(s, i, e - i); found = 1; break }
				i = e; if (substr(s, i, 1) == ",") i++
			}
		} else if (substr(s, 1, 1) == "[" && key ~ /^[0-9]+$/) {
			i = 2; idx = 0
			while (i <= length(s) && substr(s, i, 1) != "]") {
				e = jend(s, i)
				if (idx == key + 0) { s = substr(s, i, e - i); found = 1; break }
				idx++; i = e; if (substr(s, i, 1) == ",") i++
			}
		}
		if (!found) return ABSENT
	}
	return s
}
function jlen(s,    i, e, n) {
	n = 0; i = 2
	while (i <= length(s) && substr(s, i, 1) != "]") { e = jend(s, i); n++; i = e; if (substr(s, i, 1) == ",") i++ }
	return n
}`

// writeModel judges the answer's member (after answer has set ans).
func (c constraint) write(w func(string, ...any)) {
	prog := "BEGIN { ABSENT = \"\\001\" }\n" + jsonAwk + "\n{ ans = $0; v = jget(ans, " + strconv.Quote(c.ptr) + "); if (" + c.test + ") print \"ok\"; else if (v == ABSENT) print \"absent\"; else print v }"
	w("got=$(printf '%%s\\n' \"$ans\" | LC_ALL=C awk %s)\n", sq(prog))
	w("[ \"$got\" = ok ] && verdict 0 \"$EXPECTED\" %s\n", sq("the member "+orRoot(c.ptr)+" is "+c.words))
	w("verdict 1 \"$EXPECTED\" %s\n", sq("the member "+orRoot(c.ptr)+" must be "+c.words+", got: ")+`"$(printf '%s' "$got" | cut -c1-300)"`)
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// namesMember reports whether the verdict's text names the member at ptr
// (its last name that is not an array index, as a word).
func namesMember(text, ptr string) bool {
	parts := strings.Split(ptr, "/")
	for i := len(parts) - 1; i > 0; i-- {
		name := strings.NewReplacer("~1", "/", "~0", "~").Replace(parts[i])
		if _, err := strconv.Atoi(name); err == nil || name == "" {
			continue
		}
		return regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`).MatchString(text)
	}
	return false
}
