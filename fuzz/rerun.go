package fuzz

import (
	"bytes"
	"context"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// Re-runs: how often a finding shows again. rapid re-runs a failure once
// before shrinking it; a defect that depends on timing (a request dropped
// only while another is in flight, responses crossed under concurrency)
// may not show on that one re-run, or show on it and not on the next. So
// every finding's case is replayed directly after rapid's search, to
// maxReruns re-runs with rapid's (search.go: a failure rapid could not
// reproduce within the campaign's budget, a shrunk one within the
// property's own time), and the finding records how many of its re-runs
// showed the same signature (Finding.Reruns, Reproduced): a finding that
// showed again at least once is confirmed and graded by its requirement's
// level, with that rate; only one that never showed again stays
// unconfirmed.
//
// A case whose messages put two requests in flight together (a state
// machine's burst step included) is replayed with its messages in one
// write on stdio, and its HTTP requests released together, so that they
// are in flight together whatever the scheduling (xopts.together).
//
// The replays wait on the exchange's own events like every case (the
// barrier after the case, the server's pace), never on a clock; they are
// bounded in number and never started past the time they are given.

// maxReruns bounds the re-runs of one failure: rapid's confirming re-run
// and the replays of the case after it.
const maxReruns = 5

// replayFunc replays a finding's case once and returns the problems it
// showed (together: its messages in flight together).
type replayFunc func(ctx context.Context, f *Finding, together bool) []problem

// rerun replays f's case up to n times and returns the replays run and
// how many showed f's signature again. A replay is not started once until
// has passed, nor when the longest replay so far would end past it (the
// first one excepted).
func (h *harness) rerun(ctx context.Context, f *Finding, n int, until time.Time) (runs, shown int) {
	replay := h.replay
	if replay == nil {
		replay = h.replayCase
	}
	together := concurrent(f)
	var longest time.Duration
	for runs < n && ctx.Err() == nil {
		now := time.Now()
		if !now.Before(until) || runs > 0 && now.Add(longest).After(until) {
			break
		}
		h.cases.Add(1)
		ps := replay(ctx, f, together)
		longest = max(longest, time.Since(now))
		runs++
		for _, p := range ps {
			if f.Property+"/"+p.Layer+"/"+p.Code == f.Signature() {
				shown++
				break
			}
		}
	}
	return runs, shown
}

// replayCase replays f's case on the campaign's target: a message
// property's messages on the harness's session (like rapid's re-runs:
// answers still due from the case's earlier runs are told apart by the
// exchange, see sent.earlier), a state machine's steps on a fresh
// connection.
func (h *harness) replayCase(ctx context.Context, f *Finding, together bool) []problem {
	if len(f.Steps) > 0 || f.Property == PropSeq { // no steps: the connection failed
		ps, err := h.replaySeq(ctx, f.Steps, together)
		if err != nil {
			return []problem{{"transport", "connect-failed", err.Error()}}
		}
		return ps
	}
	msgs := make([][]byte, 0, len(f.Messages))
	for _, m := range f.Messages {
		b, err := m.Bytes()
		if err != nil {
			return nil
		}
		msgs = append(msgs, b)
	}
	return h.exchangeOn(ctx, msgs, xopts{together: together}).probs
}

// concurrent reports whether f's case puts two or more requests in flight
// together (in one message case, or in one step of a state machine), or
// its defect is one only concurrency shows (responses crossed): such a
// case is replayed with its messages in flight together.
func concurrent(f *Finding) bool {
	if f.Code == "crossed-responses" {
		return true
	}
	if requests(f.Messages) > 1 {
		return true
	}
	for _, st := range f.Steps {
		if requests(st.Messages) > 1 {
			return true
		}
	}
	return false
}

// requests counts the requests (a method and a valid id) among msgs.
func requests(msgs []Raw) int {
	n := 0
	for _, r := range msgs {
		b, err := r.Bytes()
		if err != nil {
			continue
		}
		if m, err := jsonrpc.Decode(b); err == nil && m.Kind() == jsonrpc.KindRequest && m.ID.Valid() {
			n++
		}
	}
	return n
}

// joinLines is msgs as one stdio write: each message and its newline,
// the bytes the messages' own writes would have sent.
func joinLines(msgs [][]byte) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		b.Write(m)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
