package scenario

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Client is the client under test: how to start it.
type Client struct {
	// Argv is its command; "{url}" in an argument is the scenario's URL
	// (HTTP; without it the URL is appended as the last argument, as the
	// official harness does), "{server}" the argv words of a command
	// that starts the scenario server over stdio (stdio; required).
	Argv []string
	// Transport is wire.HTTP or wire.Stdio.
	Transport string
	// Env is added to the client's environment.
	Env []string
	// Timeout bounds one scenario: the client is stopped (its process
	// group: SIGTERM, then SIGKILL) when it has not ended by then.
	Timeout time.Duration
	// Relay is the command whose argv words "{server}" expands to, before
	// its --connect and --token flags: mcpconform's own scenario-relay.
	Relay []string
	// BlackBox plays the one scenario with every feature (a host with no
	// per-scenario adapter) instead of the official harness's scenarios.
	BlackBox bool
	// Scenarios are glob patterns (path.Match) of the scenarios to play
	// (none: all).
	Scenarios []string
}

// Plays reports whether the client's scenario selection includes s.
func (c Client) Plays(s *Scenario) bool {
	if len(c.Scenarios) == 0 {
		return true
	}
	for _, p := range c.Scenarios {
		if ok, _ := path.Match(p, s.Name); ok {
			return true
		}
	}
	return false
}

// CheckPatterns reports a pattern of the selection that is malformed or
// matches no scenario ("" and nil: all good).
func CheckPatterns(patterns []string) (string, error) {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return p, err
		}
		if !slices.ContainsFunc(All, func(s *Scenario) bool { ok, _ := path.Match(p, s.Name); return ok }) {
			var names []string
			for _, s := range All {
				names = append(names, s.Name)
			}
			return p, fmt.Errorf("it names no scenario (the scenarios: %s)", strings.Join(names, ", "))
		}
	}
	return "", nil
}

// Placeholders in Client.Argv.
const (
	URLPlaceholder    = "{url}"
	ServerPlaceholder = "{server}"
)

// Run is one scenario played to the client: its traffic is the frames
// of the recorder on connections named Conn (Conn, Conn#2 … over stdio,
// one per server process the client started) between From and To.
type Run struct {
	Scenario  *Scenario
	Revision  catalog.Revision
	Transport string
	Conn      string
	From, To  int64
	// Exit is the client's exit status (-1: it was stopped at the
	// deadline, or did not start: Err); Stopped: it was stopped.
	Exit    int
	Stopped bool
	// Stderr is the end of what the client wrote to stderr.
	Stderr string
	// Err is the harness's own failure (the client could not start).
	Err error
	// Conns are the connections the client opened (stdio: one per
	// server process it started).
	Conns []string

	// Auth is what an authorization scenario served (nil: none);
	// AuthConn the connection the MCP server's side of its authorization
	// is recorded on (the requests that got 401, the resource metadata
	// fetched), ASConn the authorization server's exchanges.
	Auth             *AuthRun
	AuthConn, ASConn string
	// AS2Conn: the second authorization server's exchanges (Auth.Migrate;
	// "": none).
	AS2Conn string

	rec      *wire.Recorder
	exchange atomic.Int64
	// junkDue: the next message the scenario server writes to the client
	// is preceded by the scenario's junk (Scenario.junk; hostile.go).
	junkDue atomic.Bool
	// rejected: the scenario's simulated -32022 went out (rejectFirst).
	rejected atomic.Bool
	// clientGone closes when the client's process ended: the scenario
	// server's own waits for it end then too (awaitClient).
	clientGone chan struct{}
	// base is the scenario server's http://127.0.0.1:PORT (both
	// transports: the canary is served there).
	base string
	// mark is the run's user agent's BrowserHeader value (browser.go).
	mark string
	// icons are the file: icon canaries of the scenario server (icons.go;
	// nil: none).
	icons *iconCanaries
	mu    sync.Mutex
}

