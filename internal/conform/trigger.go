package conform

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
	trig "github.com/mcpconform/mcpconform/internal/trigger"
)

// Trigger is the user's way to change the server's catalog at run time
// (config catalog_change; trig.Trigger).
type Trigger = trig.Trigger

// TriggerKeyHelp tells the user how to enable the checks that need a
// catalog change.
const TriggerKeyHelp = "needs a catalog change: name one in the config file (catalog_change: {tool: NAME, arguments: {...}, restore: {...}} or {command: [PROGRAM, ARGS...]}; CONFIG.md)"

// triggerTimeout bounds a command trigger.
const triggerTimeout = 30 * time.Second

var (
	triggerMu sync.Mutex
	trigger   *Trigger
)

// SetCatalogTrigger installs the run's catalog_change trigger (nil: none).
func SetCatalogTrigger(t *Trigger) {
	triggerMu.Lock()
	trigger = t
	triggerMu.Unlock()
}

// CatalogTrigger returns the run's trigger (nil when none was configured).
func CatalogTrigger() *Trigger {
	triggerMu.Lock()
	defer triggerMu.Unlock()
	return trigger
}

// NeedTrigger returns the run's trigger, or ends the check as NA saying
// which config key enables it.
func (t *T) NeedTrigger() *Trigger {
	tr := CatalogTrigger()
	if tr == nil {
		t.NA("%s", TriggerKeyHelp)
	}
	return tr
}

// FireTrigger performs the catalog change on s (a tool call) or runs the
// command. A command that fails is a harness problem (ERROR); a trigger
// tool the server did not run successfully makes the check NA (the
// server's answers to tools/call are judged by the tools checks): a check
// cannot judge a change that was not made.
func (t *T) FireTrigger(s *session.Session, tr *Trigger) {
	if tr.Tool == "" {
		// A command changes what every process of the server shows (a
		// file, a database it reads), on stdio too.
		t.aloneEverywhere()
	} else {
		t.Alone()
	}
	if err := t.runTrigger(s, tr); err != nil {
		if tr.Tool != "" {
			t.NA("the catalog_change trigger (%s) did not succeed, so there is no change to judge: %v", tr.Describe(), err)
		}
		t.Error("catalog_change trigger (%s) failed: %v", tr.Describe(), err)
	}
}

// RestoreCatalog runs the trigger's restore step, if any, on s. Its
// failure is noted, not judged (the check's verdict stands).
func (t *T) RestoreCatalog(s *session.Session, tr *Trigger) {
	if tr == nil || tr.Restore == nil {
		return
	}
	if err := t.runTrigger(s, tr.Restore); err != nil {
		t.Note("the catalog_change restore step (%s) failed: %v", tr.Restore.Describe(), err)
	}
}

func (t *T) runTrigger(s *session.Session, tr *Trigger) error {
	defer t.Env.catalogGen.Add(1) // the lists may have changed: T.Listing walks again
	if tr.Tool != "" {
		resp, err := t.TryCall(s, "tools/call", map[string]any{"name": tr.Tool, "arguments": tr.Arguments}, nil)
		if err != nil {
			return err
		}
		if !resp.IsResult() {
			return fmt.Errorf("tools/call %s: %s", tr.Tool, resp.Describe())
		}
		var res struct {
			IsError bool `json:"isError"`
		}
		if resp.Result(&res) == nil && res.IsError {
			return fmt.Errorf("tools/call %s reported an error: %s", tr.Tool, resp.Describe())
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(t.Ctx, triggerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tr.Command[0], tr.Command[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v; output: %s", err, Clip(out.Bytes()))
	}
	return nil
}
