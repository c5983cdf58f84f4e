package result

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// SchemaVersion of report.json. Bump the minor version for additions and
// the major version for changes that break readers.
const SchemaVersion = "1.11"

// Report is the content of report.json.
type Report struct {
	SchemaVersion string `json:"schemaVersion"`
	Tool          Tool   `json:"tool"`
	Target        Target `json:"target"`
	// CallPolicy is the run's call policy (--call-tools: none, readonly or
	// all); since 1.2.
	CallPolicy string `json:"callPolicy,omitempty"`
	// Revision is the newest revision the run negotiated; Revisions lists all.
	Revision     string          `json:"revision"`
	Revisions    []string        `json:"revisions"`
	ServerInfo   json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Eras         []Era           `json:"eras"`
	Detection    []string        `json:"detection,omitempty"`
	StartedAt    time.Time       `json:"startedAt"`
	DurationMs   int64           `json:"durationMs"`
	Results      []Result        `json:"results"`
	Summary      Summary         `json:"summary"`
	// Stderr is the kept tail of the stdio server's stderr (redacted).
	Stderr string `json:"stderr,omitempty"`
	// Interrupted is set when the run was stopped before all checks ran.
	Interrupted bool `json:"interrupted,omitempty"`
	// Baseline is set when a baseline was applied (ApplyBaseline); since 1.1.
	Baseline *BaselineSummary `json:"baseline,omitempty"`
	// Performance: server latency and what the run opened; since 1.3.
	Performance *Performance `json:"performance,omitempty"`
	// Contract: the contract gate and the lints of model-read text (run
	// --contract/--lint, contract check); since 1.10.
	Contract *Contract `json:"contract,omitempty"`
}

// Performance says how fast the server answered and what the run opened;
// since 1.3.
type Performance struct {
	// LatencySamples answers of cheap requests (ping, server/discover, list
	// methods; not a connection's first answer) were timed; P50 and P99 are
	// their median and 99th percentile.
	LatencySamples int     `json:"latencySamples"`
	LatencyP50Ms   float64 `json:"latencyP50Ms"`
	LatencyP99Ms   float64 `json:"latencyP99Ms"`
	// PatienceMs is the wait derived from them for answers a server may
	// legitimately never send; TimeoutMs the per-request limit for a hung
	// server.
	PatienceMs float64 `json:"patienceMs"`
	TimeoutMs  float64 `json:"timeoutMs"`
	// WindowMs is the quiet window waited after a barrier's answer for
	// traffic that must not come (3 × p99, 5–25 ms, or --window as given).
	WindowMs float64 `json:"windowMs,omitempty"`
	// Connections opened (on stdio, server processes started), handshakes
	// performed and their total time (on stdio including start-up).
	Connections int64   `json:"connections"`
	Handshakes  int64   `json:"handshakes"`
	HandshakeMs float64 `json:"handshakeMs"`
	// Sessions opened on those connections; HandshakeWallMs the run's
	// wall-clock time during which some handshake was under way
	// (overlapping handshakes counted once: what they could have added to
	// the run, HandshakeMs being their sum). Since 1.6.
	Sessions        int64   `json:"sessions,omitempty"`
	HandshakeWallMs float64 `json:"handshakeWallMs,omitempty"`
	// Prestarted of the Connections were stdio server processes started
	// ahead of need and taken by a check; Unused ones were started ahead
	// of need and ended unused (both counted in Connections).
	Prestarted int64 `json:"prestarted,omitempty"`
	Unused     int64 `json:"unused,omitempty"`
	// Lanes is how many revisions' checks ran side by side (--parallel);
	// absent when one check ran at a time. Workers is how many lane
	// workers ran checks in all (a lane takes more while its checks wait
	// on a slow server). Since 1.6.
	Lanes   int `json:"lanes,omitempty"`
	Workers int `json:"workers,omitempty"`
}

// Tool identifies mcpconform.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target describes what was checked; secrets are never included.
type Target struct {
	// Role is "client" when the run judged an MCP client (mcpconform
	// client: Command starts it, Transport is how it talks to the
	// scenario servers); absent for a server. Since 1.8.
	Role      string   `json:"role,omitempty"`
	Transport string   `json:"transport"`
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	// Auth says where the bearer token came from ("env MCP_TOKEN"), never its value.
	Auth string `json:"auth,omitempty"`
	// Headers lists the names of extra headers (values are not reported).
	Headers []string `json:"headers,omitempty"`
	// Config is the target config file as given (--config); since 1.2.
	Config string `json:"config,omitempty"`
	// Cwd is the stdio server's working directory (--cwd) and Env the
	// names of the variables the run set for it (--env; never the
	// values); since 1.5, for mcpconform repro.
	Cwd string   `json:"cwd,omitempty"`
	Env []string `json:"env,omitempty"`
}