// awaitClient bounds a scenario server's wait for the client's answer to
// its own request: serverRequestWait, or until the client's process ended
// (a client that died answers nothing, and its run need not wait).
func (r *Run) awaitClient(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, serverRequestWait)
	go func() {
		select {
		case <-r.clientGone:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// note records a harness annotation in the run's transcript.
func (r *Run) note(text string) { r.rec.Note(r.Conn, text) }

// Play runs scenario s to the client in revision rev, recording into rec.
func Play(ctx context.Context, rec *wire.Recorder, c Client, s *Scenario, rev catalog.Revision) *Run {
	r := &Run{Scenario: s, Revision: rev, Transport: c.Transport, rec: rec, Exit: -1,
		Conn: fmt.Sprintf("client/%s/%s", s.Name, rev), clientGone: make(chan struct{}), mark: randomToken()}
	r.From = rec.Seq()
	defer func() { r.To = rec.Seq() }()
	defer func() {
		if p := recover(); p != nil { // a scenario server that could not be built
			r.Err = fmt.Errorf("the scenario server failed: %v", p)
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.Err = err
		return r
	}
	defer ln.Close()
	r.base = "http://" + ln.Addr().String()
	if s.icons {
		if r.icons, err = startIcons(r.note); err != nil {
			r.Err = fmt.Errorf("the icon canaries: %w", err)
			return r
		}
		defer r.icons.stop()
	}
	var argv []string
	var stop func()
	if c.Transport == wire.HTTP {
		argv, stop = r.serveHTTP(ln, c, s, rev)
	} else {
		// the canary of a schema's network $ref is served over HTTP
		// whatever the client's transport
		stopCanary, err := r.serveCanary()
		if err != nil {
			r.Err = err
			return r
		}
		defer stopCanary()
		argv, stop, err = r.serveStdio(ln, c, s, rev)
		if err != nil {
			r.Err = err
			return r
		}
	}
	r.Conns = append(r.Conns, r.Conn)
	env := append(os.Environ(),
		"MCP_CONFORMANCE_SCENARIO="+s.Client,
		"MCP_CONFORMANCE_PROTOCOL_VERSION="+string(rev))
	if s.context != "" {
		env = append(env, "MCP_CONFORMANCE_CONTEXT="+s.context)
	}
	env = append(env, c.Env...)
	// the harness's browser comes last: a client that opens one during a
	// run opens the harness's (browser.go)
	ua, err := startUserAgent(r.note, r.mark)
	if err != nil {
		stop()
		r.Err = fmt.Errorf("the user agent: %w", err)
		return r
	}
	env = append(env, ua.env())
	r.runClient(ctx, argv, env, c.Timeout)
	close(r.clientGone)
	ua.stop()
	stop()
	return r
}

// serveHTTP serves the scenario on ln and returns the client's argv.
func (r *Run) serveHTTP(ln net.Listener, c Client, s *Scenario, rev catalog.Revision) ([]string, func()) {
	srv := s.server(rev, r)
	get := func(*http.Request) *mcp.Server { return srv }
	var h http.Handler = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: !rev.IsLegacy()})
	h = r.eraGate(rev, h)
	if s.expire {
		h = r.expire(h)
	}
	if s.reconnect {
		h = r.reconnect(h)
	}
	if s.invalidTools {
		h = r.withInvalidTools(h)
	}
	if s.junk != nil {
		h = r.withJunk(h)
	}
	mux := http.NewServeMux()
	h = r.recordHTTP(h)
	stopAuth := func() {}
	if s.auth != nil {
		var err error
		if h, stopAuth, err = r.serveAuth(s.auth, mux, h); err != nil {
			panic(err) // Play reports it as the scenario server's failure
		}
	}
	mux.Handle("/mcp", h)
	r.canaries(mux)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	url := r.base + "/mcp"
	r.note("the scenario server listens on " + url)
	return expand(c.Argv, URLPlaceholder, []string{url}, true), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		_ = hs.Close()
		stopAuth()
	}
}

// canaries serves, beside the MCP endpoint, the URLs the scenario
// servers hand the client that the client must not fetch itself: the
// $ref canary, the URL-mode elicitation's page, the ws: icons.
func (r *Run) canaries(mux *http.ServeMux) {
	mux.Handle(CanaryPath, r.canary())
	mux.Handle(ElicitURLPath, r.elicitPage())
	mux.Handle(IconPath, r.iconCanary())
}

// serveCanary serves the canaries on a loopback HTTP listener of its
// own (a stdio run's scenario server has none) and sets r.base to it.
func (r *Run) serveCanary() (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.base = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	r.canaries(mux)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return func() { _ = hs.Close() }, nil
}

// serveStdio accepts the relays the client starts on ln, one scenario
// server per relay, and returns the client's argv.
func (r *Run) serveStdio(ln net.Listener, c Client, s *Scenario, rev catalog.Revision) ([]string, func(), error) {
	if !containsPlaceholder(c.Argv, ServerPlaceholder) {
		return nil, nil, fmt.Errorf("a stdio client is given the scenario server's command through a %s argument, and the command has none", ServerPlaceholder)
	}
	token := randomToken()
	words := append(append([]string{}, c.Relay...), "--connect", ln.Addr().String(), "--token", token)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 1; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				r.serveRelay(ctx, conn, token, n, s, rev)
			}()
		}
	}()
	return expand(c.Argv, ServerPlaceholder, words, false), func() {
		cancel()
		_ = ln.Close()
		wg.Wait()
	}, nil
}

