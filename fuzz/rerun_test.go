package fuzz

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

func raws(msgs ...[]byte) []Raw {
	var out []Raw
	for _, m := range msgs {
		out = append(out, RawOf(m))
	}
	return out
}

// A case that puts two requests in flight together (in one message case
// or one state-machine step), or whose defect is crossed responses, is
// replayed with its messages in flight together; any other case as it
// was sent. The replays are bounded in number, and none starts once their
// time is up.
func TestConcurrentCasesAreReplayedTogether(t *testing.T) {
	ping := func(id int64) []byte { return jsonrpc.Request(jsonrpc.IntID(id), "ping", nil) }
	note := notification("notifications/x-mcpconform-fuzz", nil)
	for _, c := range []struct {
		name     string
		f        Finding
		together bool
	}{
		{"two requests", Finding{Property: PropIDs, Layer: "response", Code: "no-response", Messages: raws(ping(1), ping(2))}, true},
		{"a request and a notification", Finding{Property: PropIDs, Layer: "response", Code: "no-response", Messages: raws(ping(1), note)}, false},
		{"a request and a fault", Finding{Property: PropRaw, Layer: "response", Code: "no-response", Messages: raws(ping(1), []byte(`{"jsonrpc":"2.0","id":2,`))}, false},
		{"crossed responses", Finding{Property: PropIDs, Layer: "correlation", Code: "crossed-responses", Messages: raws(ping(1))}, true},
		{"a burst step", Finding{Property: PropSeq, Layer: "response", Code: "no-response", Steps: []Step{{Op: opSend, Messages: raws(ping(1))}, {Op: opSend, Messages: raws(ping(2), ping(3))}}}, true},
		{"steps one request each", Finding{Property: PropSeq, Layer: "response", Code: "no-response", Steps: []Step{{Op: opSend, Messages: raws(ping(1))}, {Op: opSend, Messages: raws(ping(2), note)}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &harness{}
			var calls int
			h.replay = func(_ context.Context, f *Finding, together bool) []problem {
				calls++
				if together != c.together {
					t.Errorf("replayed with together %v, want %v", together, c.together)
				}
				return []problem{{f.Layer, f.Code, "again"}, {"other", "defect", ""}}
			}
			runs, shown := h.rerun(context.Background(), &c.f, maxReruns-1, time.Now().Add(time.Hour))
			if runs != maxReruns-1 || shown != runs || calls != runs {
				t.Errorf("%d replays (%d calls), %d showed it; want %d, all", runs, calls, shown, maxReruns-1)
			}
			if runs, _ := h.rerun(context.Background(), &c.f, maxReruns-1, time.Time{}); runs != 0 {
				t.Errorf("%d replays started past their time", runs)
			}
		})
	}
}

// Only the finding's own signature counts as a reproduction: another
// defect on a replay does not.
func TestReplayShowingAnotherDefectIsNoReproduction(t *testing.T) {
	h := &harness{}
	n := 0
	h.replay = func(context.Context, *Finding, bool) []problem {
		n++
		if n%2 == 0 {
			return []problem{{"response", "no-response", ""}}
		}
		return []problem{{"correlation", "unknown-id", ""}}
	}
	f := &Finding{Property: PropIDs, Layer: "response", Code: "no-response"}
	if runs, shown := h.rerun(context.Background(), f, 4, time.Now().Add(time.Hour)); runs != 4 || shown != 2 {
		t.Errorf("%d of %d, want 2 of 4", shown, runs)
	}
}

// Messages in flight together reach the server as the case's own bytes:
// on stdio one write holding every message and its newline, over HTTP the
// requests released together. The reference answers each, and the
// exchange finds nothing.
func TestTogetherExchangeOnTheReference(t *testing.T) {
	ctx := context.Background()
	msgs := [][]byte{
		jsonrpc.Request(jsonrpc.StringID("a"), "ping", nil),
		jsonrpc.Request(jsonrpc.IntID(2), "tools/list", nil),
		notification("notifications/x-mcpconform-fuzz", nil),
		jsonrpc.Request(jsonrpc.IntID(3), "ping", nil),
	}
	url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, tg := range []*target.Target{stdioTarget(), {URL: url, Timeout: 2 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}} {
		t.Run(tg.Transport(), func(t *testing.T) {
			h, err := newHarness(ctx, tg, catalog.LatestLegacy)
			if err != nil {
				t.Fatal(err)
			}
			defer h.close()
			mark := tg.Recorder.Seq()
			out := h.exchangeOn(ctx, msgs, xopts{together: true})
			if len(out.probs) > 0 || len(out.resp) != 3 {
				t.Fatalf("%d answers, problems %v\n%v", len(out.resp), out.probs, out.transcript)
			}
			if tg.Transport() != wire.Stdio {
				return
			}
			var writes [][]byte
			for _, f := range tg.Recorder.Since(mark, 0) {
				if f.Dir == wire.Out && f.Kind == wire.KindMessage && f.Conn == h.s.Conn().Name() {
					writes = append(writes, f.Raw)
				}
			}
			if len(writes) != 2 || !bytes.Equal(writes[0], joinLines(msgs)) { // the case, then the probe after the notification
				t.Errorf("writes %q, want the case in one write", writes)
			}
		})
	}
}
