// Package repro turns a result of a report (or a saved fuzz case) into a
// standalone POSIX sh script that reproduces its violation against the
// same target with nothing but sh, printf, curl (HTTP) and the text
// tools (grep, sed, awk, tr): it replays the smallest part of the
// result's own transcript that shows the fault and judges the answer by a
// small per-requirement rule (rules.go). Exit status 1: the violation is
// observed; 0: the server behaves as required; 2: the script cannot tell
// (the server did not start or answer the handshake, or the requirement
// has no rule: the exchange is replayed for a person to compare).
package repro

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// Exit statuses of a script.
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitUnknown   = 2
)

// Options adjust a script.
type Options struct {
	// Transport overrides the result's ("stdio" or "http"): the script
	// then needs MCPCONFORM_TARGET_CMD or MCPCONFORM_TARGET_URL.
	Transport string
	// Prefix are the Seqs of earlier sent frames of the connection (in
	// the report's transcripts) the script sends before the exchange
	// that shows the fault (Verify finds them).
	Prefix []int64
	// Verified says, in the script's header, how the script was
	// verified against the target ("" for a script nobody ran).
	Verified string
	// Unreproduced says why the script could not reproduce the violation
	// the run saw: its judgement never says OK then (exit 2 instead of 0).
	Unreproduced string
	// Unverified: nobody ran the script against the target (report.html):
	// its OK is an exit 2 too, and its header says how to get a verified
	// one.
	Unverified bool
}

// msg is one message to send: its bytes (or the runs that spell them),
// and for HTTP the request's method and headers.
type msg struct {
	body    []byte
	runs    []result.Run
	id      string // the request id's JSON text, "" for none
	method  string // JSON-RPC method
	http    string // HTTP method ("" = POST)
	headers [][2]string
	cut     bool // the report cut the body: it cannot be replayed whole
	// noAuth: the run sent it without Authorization although it had a
	// token (an authorization check): the script sends none either
	noAuth bool
}

// plan is what a script does: a handshake (legacy era), the messages,
// and the judgement of the answer to the last one.
type plan struct {
	handshake bool
	// prefix: earlier messages of the connection the violation needs
	// (found by Verify), sent before msgs.
	prefix []msg
	msgs   []msg
	judge  judge
	// noInitialized: the handshake stops after initialize's answer (the
	// run sent the exchange before notifications/initialized).
	noInitialized bool
	// initParams: the params of the initialize the run sent on the
	// connection (its capabilities and clientInfo), which the script's
	// handshake sends again; nil: the script's own.
	initParams json.RawMessage
}

// Generate returns the script reproducing res of rep.
func Generate(rep *result.Report, res result.Result, opt Options) (string, error) {
	if res.Verdict != result.FAIL && res.Verdict != result.WARN {
		return "", fmt.Errorf("%s [%s]: %s is no violation to reproduce", res.Requirement, res.Revision, res.Verdict)
	}
	return resultInput(rep, res, opt).script()
}

// resultInput is what the script of res is made from.
func resultInput(rep *result.Report, res result.Result, opt Options) input {
	transport := res.Transport
	if opt.Transport != "" {
		transport = opt.Transport
	}
	in := input{
		requirement: res.Requirement, revision: res.Revision, transport: transport,
		title: res.Title, message: res.Message, link: requirementLink(res), verdict: string(res.Verdict),
		target: rep.Target, tx: res.Transcript, claim: res.Claim, expected: res.Expected, actual: res.Actual, evidence: res.Evidence,
		history: historyOf(rep), prefix: opt.Prefix, verified: opt.Verified, unreproduced: opt.Unreproduced,
	}
	if opt.Unverified && in.unreproduced == "" {
		in.unverified = true
		in.unreproduced = "this script was not verified against the target (mcpconform repro REPORT " + res.Requirement + "@" + res.Revision + " prints a verified one)"
	}
	if transport != res.Transport {
		in.target = result.Target{Transport: transport}
	}
	in.own = map[int64]bool{}
	for _, e := range res.Transcript {
		in.own[e.Seq] = true
	}
	in.tx = crashTranscript(rep, res, in)
	if _, claimed := in.claimRule(); !claimed && len(in.history) > 0 {
		if _, ok := in.evRuleFor(); ok || in.requirement == "RPC-013" {
			// the message the verdict rests on may have been provoked by
			// another check's input (a run-wide observer's FAIL)
			in.tx = in.history
		}
	}
	return in
}