// Era is what one revision's handshake returned.
type Era struct {
	Revision     string          `json:"revision"`
	ServerInfo   json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Error        string          `json:"error,omitempty"`
}

// Result is one check: one requirement under one revision and transport.
type Result struct {
	Requirement string   `json:"requirement"`
	Title       string   `json:"title"`
	Area        string   `json:"area"`
	Level       string   `json:"level"`
	Verdict     Verdict  `json:"verdict"`
	Transport   string   `json:"transport"`
	Revision    string   `json:"revision"`
	Message     string   `json:"message,omitempty"`
	Expected    string   `json:"expected,omitempty"`
	Actual      string   `json:"actual,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	Statement   string   `json:"statement,omitempty"`
	// Source is the first of Links (since 1.4 a URL; before, a path in the
	// catalog's shorthand).
	Source string `json:"source,omitempty"`
	// Links are the https URLs of the sentences the requirement rests on,
	// as they read in the result's revision. Since 1.4.
	Links []string `json:"links,omitempty"`
	// Tolerances are the catalog's tolerated ambiguities the verdict
	// invokes (its message or notes cite their ids). Since 1.4.
	Tolerances []ToleranceRef `json:"tolerances,omitempty"`
	// DurationMs is the check's own run time (since 1.6 without the wait
	// for its lane); WaitMs the part of it spent waiting for work another
	// check was doing for it (a shared exercise: what this check cost the
	// run is DurationMs − WaitMs); StartMs when it started, after the
	// run's start, and Lane the lane worker that ran it ("REVISION/N";
	// absent without lanes). Since 1.6.
	DurationMs float64    `json:"durationMs"`
	WaitMs     float64    `json:"waitMs,omitempty"`
	StartMs    float64    `json:"startMs,omitempty"`
	Lane       string     `json:"lane,omitempty"`
	Transcript []Exchange `json:"transcript,omitempty"`
	// Evidence are the transcript frames (Seq) the verdict rests on: the
	// server messages a FAIL or WARN judged (every offending one, for a
	// run-wide rule). One frame is one deviation's evidence, and
	// Invariants holds that no two requirements claim it. Since 1.7.
	Evidence []int64 `json:"evidence,omitempty"`
	// HeadEvidence are the transcript frames whose HTTP status line and
	// headers (not the message they carry) a FAIL or WARN rests on: a
	// content type, a session id, an SSE event id, a challenge. Since 1.7.
	HeadEvidence []int64 `json:"headEvidence,omitempty"`
	// Baselined is set on a failing result a baseline entry covers (it no
	// longer fails the gate); BaselineReason is that entry's reason. Since 1.1.
	Baselined      bool   `json:"baselined,omitempty"`
	BaselineReason string `json:"baselineReason,omitempty"`
	// Log is what the harness logged while a check that failed ran (the
	// steps it took and where it stopped: Ginkgo's timeline), for
	// junit.xml's system-err; not part of report.json.
	Log string `json:"-"`
	// Repro is what `run --verify-repro` found when it ran the result's
	// reproduction script against the target. Since 1.11.
	Repro *Repro `json:"repro,omitempty"`
	// Claim is what a FAIL or WARN asserted about one answer of the
	// server, in a form a reproduction script judges (mcpconform repro);
	// absent when the check's judgement has no such form. Since 1.11.
	Claim *Claim `json:"claim,omitempty"`
	// Judged names the scenario runs a client check judged (a client
	// report: one name per scenario run whose traffic the verdict rests
	// on; absent on NA and on a server report). Since 1.9.
	Judged []string `json:"judged,omitempty"`
}

// Claim is one assertion of a check about the answer to one request:
// Answer is the transcript frame (Seq) that carried the answer (the
// request is the one it answers: same connection, same id), Kind what it
// had to be: "error" (a JSON-RPC error, with one of Codes when given),
// "result" (a JSON-RPC result), "status" (an HTTP status among
// Statuses) or "model" (the answer's members the verdict names are valid
// for the revision's message model). Since 1.11.
type Claim struct {
	Answer   int64   `json:"answer"`
	Kind     string  `json:"kind"`
	Codes    []int64 `json:"codes,omitempty"`
	Statuses []int   `json:"statuses,omitempty"`
	// OrResult: a result would have been as good an answer (only an
	// error with another code breaks the requirement).
	OrResult bool `json:"orResult,omitempty"`
	// Undeclared names the server capability the requirement needs
	// undeclared (a method of a capability the server does not declare):
	// where the server declares it, the claim does not apply.
	Undeclared string `json:"undeclared,omitempty"`
}

// Repro is a verified reproduction script's outcome: Status
// "reproduced", "unreproduced" or "unjudged" (no rule: the script replays
// and exits 2), Prefix the Seqs of the connection's earlier messages it
// sends first, Why in words. Since 1.11.
type Repro struct {
	Status string  `json:"status"`
	Prefix []int64 `json:"prefix,omitempty"`
	Why    string  `json:"why,omitempty"`
}

// Claim kinds.
const (
	ClaimError  = "error"
	ClaimResult = "result"
	ClaimStatus = "status"
	ClaimModel  = "model"
)

// ToleranceRef is a tolerance of the catalog a verdict invokes.
type ToleranceRef struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Links []string `json:"links,omitempty"`
}

// Describe fills the result's catalog text from its requirement: title,
// area, statement and the links of the sentences it rests on, as they
// read in the result's revision.
func (r *Result) Describe(req catalog.Requirement) {
	r.Title, r.Area, r.Statement = req.Title, req.Area(), req.Statement
	r.Links = req.Links(catalog.Revision(r.Revision))
	r.Source = ""
	if len(r.Links) > 0 {
		r.Source = r.Links[0]
	}
}

// CiteTolerances fills each result's Tolerances with the catalog's
// tolerances its message and notes cite (TOL-N), once every verdict is
// final.
func CiteTolerances(results []Result) {
	for i := range results {
		r := &results[i]
		r.Tolerances = nil
		for _, t := range catalog.TolerancesIn(append([]string{r.Message}, r.Notes...)...) {
			r.Tolerances = append(r.Tolerances, ToleranceRef{ID: t.ID, Title: t.Title, Links: t.Links()})
		}
	}
}

// Invariants lists the results that break a promise every report keeps,
// whatever the server did:
//
//   - a FAIL cites a MUST: it is graded under a MUST, and the catalog grades
//     its requirement MUST in the result's revision (where the revision's
//     text has only a SHOULD, a MAY or no keyword sentence for it, the
//     catalog says SHOULD and a deviation is a WARN at most);
//   - one deviation, one verdict: no server frame is the evidence of
//     FAIL/WARN verdicts of two requirements (SchemaCompanion aside: the
//     message model, which judges every message beside the requirement
//     whose sentence the invalid member breaks);
//   - every result links at least one https URL of the sentences its
//     requirement rests on.
//
// Tests run it on every report (the kill matrix, the third-party corpus).
func Invariants(results []Result) []string {
	var out []string
	claims := map[int64][]string{}     // evidence frame → requirements judging it
	headClaims := map[int64][]string{} // the same for the frames' HTTP heads
	for _, r := range results {
		if r.Verdict == FAIL && r.Level != string(catalog.MUST) {
			out = append(out, fmt.Sprintf("%s [%s %s]: FAIL under level %q (a FAIL cites a MUST)", r.Requirement, r.Revision, r.Transport, r.Level))
		}
		if req, ok := catalog.Get(r.Requirement); ok && r.Verdict == FAIL && r.Revision != "" {
			if l := req.LevelFor(catalog.Revision(r.Revision)); l != catalog.MUST || !req.AppliesToRevision(catalog.Revision(r.Revision)) {
				out = append(out, fmt.Sprintf("%s [%s %s]: FAIL of a requirement the catalog grades %s in %s (a FAIL cites a MUST sentence of the revision)", r.Requirement, r.Revision, r.Transport, l, r.Revision))
			}
		}
		if !slices.ContainsFunc(r.Links, func(l string) bool { return strings.HasPrefix(l, "https://") }) {
			out = append(out, fmt.Sprintf("%s [%s %s]: no https link to its source", r.Requirement, r.Revision, r.Transport))
		}
		if (r.Verdict == FAIL || r.Verdict == WARN) && r.Requirement != SchemaCompanion {
			claim(claims, r.Evidence, r.Requirement)
			claim(headClaims, r.HeadEvidence, r.Requirement)
		}
	}
	for _, c := range []struct {
		what   string
		claims map[int64][]string
	}{{"frame", claims}, {"the HTTP head of frame", headClaims}} {
		for _, seq := range slices.Sorted(maps.Keys(c.claims)) {
			if ids := c.claims[seq]; len(ids) > 1 {
				out = append(out, fmt.Sprintf("%s %d is the evidence of FAIL/WARN verdicts of %s (one deviation, one verdict)", c.what, seq, strings.Join(ids, ", ")))
			}
		}
	}
	return out
}

func claim(claims map[int64][]string, seqs []int64, id string) {
	for _, seq := range seqs {
		if !slices.Contains(claims[seq], id) {
			claims[seq] = append(claims[seq], id)
		}
	}
}

// SchemaCompanion is the requirement that judges every message against the
// revision's message model: a member that breaks a requirement's sentence
// also makes the message invalid there, so its verdict may share its
// evidence with that requirement's.
const SchemaCompanion = "RPC-013"

// FailsRun reports whether the result fails the run: its verdict fails
// (Verdict.Fails) and no baseline entry covers it.
func (r Result) FailsRun(strict bool) bool { return r.Verdict.Fails(strict) && !r.Baselined }

// Exchange is one transcript entry.
type Exchange struct {
	Seq       int64          `json:"seq"`
	Time      time.Time      `json:"time"`
	Conn      string         `json:"conn"`
	Direction string         `json:"direction"`
	Kind      string         `json:"kind"`
	Body      string         `json:"body,omitempty"`
	Encoding  string         `json:"encoding,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	HTTP      *wire.HTTPInfo `json:"http,omitempty"`
	Exchange  int64          `json:"exchange,omitempty"`
	Note      string         `json:"note,omitempty"`
	// BodyRuns spells a truncated body whole when it is mostly repetition
	// (the harness's megabyte and deeply nested inputs): the body is the
	// concatenation of each run's text repeated times times. Since 1.5,
	// so that mcpconform repro regenerates the input instead of
	// embedding it.
	BodyRuns []Run `json:"bodyRuns,omitempty"`
}

