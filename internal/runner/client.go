package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// ClientRevisions are the revisions a client run covers unless told: the
// newest of each era (the official harness's two requirement sets).
var ClientRevisions = []catalog.Revision{catalog.LatestLegacy, catalog.Modern}

// RunClient plays the scenario servers to the client under test
// (cfg.Client), at most cfg.Parallel at a time, then runs the client
// checks on the recorded traffic and returns the report (issue 32).
// cfg.Target is not used: the report's target is the client.
func RunClient(cfg Config, client scenario.Client) (*Outcome, error) {
	ginkgoOnce.Lock()
	defer ginkgoOnce.Unlock()
	if cfg.Budget <= 0 {
		cfg.Budget = 10 * time.Minute
	}
	if cfg.Describe == "" {
		cfg.Describe = "mcpconform client"
	}
	started := time.Now()
	revs := cfg.Revisions
	if len(revs) == 0 {
		revs = ClientRevisions
	}
	rec := wire.NewRecorder(wire.NewRedactor())
	env := &conform.Env{Target: &target.Target{Recorder: rec, Timeout: client.Timeout}, Revisions: revs, Strict: cfg.Strict}
	sigCtx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(sigCtx, cfg.Budget)
	env.Client = conform.PlayClient(ctx, env, client, max(cfg.Parallel, 1))
	cancel()
	interruptedEarly := sigCtx.Err() != nil
	stopSignals()

	rep := &result.Report{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "mcpconform", Version: cfg.Version},
		Target:        clientTarget(client),
		StartedAt:     started,
	}
	for _, r := range revs {
		rep.Revisions = append(rep.Revisions, string(r))
		rep.Eras = append(rep.Eras, result.Era{Revision: string(r)})
	}
	rep.Revision = string(revs[0])
	rep.ServerInfo = clientInfo(rec)
	for _, r := range revs {
		for _, run := range env.Client.Runs[r] {
			rep.Detection = append(rep.Detection, runLine(run))
		}
	}
	var out Outcome
	err := runSpecs(cfg, env, cfg.LabelFilter, func(types.Report) {}, func(gr ginkgo.Report) {
		rep.Results = resultsOf(gr, started)
		result.CiteTolerances(rep.Results)
		result.SortResults(rep.Results)
		rep.Summary = result.Summarize(rep.Results, cfg.Strict)
		if rep.Summary.Hollow {
			rep.Summary.HollowReason = strings.ReplaceAll(rep.Summary.HollowReason, "the server", "the client") +
				" (how each scenario's client process ended is in the detection lines)"
		}
		if cfg.Baseline != nil {
			rep.ApplyBaseline(cfg.Baseline, cfg.BaselineFile)
		}
		rep.DurationMs = time.Since(started).Milliseconds()
		rep.Interrupted = interruptedEarly || interrupted(gr)
		validReport(rep)
		out.Report = rep
	})
	if err != nil {
		return nil, err
	}
	if out.Report == nil {
		return nil, errors.New("the run ended without a report")
	}
	return &out, nil
}

// clientInfo is the first clientInfo the client sent (initialize's, or a
// 2026-07-28 request's _meta): the report's identity of what it checked.
func clientInfo(rec *wire.Recorder) json.RawMessage {
	for _, f := range rec.Since(0, 0) {
		if f.Dir != wire.In || f.Kind != wire.KindMessage {
			continue
		}
		var m struct {
			Params struct {
				ClientInfo json.RawMessage            `json:"clientInfo"`
				Meta       map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Raw, &m) != nil {
			continue
		}
		for _, info := range []json.RawMessage{m.Params.ClientInfo, m.Params.Meta["io.modelcontextprotocol/clientInfo"]} {
			var o map[string]json.RawMessage
			if json.Unmarshal(info, &o) == nil && o != nil {
				return validUTF8(rec.Redactor().Bytes(info))
			}
		}
	}
	return nil
}

// clientTarget describes the client under test for the report.
func clientTarget(c scenario.Client) result.Target {
	t := result.Target{Role: "client", Transport: c.Transport, Command: c.Argv}
	for _, e := range c.Env {
		name, _, _ := strings.Cut(e, "=")
		t.Env = append(t.Env, name)
	}
	return t
}

// runLine says what one scenario run did, for the report's detection
// notes.
func runLine(r *scenario.Run) string {
	s := "scenario " + r.Scenario.Name + " (" + string(r.Revision) + "): "
	switch {
	case r.Err != nil:
		return s + r.Err.Error()
	case r.Stopped:
		return s + "the client was stopped at the deadline"
	case r.Exit != 0:
		return s + "the client exited with status " + itoa(r.Exit)
	}
	return s + "the client exited with status 0"
}

func itoa(n int) string { return strconv.Itoa(n) }