// crashTranscript is the transcript to take a crash from: the result's
// own, or, for a run-wide liveness failure whose own transcript does not
// hold the input that stopped the server, that of the check it names
// ("seen during RPC-005 [2025-11-25]").
func crashTranscript(rep *result.Report, res result.Result, in input) []result.Exchange {
	if r, ok := in.ruleFor(); !ok || r.judge.kind != judgeCrash || len(pickCrash(in)) > 0 {
		return in.tx
	}
	m := seenDuring.FindStringSubmatch(res.Message)
	if m == nil {
		return historyCrash(in)
	}
	for _, o := range rep.Results {
		if o.Requirement == m[1] && o.Revision == m[2] && o.Transport == res.Transport {
			alt := in
			alt.tx = o.Transcript
			if len(pickCrash(alt)) > 0 {
				return o.Transcript
			}
		}
	}
	return historyCrash(in)
}

// historyCrash: the run's whole traffic, when the input that stopped the
// server is in no one result's transcript but is in the run's.
func historyCrash(in input) []result.Exchange {
	alt := in
	alt.tx = in.history
	if len(in.history) > 0 && len(pickCrash(alt)) > 0 {
		return in.history
	}
	return in.tx
}

var seenDuring = regexp.MustCompile(`seen during ([A-Z]+-[0-9]+) \[([0-9-]+)\]`)

// Judged reports whether the script of res judges the violation (exit 0
// or 1) rather than replaying the exchange for a person to compare (exit
// 2), and if not, why.
func Judged(rep *result.Report, res result.Result) (bool, string) {
	p := resultInput(rep, res, Options{}).plan()
	return p.judge.kind != judgeNone, p.judge.why
}

// requirementLink is the first https link of the requirement's sentences.
func requirementLink(res result.Result) string {
	for _, l := range res.Links {
		if strings.HasPrefix(l, "https://") {
			return l
		}
	}
	if r, ok := catalog.Get(res.Requirement); ok {
		for _, l := range r.Links(catalog.Revision(res.Revision)) {
			if strings.HasPrefix(l, "https://") {
				return l
			}
		}
	}
	return ""
}

// input is what a script is made from.
type input struct {
	requirement, revision, transport, title, message, link, verdict string
	target                                                          result.Target
	tx                                                              []result.Exchange
	// finding: a fuzz case (its messages, replayed in order)
	finding []msg
	code    string // the finding's layer/code
	// claim: what the check asserted (its answer frame and kind);
	// expected: the result's Expected.
	claim            *result.Claim
	expected, actual string
	evidence         []int64 // the result's Evidence
	// own: the Seqs of the result's own transcript (the check's traffic)
	own map[int64]bool
	// history: every frame of the run's transcripts (by Seq), where the
	// earlier messages of a connection are found; prefix: the Seqs of
	// those the script sends first (Options.Prefix).
	history []result.Exchange
	prefix  []int64
	// verified, unreproduced: what Verify found (Options); unverified:
	// nobody ran it (unreproduced then says so).
	verified, unreproduced string
	unverified             bool
}

func (in input) modern() bool { return in.revision == string(catalog.Modern) }