// Run is one piece of a body spelled by BodyRuns.
type Run struct {
	Text  string `json:"text"`
	Times int    `json:"times,omitempty"` // 0 means 1
}

// MaxBodyInReport caps each transcript body in the report.
const MaxBodyInReport = 16 << 10

// TranscriptOf converts recorded frames (already redacted) to entries. A
// body that is valid UTF-8 shares the frame's bytes, which never change once
// recorded (wire.Recorder): a run's transcripts held a second copy of most
// of its traffic.
func TranscriptOf(frames []wire.Frame) []Exchange {
	out := make([]Exchange, 0, len(frames))
	for _, f := range frames {
		e := Exchange{
			Seq: f.Seq, Time: f.Time, Conn: f.Conn, Direction: f.Dir.String(), Kind: f.Kind.String(),
			Truncated: f.Truncated, HTTP: f.HTTP, Exchange: f.Exchange, Note: f.Note,
		}
		raw := f.Raw
		if len(raw) > MaxBodyInReport {
			if !f.Truncated && utf8.Valid(raw) {
				e.BodyRuns = RunsOf(raw, MaxBodyInReport)
			}
			raw = raw[:MaxBodyInReport]
			e.Truncated = true
		}
		if utf8.Valid(raw) {
			e.Body = unsafe.String(unsafe.SliceData(raw), len(raw))
		} else {
			e.Body = quoteBytes(raw)
			e.Encoding = "go-quoted"
		}
		out = append(out, e)
	}
	return out
}