// serveRelay serves one scenario server on a relay's connection.
func (r *Run) serveRelay(ctx context.Context, conn net.Conn, token string, n int, s *Scenario, rev catalog.Revision) {
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line := make([]byte, len(token)+1)
	if _, err := io.ReadFull(conn, line); err != nil || string(line) != token+"\n" {
		return // not our relay
	}
	_ = conn.SetReadDeadline(time.Time{})
	name := r.Conn
	if n > 1 {
		name = fmt.Sprintf("%s#%d", r.Conn, n)
		r.mu.Lock()
		r.Conns = append(r.Conns, name)
		r.mu.Unlock()
	}
	r.rec.Note(name, "the client started the scenario server (stdio)")
	in := &lineRecorder{run: r, conn: name, dir: wire.In}
	out := &lineRecorder{run: r, conn: name, dir: wire.Out}
	pr, pw := io.Pipe()
	reply := &lineWriter{w: io.MultiWriter(out, conn)}
	go func() {
		code := s.discoverError
		if code == 0 {
			code = -32601
		}
		err := recordLines(&lineGate{run: r, rev: rev, discoverCode: code, to: pw, reply: reply}, conn, in)
		_ = pw.CloseWithError(err)
	}()
	var sdkOut io.WriteCloser = &sdkLines{out: reply}
	if s.junk != nil {
		sdkOut = &junkLines{run: r, next: sdkOut, out: reply}
	}
	t := &mcp.IOTransport{Reader: pr, Writer: sdkOut, MaxLineLength: maxMessage}
	srv := s.server(rev, r)
	ss, err := srv.Connect(ctx, t, nil)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = ss.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = ss.Close()
	}
	r.rec.Record(wire.Frame{Conn: name, Dir: wire.In, Kind: wire.KindClosed, Note: "the client closed the scenario server's stdin"})
}

// expire ends the first session in which the client calls a tool: that
// request and every later one naming the session get HTTP 404 (a new
// session lives on).
func (r *Run) expire(next http.Handler) http.Handler {
	var mu sync.Mutex
	ended := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sid := req.Header.Get("Mcp-Session-Id")
		if sid != "" {
			mu.Lock()
			gone := ended[sid]
			if !gone && len(ended) == 0 && req.Method == http.MethodPost && methodOf(req) == "tools/call" {
				ended[sid], gone = true, true
				r.note("the scenario server ends the session " + sid + " (HTTP 404 from now on)")
			}
			mu.Unlock()
			if gone {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
}

// peekBody reads a request's body and leaves it readable.
func peekBody(req *http.Request) []byte {
	body, _ := io.ReadAll(io.LimitReader(req.Body, maxMessage))
	req.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// methodOf peeks at a POST's JSON-RPC method (the body stays readable).
func methodOf(req *http.Request) string {
	body := peekBody(req)
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Method
}

// runClient starts the client and waits for it to end, at most timeout.
func (r *Run) runClient(ctx context.Context, argv, env []string, timeout time.Duration) {
	if len(argv) == 0 {
		r.Err = errors.New("no client command")
		return
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr capped
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	r.note("start the client: " + strings.Join(argv, " "))
	if err := cmd.Start(); err != nil {
		r.Err = fmt.Errorf("could not start the client: %w", err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	var err error
	select {
	case err = <-done:
	case <-tm.C:
		r.Stopped = true
		r.note(fmt.Sprintf("the client had not ended within %s: SIGTERM to its process group", timeout))
		err = stopGroup(cmd, done)
	case <-ctx.Done():
		r.Stopped = true
		err = stopGroup(cmd, done)
	}
	// what the client left behind in its group
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r.Exit = cmd.ProcessState.ExitCode()
	if r.Stopped {
		r.Exit = -1
	}
	r.Stderr = stderr.String()
	if err != nil && !r.Stopped {
		r.note(fmt.Sprintf("the client ended: %v", err))
	} else if !r.Stopped {
		r.note("the client ended: exit status 0")
	}
}

// stopGroup ends the client's process group: SIGTERM, then SIGKILL.
func stopGroup(cmd *exec.Cmd, done chan error) error {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return <-done
}

// capped keeps the last 16 KiB written.
type capped struct {
	mu sync.Mutex
	b  []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b = append(c.b, p...)
	if len(c.b) > 16<<10 {
		c.b = c.b[len(c.b)-16<<10:]
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

// expand replaces placeholder in argv: an argument equal to it becomes
// words, one containing it has it replaced by the words joined with
// spaces; with no placeholder, words are appended when appendIfNone.
func expand(argv []string, placeholder string, words []string, appendIfNone bool) []string {
	var out []string
	found := false
	for _, a := range argv {
		switch {
		case a == placeholder:
			out = append(out, words...)
			found = true
		case strings.Contains(a, placeholder):
			out = append(out, strings.ReplaceAll(a, placeholder, shellJoin(words)))
			found = true
		default:
			out = append(out, a)
		}
	}
	if !found && appendIfNone {
		out = append(out, words...)
	}
	return out
}

func containsPlaceholder(argv []string, p string) bool {
	for _, a := range argv {
		if strings.Contains(a, p) {
			return true
		}
	}
	return false
}

// shellJoin quotes words for a shell command line (a placeholder inside
// a `sh -c` argument).
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
