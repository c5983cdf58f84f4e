package conform

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/session"
)

// Caps on the requests the discovery of MRTR targets makes.
const (
	maxMRTRPrompts   = 20
	maxMRTRResources = 20
	maxMRTRTools     = 30
)

// MRTRTarget is a tools/call, prompts/get or resources/read request that
// the server answered with input_required (2026-07-28 multi round-trip
// requests) when the harness declared every client capability. The MRTR
// checks and the lifecycle checks of per-request client capabilities
// (LIFE-011, LIFE-012) share them.
type MRTRTarget struct {
	Method string
	Name   string         // tool or prompt name, resource uri
	Params map[string]any // the original params (no _meta)
	Source string         // where tool arguments came from ("config", "derived")
	Tool   json.RawMessage
	First  *session.Response
	// Interim is the first answer (input_required).
	Interim *session.Interim
}

// What names the request ("tools/call name").
func (tg *MRTRTarget) What() string { return tg.Method + " " + tg.Name }

// AsksFor reports whether the first interim asks for an input request of
// method m.
func (tg *MRTRTarget) AsksFor(m string) bool { return InterimAsks(tg.Interim, m) }

// InterimAsks reports whether an input_required result asks for an input
// request of method m.
func InterimAsks(in *session.Interim, m string) bool {
	for _, k := range in.Keys() {
		if in.RequestMethod(k) == m {
			return true
		}
	}
	return false
}

// discovery is what the probing of one revision found.
type mrtrDiscovery struct {
	targets []*MRTRTarget
	tried   []string // what was asked
	policy  []string // tools the call policy kept from being called
	noArgs  []string // tools without usable arguments
}

var mrtrDiscoveries = NewMemo[*mrtrDiscovery]("the MRTR target discovery")

// discoverMRTR finds the MRTR targets of the server (once per revision,
// transport and run, on the shared session).
func discoverMRTR(t *T) *mrtrDiscovery {
	return mrtrDiscoveries.Get(t, func() *mrtrDiscovery { return findMRTRTargets(t) })
}

// mrtrInFlight is how many of the discovery's requests are in flight at
// once: each is independent, and a slow server's answers overlap.
const mrtrInFlight = 8

func findMRTRTargets(t *T) *mrtrDiscovery {
	d := &mrtrDiscovery{}
	s := t.Shared()
	type probe struct {
		method, name string
		params       map[string]any
		tool         json.RawMessage
		source       string
	}
	var probes []probe
	if Declared(s, "prompts") {
		w := t.Listing(s, "prompts/list")
		for i, p := range w.Items {
			name := ItemKey(p, "name")
			if name == "" || i >= maxMRTRPrompts {
				continue
			}
			probes = append(probes, probe{method: "prompts/get", name: name, params: map[string]any{"name": name, "arguments": RequiredPromptArgs(p)}})
		}
	}
	if Declared(s, "resources") {
		w := t.Listing(s, "resources/list")
		for i, r := range w.Items {
			uri := ItemKey(r, "uri")
			if uri == "" || i >= maxMRTRResources {
				continue
			}
			probes = append(probes, probe{method: "resources/read", name: uri, params: map[string]any{"uri": uri}})
		}
	}
	if Declared(s, "tools") {
		w := t.Listing(s, "tools/list")
		called := 0
		for _, tool := range w.Items {
			name := ItemKey(tool, "name")
			if name == "" {
				continue
			}
			if ok, why := t.MayCall(tool); !ok {
				d.policy = append(d.policy, why)
				continue
			}
			args, source, ok := t.PacedArgs(tool, QuickWork)
			if !ok {
				d.noArgs = append(d.noArgs, name)
				continue
			}
			if called == maxMRTRTools {
				break
			}
			called++
			probes = append(probes, probe{method: "tools/call", name: name, params: map[string]any{"name": name, "arguments": args}, tool: tool, source: source})
		}
	}
	// The requests go a few at a time; the targets keep the order asked.
	found := make([]*MRTRTarget, len(probes))
	var wg sync.WaitGroup
	slots := make(chan struct{}, mrtrInFlight)
	for i, p := range probes {
		d.tried = append(d.tried, p.method+" "+p.name)
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			resp, err := s.CallMRTR(t.Ctx, p.method, p.params, session.AllClientCapabilities(), session.Retry{}, 0)
			if err != nil {
				return
			}
			if in, ok := session.ParseInterim(resp); ok {
				found[i] = &MRTRTarget{Method: p.method, Name: p.name, Params: p.params, Tool: p.tool, Source: p.source, First: resp, Interim: in}
			}
		}()
	}
	wg.Wait()
	for _, tg := range found {
		if tg != nil {
			d.targets = append(d.targets, tg)
		}
	}
	return d
}

// MRTRTargets returns the server's MRTR targets (found once per revision,
// transport and run) or ends the check NA with a reason that tells the user
// how to name an MRTR tool.
func MRTRTargets(t *T) []*MRTRTarget {
	d := discoverMRTR(t)
	if len(d.targets) > 0 {
		return d.targets
	}
	why := fmt.Sprintf("no tools/call, prompts/get or resources/read request was answered input_required by a client declaring elicitation, sampling and roots (%d asked)", len(d.tried))
	if len(d.policy) > 0 {
		why += fmt.Sprintf("; %d tools were not called: %s", len(d.policy), d.policy[0])
		if len(d.policy) > 1 {
			why += " (and others)"
		}
	}
	if len(d.noArgs) > 0 {
		why += fmt.Sprintf("; no arguments could be derived for %s", strings.Join(d.noArgs, ", "))
	}
	why += ". To check a tool that asks for input, allow it (--call-tools all, or call_tools in --config) and give its arguments under sample_arguments in --config"
	if len(d.policy) > 0 && strings.HasPrefix(d.policy[0], "tool ") {
		t.PolicyNA("%s", why)
	}
	t.NA("%s", why)
	return nil
}