// RunsOf spells b as runs of a short text (1 to 8 bytes) repeated at
// least 32 times and the literal text between them, or returns nil when
// the literal text would exceed max bytes (b is not mostly repetition).
func RunsOf(b []byte, max int) []Run {
	const minTimes = 32
	var out []Run
	lit, litTotal := 0, 0 // start of the pending literal text, bytes of literal kept
	for i := 0; i < len(b); {
		best, bestTimes := 0, 0
		for p := 1; p <= 8 && i+p*minTimes <= len(b); p++ {
			n := 1
			for i+(n+1)*p <= len(b) && string(b[i+n*p:i+(n+1)*p]) == string(b[i:i+p]) {
				n++
			}
			if n >= minTimes && n*p > best*bestTimes {
				best, bestTimes = p, n
			}
		}
		if best == 0 {
			i++
			continue
		}
		if lit < i {
			out = append(out, Run{Text: string(b[lit:i])})
			litTotal += i - lit
		}
		out = append(out, Run{Text: string(b[i : i+best]), Times: bestTimes})
		i += best * bestTimes
		lit = i
		if litTotal > max {
			return nil
		}
	}
	if lit < len(b) {
		out = append(out, Run{Text: string(b[lit:])})
		litTotal += len(b) - lit
	}
	if litTotal > max || !utf8.Valid(b) {
		return nil
	}
	return out
}

