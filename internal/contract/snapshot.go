package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/inspect"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Options configure Snapshot.
type Options struct {
	// Target is the server.
	Target *target.Target
	// MaxPages caps each list walk (0: inspect's default).
	MaxPages int
	// Profiles are credential profiles besides "default" (the target's
	// own credential): name → bearer token, each snapshotted as a profile
	// of its own (HTTP only).
	Profiles map[string]string
	// Generator is written into the file ("mcpconform VERSION").
	Generator string
}

// altClient is the name the variance probe introduces itself with.
const altClient = "mcpconform-variance-probe"

// Snapshot takes the server's declared surface for every revision it
// supports (each revision asked for on a connection of its own, side by
// side) and every profile, and probes its stability on the newest one:
// two listings in one session, and a session whose client has another
// name.
func Snapshot(ctx context.Context, o Options) (*File, error) {
	tg := o.Target
	if tg == nil {
		return nil, errors.New("contract: no target")
	}
	if err := tg.Validate(); err != nil {
		return nil, err
	}
	if tg.Recorder == nil {
		tg.Recorder = wire.NewRecorder(wire.NewRedactor())
	}
	red := tg.Recorder.Redactor()
	tg.RegisterSecrets()
	for _, b := range o.Profiles {
		red.AddSecret(b)
	}
	if len(o.Profiles) > 0 && tg.URL == "" {
		return nil, errors.New("credential profiles need an HTTP target")
	}
	f := &File{Generator: o.Generator, Sections: map[string]map[string]map[string]any{}}
	profiles := []string{"default"}
	for p := range o.Profiles {
		profiles = append(profiles, p)
	}
	slices.SortFunc(profiles, profileOrder)

	type got struct {
		rev, prof string
		in        *inspect.Inspection
		note      string
	}
	var (
		mu  sync.Mutex
		all []got
		wg  sync.WaitGroup
	)
	for _, prof := range profiles {
		for _, rev := range catalog.AllRevisions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in, note := inspectRevision(ctx, tg, rev, prof, o)
				mu.Lock()
				all = append(all, got{string(rev), prof, in, note})
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	slices.SortFunc(all, func(a, b got) int {
		if c := revisionOrder(a.rev, b.rev); c != 0 {
			return c
		}
		return profileOrder(a.prof, b.prof)
	})
	var newest *inspect.Inspection
	for _, g := range all {
		if g.note != "" {
			f.Notes = append(f.Notes, red.String(g.note))
		}
		if g.in == nil {
			continue
		}
		sec, notes := section(g.in)
		sec = redactTree(sec, red.String).(map[string]any)
		for _, n := range notes {
			f.Notes = append(f.Notes, fmt.Sprintf("%s/%s: %s", g.rev, g.prof, red.String(n)))
		}
		for _, n := range g.in.Notes {
			f.Notes = append(f.Notes, fmt.Sprintf("%s/%s: %s", g.rev, g.prof, red.String(n)))
		}
		if f.Sections[g.rev] == nil {
			f.Sections[g.rev] = map[string]map[string]any{}
		}
		f.Sections[g.rev][g.prof] = sec
		if newest == nil && g.prof == "default" {
			newest = g.in
		} else {
			g.in.Close()
		}
	}
	if newest == nil {
		return nil, fmt.Errorf("the server answered no revision: %s", red.String(fmt.Sprint(f.Notes)))
	}
	f.Stability = stability(ctx, tg, newest, o)
	newest.Close()
	return f, nil
}

// inspectRevision opens rev for the profile and discovers on it; nil with
// a note when the server does not support rev.
func inspectRevision(ctx context.Context, tg *target.Target, rev catalog.Revision, prof string, o Options) (*inspect.Inspection, string) {
	s, err := open(ctx, tg, rev, prof, o, "")
	if err != nil {
		return nil, fmt.Sprintf("%s/%s: not supported: %v", rev, prof, err)
	}
	if msg := supports(s, rev); msg != "" {
		s.Close()
		return nil, fmt.Sprintf("%s/%s: not supported: %s", rev, prof, msg)
	}
	in, err := inspect.Inspect(ctx, inspect.Options{Target: tg, Session: s, MaxPages: o.MaxPages, Policy: "none"})
	if err != nil {
		s.Close()
		return nil, fmt.Sprintf("%s/%s: %v", rev, prof, err)
	}
	return in, ""
}

// open opens a session for rev as the profile (client: another client
// name, "" for the harness's own) and performs the handshake.
func open(ctx context.Context, tg *target.Target, rev catalog.Revision, prof string, o Options, client string) (*session.Session, error) {
	var s *session.Session
	var err error
	if prof == "default" {
		s, err = tg.Session(rev)
	} else {
		s, err = tg.SessionWith(rev, o.Profiles[prof], "profile-"+prof)
	}
	if err != nil {
		return nil, err
	}
	if client != "" {
		s.SetClientName(client)
	}
	return tg.Handshake(ctx, s, rev)
}

// supports: "" when the session speaks rev, else why not.
func supports(s *session.Session, rev catalog.Revision) string {
	if rev.IsLegacy() {
		if got := s.Revision(); got != rev {
			return fmt.Sprintf("initialize(%s) negotiated %s", rev, got)
		}
		return ""
	}
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if err := jsonUnmarshal(s.DiscoverResult(), &res); err != nil || !slices.Contains(res.SupportedVersions, string(rev)) {
		return fmt.Sprintf("server/discover does not list %s", rev)
	}
	return ""
}

// redactTree replaces the secrets in every string (keys included) of a
// surface: a server that echoes a token into a description does not put
// it into a file committed beside it.
func redactTree(v any, redact func(string) string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redact(k)] = redactTree(e, redact)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactTree(e, redact)
		}
		return out
	case string:
		return redact(x)
	}
	return v
}