func (in input) script() (string, error) {
	if in.transport != "stdio" && in.transport != "http" {
		return "", fmt.Errorf("unknown transport %q", in.transport)
	}
	p := in.plan()
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("#!/bin/sh\n")
	w("# Reproduces %s %s [%s, %s]: %s\n", in.verdict, in.requirement, in.revision, in.transport, oneLine(in.title))
	if in.message != "" {
		w("# Reported: %s\n", oneLine(clip(in.message, 400)))
	}
	if in.link != "" {
		w("# Specification: %s\n", in.link)
	}
	if in.verified != "" {
		w("# Verified: %s\n", oneLine(in.verified))
	}
	if in.unverified {
		w("# NOT VERIFIED: %s.\n# The run saw the violation: this script never says OK (it exits 2 instead).\n", oneLine(in.unreproduced))
	} else if in.unreproduced != "" {
		w("# NOT REPRODUCED when verified: %s\n# The run saw the violation: this script never says OK (it exits 2 instead).\n", oneLine(in.unreproduced))
	}
	w("# Generated by mcpconform repro; needs only sh, printf, grep, sed, awk, tr%s\n", map[bool]string{true: ", curl", false: ", mkfifo"}[in.transport == "http"])
	w("# (and sleep, kill, mktemp). Exit status: 1 the violation is observed, 0 the\n")
	w("# server behaves as required, 2 cannot tell. MCPCONFORM_WAIT: seconds per answer.\n")
	if in.transport == "http" {
		w("# Target: MCPCONFORM_TARGET_URL overrides the URL of the run; a bearer token is\n# read from MCP_TOKEN (never written here).\n")
		if len(in.target.Headers) > 0 {
			w("# The run also sent these headers (--header), not replayed: their values may be secret: %s\n", strings.Join(in.target.Headers, " "))
		}
		w("TARGET_URL=${MCPCONFORM_TARGET_URL:-%s}\n", sq(in.target.URL))
		w("[ -n \"$TARGET_URL\" ] || { echo 'set MCPCONFORM_TARGET_URL to the server'\"'\"'s URL' >&2; exit 2; }\n")
	} else {
		w("# Target: MCPCONFORM_TARGET_CMD (a shell command line) overrides the command of the run.\n")
		if len(in.target.Env) > 0 {
			w("# The run set these variables for the server (values not recorded): %s\n", strings.Join(in.target.Env, " "))
		}
		def := ""
		if len(in.target.Command) > 0 {
			parts := make([]string, len(in.target.Command))
			for i, a := range in.target.Command {
				parts[i] = sq(a)
			}
			def = "exec " + strings.Join(parts, " ")
		}
		w("DEFAULT_CMD=%s\n", sq(def))
		w("TARGET_CMD=${MCPCONFORM_TARGET_CMD:-$DEFAULT_CMD}\n")
		w("TARGET_CWD=%s\n", sq(in.target.Cwd))
		w("[ -n \"$TARGET_CMD\" ] || { echo 'set MCPCONFORM_TARGET_CMD to the command that starts the server' >&2; exit 2; }\n")
	}
	w("EXPECTED=%s\n", sq(p.judge.expectation(in)))
	w("UNREPRODUCED=%s\n", sq(oneLine(in.unreproduced)))
	w("%s", prelude)
	if in.transport == "http" {
		w("%s", httpPrelude)
	} else {
		w("%s", stdioPrelude)
	}
	w("\n")
	in.body(&b, p)
	return b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// writeMsg emits the commands that send m: over stdio a line on fd 3,
// over HTTP a request (its body in a file).
func (in input) writeMsg(w func(string, ...any), m msg, k int) {
	full := m.body
	if len(m.runs) > 0 {
		full = result.Body(m.runs)
	}
	if m.http != "" && m.http != "POST" {
		w("echo %s\n", sq("> "+m.http+" "+headerDisplay(m.headers)))
	} else if in.transport == "http" {
		w("sent %s\n", sq("POST "+headerDisplay(m.headers)+" "+display(full)))
	} else {
		w("sent %s\n", sq(display(full)))
	}
	var out string
	if in.transport == "http" {
		out = fmt.Sprintf(`"$tmp/m%d"`, k)
	} else {
		out = "&3 2>/dev/null"
	}
	if m.http == "" || m.http == "POST" {
		if len(m.runs) > 0 {
			w("{\n")
			for _, r := range m.runs {
				if r.Times > 1 {
					w("\trep %s %d\n", sq(r.Text), r.Times)
				} else {
					w("\tprintf %s\n", printfFormat([]byte(r.Text)))
				}
			}
			if in.transport == "stdio" {
				w("\tprintf '\\n'\n")
			}
			w("} >%s\n", out)
		} else {
			nl := ""
			if in.transport == "stdio" {
				nl = `\n`
			}
			f := printfFormat(m.body)
			w("printf %s >%s\n", f[:len(f)-1]+nl+"'", out)
		}
	}
	if in.transport == "http" {
		method := m.http
		if method == "" {
			method = "POST"
		}
		body := ""
		if method == "POST" {
			body = fmt.Sprintf(`"$tmp/m%d"`, k)
		}
		var hs []string
		for _, h := range m.headers {
			if strings.EqualFold(h[0], "Mcp-Session-Id") {
				hs = append(hs, `${sid:+-H "Mcp-Session-Id: $sid"}`)
				continue
			}
			hs = append(hs, "-H", sq(h[0]+": "+h[1]))
		}
		if m.noAuth {
			w("noauth=1 # the run sent this request without a token\n")
		}
		w("request %s %s %s\n", method, orEmpty(body), strings.Join(hs, " "))
		if m.noAuth {
			w("noauth=\n")
		}
	}
}

func orEmpty(s string) string {
	if s == "" {
		return "''"
	}
	return s
}

func headerDisplay(hs [][2]string) string {
	var parts []string
	for _, h := range hs {
		if strings.EqualFold(h[0], "Mcp-Session-Id") {
			parts = append(parts, h[0]+": (the session)")
			continue
		}
		if strings.EqualFold(h[0], "Accept") || strings.EqualFold(h[0], "Content-Type") {
			continue
		}
		parts = append(parts, h[0]+": "+h[1])
	}
	return strings.Join(parts, ", ")
}

// body writes the handshake, the messages and the judgement.
func (in input) body(b *strings.Builder, p plan) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	for _, m := range p.msgs {
		if m.cut {
			w("# The report cut message %s at 16 KiB and it is no repetition this script can\n# regenerate: the replay below sends only its first 16 KiB.\n", m.id)
		}
	}
	if p.handshake {
		w("# The handshake of the legacy era.\n")
		init := in.initialize()
		if p.initParams != nil {
			init.body = []byte(`{"jsonrpc":"2.0","id":"mcpconform-repro-init","method":"initialize","params":` + string(p.initParams) + `}`)
			w("# The initialize the run sent on the connection (its capabilities and clientInfo).\n")
		}
		in.writeMsg(w, init, 0)
		w("answer %s || verdict 2 \"$EXPECTED\" \"the server did not answer initialize%s\"\n", sq(ereQuote(init.id)), map[bool]string{true: " (HTTP $status)", false: ""}[in.transport == "http"])
		w("init_ans=$ans\n")
		if p.noInitialized {
			w("# No notifications/initialized: the run sent the exchange before it.\n")
		} else {
			in.writeMsg(w, in.notification("notifications/initialized"), 1)
			if in.transport == "http" {
				w("ini_status=$status ini_n=$n\n")
			}
		}
		if in.transport == "stdio" {
			w("flush\n")
		}
	} else if in.transport == "stdio" {
		w("# 2026-07-28: no handshake; every request carries its _meta.\n")
	}
	if len(p.prefix) > 0 {
		w("\n# Earlier messages of the connection the violation needs (without them the\n# server answers as required; found by replaying the run's own messages):\n")
		for _, m := range p.prefix {
			w("#   %s\n", clip(display(m.body), 160))
		}
		lastID := ""
		for i, m := range p.prefix {
			in.writeMsg(w, m, 100+i)
			if m.id != "" && m.method != "" {
				lastID = m.id
			}
		}
		if in.transport == "stdio" && lastID != "" {
			w("answer %s || :\n", sq(ereQuote(lastID)))
		}
	}
	w("\n# The exchange that shows the fault.\n")
	if p.judge.kind == judgeBurst && in.transport == "stdio" {
		// in flight together: one write
		w("# %d requests written at once, in flight together.\n{\n", len(p.msgs))
		for _, m := range p.msgs {
			w("\tprintf %s\n", printfFormat(append(append([]byte{}, m.body...), '\n')))
		}
		w("} >&3 2>/dev/null\n\n")
		p.judge.write(w, in, p)
		return
	}
	for i, m := range p.msgs {
		in.writeMsg(w, m, i+2)
		last := i == len(p.msgs)-1
		if !last && in.transport == "stdio" && m.id != "" && p.judge.kind != judgeCrash && p.judge.kind != judgeBatch && p.judge.kind != judgeNone {
			w("answer %s\n", sq(ereQuote(m.id)))
		}
		if !last && in.transport == "http" {
			w("status_%d=$status\n", i)
		}
	}
	w("\n")
	p.judge.write(w, in, p)
}