// Body returns the whole body a BodyRuns spells.
func Body(runs []Run) []byte {
	var b []byte
	for _, r := range runs {
		n := max(r.Times, 1)
		for range n {
			b = append(b, r.Text...)
		}
	}
	return b
}

func quoteBytes(b []byte) string {
	const hex = "0123456789abcdef"
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteString(`\x`)
			sb.WriteByte(hex[b[0]>>4])
			sb.WriteByte(hex[b[0]&15])
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

// Counts per verdict.
type Counts map[Verdict]int

// Summary counts results.
type Summary struct {
	Total  int               `json:"total"`
	Counts Counts            `json:"counts"`
	ByArea map[string]Counts `json:"byArea"`
	// Hollow is set when the run could not judge what the server declares:
	// no check ran, none could judge, or the checks that could not judge
	// what applies (ERROR, NA because of the call policy, the checks of a
	// revision the probe could not reach) are at least a quarter as many
	// as those that judged (PASS, FAIL, WARN). An NA because the server
	// does not declare a capability is a check that does not apply, not a
	// hollow one. HollowReason says which and how many.
	Hollow       bool   `json:"hollow"`
	HollowReason string `json:"hollowReason,omitempty"`
	// Strict says whether WARN counted as failing.
	Strict bool `json:"strict"`
	// Passed is the gate: no FAIL, no ERROR (and no WARN when strict).
	// With a baseline: no such result that the baseline does not cover, and
	// no stale baseline entry.
	Passed bool `json:"passed"`
	// Baselined counts failing results a baseline covers; Stale counts
	// baseline entries whose requirement now passes. Since 1.1.
	Baselined int `json:"baselined"`
	Stale     int `json:"stale"`
	// PolicyNA counts the NA results caused by the call policy (their
	// message starts with PolicyPrefix); Counts["NA"] includes them.
	// Since 1.2.
	PolicyNA int `json:"policyNA"`
	// OtherRevision counts the results of requirements that exist in no
	// revision the run covers (NA, message starting with
	// OtherRevisionPrefix): they are not checks of this run, and Total,
	// Counts, ByArea and Hollow leave them out.
	OtherRevision int `json:"otherRevision"`
	// Unreached counts the results of a revision the server supports but
	// the era detection could not reach (NA: their message names the
	// probe's "no answer"); they count towards Hollow. Since 1.4.
	Unreached int `json:"unreached,omitempty"`
	// Judgments counts the client checks' judgments: a requirement judged
	// on one scenario run (the sum of the results' Judged, NA left out).
	// The official conformance harness counts its client checks the same
	// way, per scenario. Since 1.9.
	Judgments int `json:"judgments,omitempty"`
	// Backoff says how the harness held back for its own load (absent
	// when it did not). Since 1.7.
	Backoff *Backoff `json:"backoff,omitempty"`
}

// Backoff is how the harness held back so that its own load made no
// verdict (issue 31): the most checks it ran at once and what --parallel
// asked, the lane workers it did not start because our process or the
// machine was busy or start-ups overlapped (HeldBack) or because of that
// cap (Capped), how often it held the run quiet to re-ask a silence
// (Quiet; QuietWaited of them waited for requests in flight), the
// silences re-asked and how many of those were answered (their checks'
// verdicts became at most WARN: slow under load, not reproduced), and
// the start-up deadline learned from the slowest start-up.
type Backoff struct {
	Workers           int     `json:"workers,omitempty"`
	Asked             int     `json:"asked,omitempty"`
	HeldBack          int     `json:"heldBack,omitempty"`
	Capped            int     `json:"capped,omitempty"`
	Quiet             int64   `json:"quiet,omitempty"`
	QuietWaited       int64   `json:"quietWaited,omitempty"`
	Reasked           int64   `json:"reasked,omitempty"`
	Answered          int64   `json:"answered,omitempty"`
	SlowestStartupMs  float64 `json:"slowestStartupMs,omitempty"`
	StartupDeadlineMs float64 `json:"startupDeadlineMs,omitempty"`
}

// Any reports whether the harness held back at all.
func (b *Backoff) Any() bool {
	return b != nil && (b.Workers < b.Asked || b.HeldBack > 0 || b.Capped > 0 || b.Quiet > 0 || b.Reasked > 0)
}

// OtherRevisionPrefix starts the message of the NA result of a requirement
// of another revision than the run covers (conform's registration).
const OtherRevisionPrefix = "applies to revision "

// IsOtherRevision reports whether a result is a requirement of another
// revision, not a check of this run.
func IsOtherRevision(r Result) bool {
	return r.Verdict == NA && strings.HasPrefix(r.Message, OtherRevisionPrefix)
}

// PolicyPrefix starts the message of every NA result caused by the call
// policy (--call-tools); it equals conform.PolicyPrefix.
const PolicyPrefix = "call policy: "

// IsPolicyNA reports whether a result is NA because of the call policy.
func IsPolicyNA(r Result) bool {
	return r.Verdict == NA && strings.HasPrefix(r.Message, PolicyPrefix)
}

// hollow decides whether a run could not judge what the server declares,
// and says why (see Summary.Hollow).
func hollow(s Summary) (bool, string) {
	if s.Total == 0 {
		return true, "no check ran"
	}
	judged := s.Counts[PASS] + s.Counts[FAIL] + s.Counts[WARN]
	var why []string
	if s.PolicyNA > 0 {
		why = append(why, fmt.Sprintf("%d check(s) NA because the call policy forbade the tool calls they need (--call-tools)", s.PolicyNA))
	}
	if n := s.Counts[ERROR]; n > 0 {
		why = append(why, fmt.Sprintf("%d check(s) ERROR", n))
	}
	if s.Unreached > 0 {
		why = append(why, fmt.Sprintf("%d check(s) of a revision the era detection could not reach", s.Unreached))
	}
	inert := s.PolicyNA + s.Counts[ERROR] + s.Unreached
	switch {
	case judged == 0:
		return true, "no check could judge the server" + suffix(why)
	case inert*4 >= judged:
		return true, fmt.Sprintf("the run could not judge much of what the server declares: %s, against %d that judged it (PASS, FAIL or WARN); a clean result here says little", strings.Join(why, ", "), judged)
	}
	return false, ""
}

func suffix(why []string) string {
	if len(why) == 0 {
		return ""
	}
	return ": " + strings.Join(why, ", ")
}

// Summarize computes the summary of results.
func Summarize(results []Result, strict bool) Summary {
	s := Summary{Counts: Counts{}, ByArea: map[string]Counts{}, Strict: strict}
	for _, v := range Verdicts {
		s.Counts[v] = 0
	}
	for _, r := range results {
		if IsOtherRevision(r) {
			s.OtherRevision++
			if strings.Contains(r.Message, "no answer") {
				s.Unreached++
			}
			continue
		}
		s.Total++
		s.Counts[r.Verdict]++
		if r.Verdict != NA {
			s.Judgments += len(r.Judged)
		}
		if s.ByArea[r.Area] == nil {
			s.ByArea[r.Area] = Counts{}
		}
		s.ByArea[r.Area][r.Verdict]++
		if IsPolicyNA(r) {
			s.PolicyNA++
		}
	}
	s.Hollow, s.HollowReason = hollow(s)
	s.Passed = true
	for _, v := range Verdicts {
		if v.Fails(strict) && s.Counts[v] > 0 {
			s.Passed = false
		}
	}
	return s
}

// SortResults orders results by area order of first appearance, then id,
// then revision (newest first).
func SortResults(rs []Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Requirement != rs[j].Requirement {
			return catalog.Less(rs[i].Requirement, rs[j].Requirement)
		}
		return rs[i].Revision > rs[j].Revision
	})
}
