// Package wwwauth parses WWW-Authenticate headers (RFC 9110 section 11.6.1), for
// the authorization checks' own probes and the run-wide observer alike, so
// that both read a server's challenge the same way.
package wwwauth

import "strings"

// Challenge is one auth challenge of a WWW-Authenticate header: its
// scheme and its auth-params (names in lower case).
type Challenge struct {
	Scheme string
	Params map[string]string
}

// Parse parses WWW-Authenticate values (RFC 9110 section 11.6.1):
// challenges separated by commas, each a scheme and auth-params
// name=token or name="quoted string". token68 forms are kept under "".
func Parse(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		p := &chParser{s: v}
		var cur *Challenge
		for {
			p.skipSpaceCommas()
			if p.done() {
				break
			}
			tok := p.token()
			if tok == "" {
				p.i++ // skip a stray character
				continue
			}
			p.skipSpace()
			if p.peek() == '=' && cur != nil {
				// an auth-param of the current challenge (or token68)
				p.i++
				p.skipSpace()
				var val string
				if p.peek() == '"' {
					val = p.quoted()
				} else {
					val = p.token()
					for p.peek() == '=' { // token68 padding
						p.i++
						val += "="
					}
				}
				cur.Params[strings.ToLower(tok)] = val
				continue
			}
			out = append(out, Challenge{Scheme: tok, Params: map[string]string{}})
			cur = &out[len(out)-1]
		}
	}
	return out
}

type chParser struct {
	s string
	i int
}

func (p *chParser) done() bool { return p.i >= len(p.s) }
func (p *chParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}
func (p *chParser) skipSpace() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}
func (p *chParser) skipSpaceCommas() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}
func (p *chParser) token() string {
	start := p.i
	for !p.done() && !strings.ContainsRune(" \t,=\"", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}
func (p *chParser) quoted() string {
	p.i++ // opening quote
	var b strings.Builder
	for !p.done() {
		ch := p.s[p.i]
		p.i++
		switch ch {
		case '\\':
			if !p.done() {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Bearer returns the Bearer challenges of WWW-Authenticate values.
func Bearer(values []string) []Challenge {
	var out []Challenge
	for _, ch := range Parse(values) {
		if strings.EqualFold(ch.Scheme, "Bearer") {
			out = append(out, ch)
		}
	}
	return out
}