// initialize is the legacy handshake's request (id "mcpconform-repro-init").
func (in input) initialize() msg {
	rev := in.revision
	if rev == "" || in.modern() {
		rev = string(catalog.LatestLegacy)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpconform-repro-init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpconform-repro","version":"1"}}}`, rev)
	return msg{body: []byte(body), id: `"mcpconform-repro-init"`, method: "initialize", headers: in.baseHeaders("initialize", false)}
}

func (in input) notification(method string) msg {
	return msg{body: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)), method: method, headers: in.baseHeaders(method, true)}
}

// probe is the liveness request of the era: ping (legacy) or
// server/discover (2026-07-28).
func (in input) probe() msg {
	if in.modern() {
		body := `{"jsonrpc":"2.0","id":"mcpconform-repro-probe","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpconform-repro","version":"1"}}}}`
		return msg{body: []byte(body), id: `"mcpconform-repro-probe"`, method: "server/discover", headers: in.baseHeaders("server/discover", false)}
	}
	return msg{body: []byte(`{"jsonrpc":"2.0","id":"mcpconform-repro-probe","method":"ping"}`), id: `"mcpconform-repro-probe"`, method: "ping", headers: in.baseHeaders("ping", true)}
}

// baseHeaders are the headers of a request the script makes itself.
func (in input) baseHeaders(method string, session bool) [][2]string {
	if in.transport != "http" {
		return nil
	}
	hs := [][2]string{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}}
	if in.modern() {
		hs = append(hs, [2]string{"MCP-Protocol-Version", string(catalog.Modern)}, [2]string{"Mcp-Method", method})
	} else if method != "initialize" {
		hs = append(hs, [2]string{"MCP-Protocol-Version", in.revision})
	}
	if session && !in.modern() {
		hs = append(hs, [2]string{"Mcp-Session-Id", ""})
	}
	return hs
}

