// Package textlint lints the text a server gives the model to read (issue
// 33, item 4: tool, prompt and resource names, titles and descriptions,
// instructions, property descriptions): characters a reader cannot see,
// markup hidden from the user, directives aimed at the model, sensitive
// paths, encoded blobs. Each finding has a rule id, a level and its
// reason; what each rule must not flag is tested beside what it must
// (false positives are the known weakness of description scanners).
package textlint

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Levels of a finding.
const (
	ERR  = "ERR"
	WARN = "WARN"
)

// Rule is a lint.
type Rule struct {
	ID, Level, Title, Reason string
}

// Rules are the lints, by id.
var Rules = map[string]Rule{
	"LINT_INVISIBLE_CHAR": {"LINT_INVISIBLE_CHAR", ERR, "a character the reader cannot see",
		"zero-width, bidirectional-control and Unicode tag characters show nothing to a person reviewing the text, yet the model reads them: text can be hidden in them or made to read differently"},
	"LINT_HIDDEN_MARKUP": {"LINT_HIDDEN_MARKUP", WARN, "markup a host hides from the user",
		"an HTML comment, or a tag such as <important> or <system>, is not rendered for the user by most hosts while the model reads it"},
	"LINT_MODEL_DIRECTIVE": {"LINT_MODEL_DIRECTIVE", WARN, "a directive aimed at the model rather than a description",
		"text that tells the model to ignore its instructions, to keep something from the user or to act before other tools is the shape of tool poisoning"},
	"LINT_SENSITIVE_PATH": {"LINT_SENSITIVE_PATH", WARN, "a path to credentials or client configuration",
		"a description that names SSH keys, cloud credentials or an MCP client's configuration invites the model to read them"},
	"LINT_ENCODED_BLOB": {"LINT_ENCODED_BLOB", WARN, "a long base64 or hex run",
		"an encoded run in text the model reads can carry instructions a reviewer does not see"},
}

// Finding is one lint hit in a text.
type Finding struct {
	Rule  string
	Level string
	// Where names the text (e.g. "tools[add].description"); Offset is the
	// byte offset of the hit in it.
	Where  string
	Offset int
	// Excerpt is the hit with its neighbourhood, every invisible or
	// control character written as an escape (\u200b) so a reviewer sees
	// it.
	Excerpt string
	Detail  string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s %s@%d: %s (%s)", f.Level, f.Rule, f.Where, f.Offset, f.Detail, f.Excerpt)
}

// Lint lints one text.
func Lint(where, text string) []Finding {
	var out []Finding
	add := func(rule string, at, end int, detail string) {
		out = append(out, Finding{Rule: rule, Level: Rules[rule].Level, Where: where, Offset: at, Excerpt: excerpt(text, at, end), Detail: detail})
	}
	invisible(text, add)
	for _, m := range hiddenMarkup.FindAllStringIndex(text, -1) {
		add("LINT_HIDDEN_MARKUP", m[0], m[1], "hidden markup "+Escape(clip(text[m[0]:m[1]], 40)))
	}
	for _, m := range directive.FindAllStringIndex(text, -1) {
		add("LINT_MODEL_DIRECTIVE", m[0], m[1], "directive "+strings.ToLower(text[m[0]:m[1]]))
	}
	for _, m := range sensitivePath.FindAllStringIndex(text, -1) {
		if refused(text, m[0], m[1]) {
			continue
		}
		add("LINT_SENSITIVE_PATH", m[0], m[1], "names "+text[m[0]:m[1]])
	}
	for _, m := range blob.FindAllStringIndex(text, -1) {
		if run := text[m[0]:m[1]]; encoded(run) {
			add("LINT_ENCODED_BLOB", m[0], m[1], fmt.Sprintf("an encoded run of %d characters", len(run)))
		}
	}
	return out
}

// refused reports whether the path at text[at:end] is named as one the
// tool refuses ("paths outside allowed directories (e.g. "/etc",
// "~/.ssh") are rejected", circleci-mcp-server): the sentence goes on to
// say it is rejected, denied, blocked… and says nothing before it that
// asks for it (read, send, include …). Direction is part of the match.
func refused(text string, at, end int) bool {
	start := strings.LastIndexAny(text[:at], ".;\n") + 1
	return refusal.MatchString(text[end:]) && !asks.MatchString(text[start:at])
}

var (
	refusal = regexp.MustCompile(`(?i)^[^.;\n]{0,60}?\b(?:are|is|will be|gets?)\s+(?:rejected|denied|blocked|refused|forbidden|not allowed|not permitted|not accessible)\b`)
	asks    = regexp.MustCompile(`(?i)\b(?:read|open|cat|send|include|upload|attach|access|copy|print|return|fetch|load|use|show|post|pass)\b`)
)

