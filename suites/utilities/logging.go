package utilities

import (
	"fmt"
	"sort"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

var _ = c.Area("logging", func() {
	c.It("LOG-001", "log messages come only from a server that declared logging, with an RFC 5424 level and data", func(t *c.T) {
		ex := exerciseFor(t)
		n := 0
		phases := []*phase{sharedPhase(t)}
		if len(ex.tools) > 0 {
			phases = append(phases, ex.usable(t)...)
		}
		if ex.cancel != nil && ex.cancel.err == nil {
			phases = append(phases, ex.cancel)
		}
		for _, ph := range phases {
			for _, e := range ph.notes("notifications/message") {
				n++
				if !ph.logging {
					t.Violation("the logging capability declared by a server that sends notifications/message", c.Clip(e.f.Raw),
						"the server sent a log message without declaring the logging capability")
				}
				raw, ok := param(e.msg, "level")
				level, isString := paramString(e.msg, "level")
				switch {
				case !ok:
					t.Violation("a level", c.Clip(e.f.Raw), "a log message has no level")
				case !isString:
					t.Violation("a level string", c.Clip(e.f.Raw), "a log message's level is %s, not a string", raw)
				}
				if _, known := levelRank[level]; !known {
					t.Violation("one of debug, info, notice, warning, error, critical, alert, emergency", c.Clip(e.f.Raw),
						"a log message has the level %q, which is not an RFC 5424 level", level)
				}
				if _, ok := param(e.msg, "data"); !ok {
					t.Violation("a data member", c.Clip(e.f.Raw), "a log message has no data")
				}
			}
		}
		if n == 0 {
			ex.requireTools(t)
			t.NA("no notifications/message arrived, neither in the shared session nor in the exercise: %s", ex.tried())
		}
		t.Note("judged %d log message(s)", n)
	})

	c.It("LOG-002", "logging/setLevel returns {}, filters lower levels, and rejects an invalid level with -32602", func(t *c.T) {
		ex := exerciseFor(t)
		var b *phase
		bs := ex.shards("B")
		if len(bs) > 0 {
			b = bs[0] // the one that also sets "verbose"
		}
		if b == nil {
			// no callable tool: the level answers can still be judged
			t.Exclusive(logLevelLock)
			s := t.Open()
			b = &phase{logging: c.Declared(s, "logging")}
			bs = []*phase{b}
			if b.logging {
				b.levelResp = t.Call(s, "logging/setLevel", map[string]any{"level": "error"}, nil)
				b.badLevelResp = t.Call(s, "logging/setLevel", map[string]any{"level": "verbose"}, nil)
			}
		} else if b.err != nil {
			t.Error("the session for logging/setLevel could not be opened: %v", b.err)
		}
		if !b.logging {
			t.NA("the server does not declare the logging capability")
		}
		if b.levelResp == nil || b.levelResp.Msg == nil {
			t.Violation("a response to logging/setLevel", b.levelResp.Describe(), "logging/setLevel {level:\"error\"} got no response")
		}
		t.ResultObject(`logging/setLevel {level:"error"}`, b.levelResp)
		kept := 0
		for _, sh := range bs {
			if sh.err != nil {
				continue
			}
			for _, e := range sh.notes("notifications/message") {
				level, _ := paramString(e.msg, "level")
				if r, known := levelRank[level]; known && r < levelRank["error"] && e.f.Seq > sh.levelSeq {
					t.Violation("no log message below error after logging/setLevel \"error\"", c.Clip(e.f.Raw),
						"a %s message arrived after logging/setLevel \"error\"", level)
				}
				kept++
			}
		}
		if b.badLevelResp == nil || b.badLevelResp.Msg == nil {
			t.Violation("-32602 for logging/setLevel \"verbose\"", b.badLevelResp.Describe(), "logging/setLevel \"verbose\" got no response")
		}
		t.ExpectErrorCode(`logging/setLevel {level:"verbose"}`, b.badLevelResp, jsonrpc.CodeInvalidParams)
		if a := ex.logLevels("A"); len(a) > 0 {
			t.Note("with level debug the same calls logged at %s; with error: %d message(s)", strings.Join(a, ", "), kept)
		} else if len(ex.tools) > 0 {
			t.Note("no call logged even at debug level, so the filter could not be seen at work")
		}
	})

	c.It("LOG-003", "no log message for a request without _meta logLevel", func(t *c.T) {
		ex := exerciseFor(t)
		ex.requireTools(t)
		var bs []*phase
		for _, ph := range ex.usable(t) {
			if ph.key == "B" {
				bs = append(bs, ph)
			}
		}
		if len(bs) == 0 {
			t.Error("the session without logLevel could not be opened")
		}
		for _, b := range bs {
			for _, e := range b.notes("notifications/message") {
				t.Violation("no notifications/message for requests without _meta \""+session.MetaLogLevel+"\"", c.Clip(e.f.Raw),
					"a log message arrived in a session whose requests carried no logLevel (%d calls %s)", len(b.calls), b.what)
			}
		}
		a := ex.logLevels("A")
		if len(a) == 0 {
			t.NA("the server sent no log message even for requests with logLevel \"debug\", so silence without it shows nothing: %s", ex.tried())
		}
		t.Note("with logLevel debug the same calls logged (%s); without logLevel nothing came", strings.Join(a, ", "))
	})

	c.It("LOG-004", "log messages respect the requested level and stay on the request's stream, before its response", func(t *c.T) {
		ex := exerciseFor(t)
		ex.requireTools(t)
		n := 0
		for _, ph := range ex.usable(t) {
			if ph.logLevel == "" {
				continue
			}
			for _, e := range ph.notes("notifications/message") {
				n++
				level, _ := paramString(e.msg, "level")
				if r, known := levelRank[level]; known && r < levelRank[ph.logLevel] {
					t.Violation("no log message below "+ph.logLevel, c.Clip(e.f.Raw),
						"a %s message arrived for requests that asked for logLevel %q", level, ph.logLevel)
				}
				if ex.http {
					cl := ph.callOfExchange(e.f.Exchange)
					if cl == nil {
						on := "no request's stream"
						if req := ph.requestOfExchange(e.f.Exchange); req != nil {
							on = fmt.Sprintf("the stream of %s (id %s), which asked for no log messages", req.Method, req.ID)
						}
						t.Violation("log messages only on the stream of the request that asked for them", c.Clip(e.f.Raw), "a log message arrived on %s", on)
					}
					if cl.respSeq != 0 && e.f.Seq > cl.respSeq {
						t.Violation("log messages before the response", c.Clip(e.f.Raw), "a log message for %s followed its response", describeCall(cl))
					}
					continue
				}
				if len(ph.activeAt(e.f.Seq)) == 0 {
					t.Violation("log messages only while the request that asked for them runs, before its response", c.Clip(e.f.Raw),
						"a log message arrived when no request with logLevel was in progress%s", afterWhich(ph, e.f.Seq))
				}
			}
		}
		if n == 0 {
			t.NA("no notifications/message arrived for requests with logLevel \"debug\" or \"warning\": %s", ex.tried())
		}
		t.Note("judged %d log message(s)", n)
	})

	c.It("LOG-005", "an unrecognised _meta logLevel gets -32602", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "logging") {
			t.NA("the server does not declare the logging capability")
		}
		m, p := t.Probe()
		meta := s.ModernMeta()
		meta[session.MetaLogLevel] = "verbose"
		resp := t.Call(s, m, p, &session.CallOptions{Meta: meta})
		t.ExpectErrorCode(m+` with _meta logLevel "verbose"`, resp, jsonrpc.CodeInvalidParams)
	})
})

// logLevels returns the distinct levels logged in phase key, in order.
func (ex *exercise) logLevels(key string) []string {
	seen := map[string]bool{}
	var out []string
	for _, ph := range ex.phases {
		if ph.key != key {
			continue
		}
		for _, e := range ph.notes("notifications/message") {
			l, _ := paramString(e.msg, "level")
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return levelRank[out[i]] < levelRank[out[j]] })
	return out
}

// afterWhich names the last call answered before frame seq.
func afterWhich(ph *phase, seq int64) string {
	var last *call
	for _, cl := range ph.calls {
		if cl.respSeq != 0 && cl.respSeq < seq && (last == nil || cl.respSeq > last.respSeq) {
			last = cl
		}
	}
	if last == nil {
		return ""
	}
	return " (after the response to " + describeCall(last) + ")"
}