// msgOf makes a message to send from a recorded frame.
func (in input) msgOf(e result.Exchange) msg {
	m := msg{body: []byte(e.Body)}
	if e.Encoding == "go-quoted" {
		m.body = unquoteBytes(e.Body)
	}
	if len(e.BodyRuns) > 0 {
		m.runs = e.BodyRuns
	} else if e.Truncated {
		m.cut = true
	}
	m.id, m.method = idAndMethod(m.body)
	if e.HTTP != nil && in.transport == "http" {
		m.http = e.HTTP.Method
		for name, vs := range e.HTTP.Header {
			switch strings.ToLower(name) {
			case "authorization", "content-length", "host", "user-agent", "accept-encoding", "cookie", "proxy-authorization", "last-event-id":
				continue
			}
			if slices.ContainsFunc(in.target.Headers, func(h string) bool { return strings.EqualFold(h, name) }) {
				continue // a header the user gave (--header): its value may be secret
			}
			for _, v := range vs {
				if strings.Contains(v, "[REDACTED]") {
					continue
				}
				m.headers = append(m.headers, [2]string{name, v})
			}
		}
		sortHeaders(m.headers)
		if in.target.Auth != "" && len(e.HTTP.Header.Values("Authorization")) == 0 && e.HTTP.Header.Get("authorization") == "" {
			m.noAuth = true
		}
	} else if in.transport == "http" {
		m.headers = in.baseHeaders(m.method, true)
	}
	return m
}

func sortHeaders(hs [][2]string) {
	for i := 1; i < len(hs); i++ {
		for j := i; j > 0 && hs[j][0] < hs[j-1][0]; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
}

// idAndMethod reads a message's id (its JSON text) and method; both ""
// when the message is not a JSON object.
func idAndMethod(b []byte) (id, method string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(b, &m) != nil {
		return "", ""
	}
	if len(m.ID) > 0 && string(m.ID) != "null" {
		id = string(m.ID)
	}
	return id, m.Method
}

// unquoteBytes undoes result's go-quoted encoding (\xNN for an invalid byte).
func unquoteBytes(s string) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				out = append(out, byte(v))
				i += 3
				continue
			}
		}
		out = append(out, s[i])
	}
	return out
}