// invisible reports the characters a reader cannot see: format (Cf)
// characters (zero-width, bidi controls, the tag block), private-use
// characters. A zero-width joiner or variation selector inside an emoji
// sequence draws the emoji and is not reported.
func invisible(text string, add func(string, int, int, string)) {
	var prev rune
	for i, r := range text {
		size := utf8.RuneLen(r)
		next, _ := utf8.DecodeRuneInString(text[i+size:])
		switch {
		case r == '\u200d' && emoji(prev) && emoji(next), (r == '\ufe0f' || r == '\ufe0e') && emoji(prev):
			// part of an emoji
		case r >= 0xE0000 && r <= 0xE007F:
			add("LINT_INVISIBLE_CHAR", i, i+size, fmt.Sprintf("a Unicode tag character U+%04X", r))
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			add("LINT_INVISIBLE_CHAR", i, i+size, fmt.Sprintf("a bidirectional control U+%04X", r))
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r):
			add("LINT_INVISIBLE_CHAR", i, i+size, fmt.Sprintf("an invisible character U+%04X", r))
		}
		prev = r
	}
}

// emoji reports whether r draws as an emoji (the ranges emoji sequences
// join).
func emoji(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x1F1E6 && r <= 0x1F1FF
}

var (
	hiddenMarkup = regexp.MustCompile(`(?is)<!--.*?(?:-->|$)|</?\s*(?:important|system|instructions?|secret|hidden|admin)\b[^>]*>`)
	// directive: phrases that address the model's instructions or the
	// user's knowledge, not what the tool does
	directive = regexp.MustCompile(`(?i)\b(?:` +
		`(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|other|system)\s+(?:instructions?|prompts?|rules?|messages?)` +
		`|(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|mention\s+(?:this\s+|it\s+)?to|reveal\s+(?:this\s+|it\s+)?to|show\s+(?:this\s+|it\s+)?to)\s+the\s+user` +
		`|without\s+(?:telling|informing|notifying|asking)\s+the\s+user` +
		`|before\s+using\s+(?:any\s+other|another|other)\s+tools?` +
		`|instead\s+of\s+(?:using\s+)?(?:any\s+)?other\s+tools?` +
		`)`)
	sensitivePath = regexp.MustCompile(`(?i)~/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|~/\.aws/credentials|~/\.config/gcloud|/etc/(?:passwd|shadow)\b|\bclaude_desktop_config\.json\b|(?:^|[\s/"'` + "`" + `])\.?(?:cursor/)?mcp\.json\b|~/\.netrc\b`)
	blob          = regexp.MustCompile(`[A-Za-z0-9+/_-]{40,}={0,2}`)
)

// encoded reports whether a run looks encoded:
//   - hex longer than a SHA-256 (64 characters), with digits and letters:
//     commit ids and digests are not reported;
//   - base64 (one alphabet: + and /, or - and _; not starting with /, as
//     a path does) with lower and upper case letters, at least four digits (one
//     character in twenty or more), and a character class that changes at
//     least once every four characters: a long identifier in camel case
//     has one digit or none.
func encoded(run string) bool {
	core := strings.TrimRight(run, "=")
	if strings.HasPrefix(core, "/") || strings.ContainsAny(core, "+/") && strings.ContainsAny(core, "-_") {
		// a path, or the two base64 alphabets mixed: not base64
		return false
	}
	hex, digit, lower, upper := true, false, false, false
	changes, prev, digits := 0, -1, 0
	for _, r := range core {
		class := 3
		switch {
		case r >= '0' && r <= '9':
			digit, class = true, 0
			digits++
		case r >= 'a' && r <= 'z':
			lower, class = true, 1
			hex = hex && r <= 'f'
		case r >= 'A' && r <= 'Z':
			upper, class = true, 2
			hex = hex && r <= 'F'
		default:
			hex = false
		}
		if prev >= 0 && class != prev {
			changes++
		}
		prev = class
	}
	if hex {
		return digit && (lower || upper) && len(core) > 64
	}
	return lower && upper && digits >= 4 && digits*20 >= len(core) && changes*4 >= len(core)
}

// excerpt is text around [at, end), escaped.
func excerpt(text string, at, end int) string {
	from, to := max(0, at-20), min(len(text), end+20)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	return Escape(text[from:to])
}

// Escape writes every invisible, control or private-use character of s as
// \uXXXX (\U000XXXXX past the basic plane), so a reviewer sees it.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.IsControl(r):
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
