package conform

import (
	"context"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The client half (issue 32): in `mcpconform client` the runner plays the
// scenario servers to the client under test before the specs run
// (ClientRuns), and the client areas' checks (ClientArea) judge the
// recorded traffic through the same T, grader and reports as the server
// checks. A run is either a server run or a client run: the server areas
// register nothing in a client run, the client areas nothing in a server
// run.

// ClientRuns are the scenario runs of a client run, by revision.
type ClientRuns struct {
	// Transport is the client's transport (wire.HTTP or wire.Stdio).
	Transport string
	// Client is how the client under test is started (reports).
	Client scenario.Client
	// Runs holds the scenarios played, by revision, in play order.
	Runs map[catalog.Revision][]*scenario.Run
}

// Transport is the transport the run's checks apply to: the target's, or
// in a client run the client's.
func (e *Env) Transport() string {
	if e.Client != nil {
		return e.Client.Transport
	}
	return e.Target.Transport()
}

// ClientArea registers a client area's specs (see Area): in a client run
// only.
func ClientArea(area string, body func()) bool { return areaOf(area, body, true) }

// Runs returns the scenario runs of the check's revision whose scenario
// keep accepts (nil: all) and attaches their traffic to the check's
// transcript. With none played it ends the check NA (the scenario is not
// played in this revision or over this transport); a run the harness
// could not make (the client did not start) ends it ERROR.
func (t *T) Runs(keep func(*scenario.Scenario) bool) []*scenario.Run {
	cr := t.Env.Client
	if cr == nil {
		t.Error("not a client run")
	}
	var out []*scenario.Run
	for _, r := range cr.Runs[t.Rev] {
		if keep != nil && !keep(r.Scenario) {
			continue
		}
		if r.Err != nil {
			t.Error("scenario %s: %v", r.Scenario.Name, r.Err)
		}
		if !slices.Contains(t.runs, r) {
			t.runs = append(t.runs, r)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.NA("no scenario of this check is played in %s over %s", t.Rev, cr.Transport)
	}
	return out
}

// Judged records that the check judged the traffic of run r (one
// judgment of the report's count, Summary.Judgments): call it once the
// run showed what the requirement needs, whatever the finding.
func (t *T) Judged(r *scenario.Run) {
	name := r.Scenario.Name
	if !slices.Contains(t.out.Judged, name) {
		t.out.Judged = append(t.out.Judged, name)
	}
}

// attachRuns puts in the check's transcript the traffic of the scenario
// runs it judged (Judged) and of those its evidence is in; an ERROR keeps
// every run it looked at. A run it only looked at is left out: the report
// holds each run's traffic under the checks that judged it, not under all
// seventy.
func (t *T) attachRuns() {
	for _, r := range t.runs {
		keep := t.out.Verdict == ERROR || slices.Contains(t.out.Judged, r.Scenario.Name)
		for _, seq := range t.out.Evidence {
			keep = keep || seq > r.From && seq <= r.To
		}
		if !keep {
			continue
		}
		for _, conn := range r.Conns {
			t.attach(conn, r.From, r.To)
		}
		if r.Auth != nil {
			t.attach(r.AuthConn, r.From, r.To)
			t.attach(r.ASConn, r.From, r.To)
			if r.AS2Conn != "" {
				t.attach(r.AS2Conn, r.From, r.To)
			}
		}
	}
}

// ScenarioRun returns the run of the scenario named name (Runs).
func (t *T) ScenarioRun(name string) *scenario.Run {
	return t.Runs(func(s *scenario.Scenario) bool { return s.Name == name })[0]
}

// PlayClient plays every scenario of the run's revisions to the client,
// at most parallel at a time, and returns them (the runner sets Env.Client
// with them before the specs run).
func PlayClient(ctx context.Context, env *Env, c scenario.Client, parallel int) *ClientRuns {
	cr := &ClientRuns{Transport: c.Transport, Client: c, Runs: map[catalog.Revision][]*scenario.Run{}}
	type job struct {
		rev catalog.Revision
		s   *scenario.Scenario
		i   int
	}
	var jobs []job
	for _, rev := range env.Revisions {
		ss := slices.DeleteFunc(scenario.For(rev, c.Transport, c.BlackBox), func(s *scenario.Scenario) bool { return !c.Plays(s) })
		cr.Runs[rev] = make([]*scenario.Run, len(ss))
		for i, s := range ss {
			jobs = append(jobs, job{rev, s, i})
		}
	}
	// the scenarios that wait by design (the SSE retry) first, so that
	// the others run beside them rather than after them
	slices.SortStableFunc(jobs, func(a, b job) int {
		switch {
		case a.s.Waits() == b.s.Waits():
			return 0
		case a.s.Waits():
			return -1
		}
		return 1
	})
	queue := make(chan job, len(jobs))
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	var wg sync.WaitGroup
	for range min(max(parallel, 1), len(jobs)) {
		wg.Go(func() {
			for j := range queue {
				cr.Runs[j.rev][j.i] = scenario.Play(ctx, env.Recorder(), c, j.s, j.rev)
			}
		})
	}
	wg.Wait()
	return cr
}
