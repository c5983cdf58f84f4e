package scenario

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The user agent: a client that authorizes like a desktop application
// opens the authorization URL in a browser ($BROWSER, which xdg-open and
// most openers honour) and waits for the redirect to its own loopback
// callback. Nobody sits at a browser during a run, so the client gets a
// $BROWSER of the harness: a script that hands the URL to the run (through
// a FIFO: an event, no polling), which follows it as a browser would, on
// loopback only. The scenario's authorization server answers /authorize
// with a redirect at once, so following the redirects is the whole of the
// user's part.

const (
	browserRedirects = 10               // redirects followed per URL
	browserTimeout   = 10 * time.Second // per URL, redirects included
	browserURLBytes  = 64 << 10         // a longer line is not a URL to follow
	browserBodyBytes = 1 << 20          // read of each page, then dropped
)

// userAgent is the run's stand-in browser.
type userAgent struct {
	dir    string // holds the script and the FIFO
	script string // the $BROWSER the client gets
	fifo   *os.File
	done   chan struct{}
	wg     sync.WaitGroup
	note   func(string)
	// mark is the value of the BrowserHeader on every request it sends:
	// a page the harness serves tells the user's browser from the client
	// fetching it itself.
	mark string
}

// BrowserHeader marks the requests of the run's user agent.
const BrowserHeader = "X-Mcpconform-Browser"

// startUserAgent makes the $BROWSER script and starts following the URLs
// it is handed; note records what it did in the run's transcript.
func startUserAgent(note func(string), mark string) (*userAgent, error) {
	dir, err := os.MkdirTemp("", "mcpconform-browser-")
	if err != nil {
		return nil, err
	}
	fifo := filepath.Join(dir, "urls")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// read-write: the harness holds a writer too, so a writer's open never
	// blocks and the reader sees no end of file between two clients' URLs
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	script := filepath.Join(dir, "browser")
	body := "#!/bin/sh\n# mcpconform's browser for the client under test: the URL goes to the run,\n" +
		"# which follows it on loopback only (internal/scenario/browser.go)\n" +
		"printf '%s\\n' \"$1\" > " + shellQuote(fifo) + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		f.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	ua := &userAgent{dir: dir, script: script, fifo: f, done: make(chan struct{}), note: note, mark: mark}
	ua.wg.Add(1)
	go ua.serve()
	return ua, nil
}

// env is the client's environment entry.
func (ua *userAgent) env() string { return "BROWSER=" + ua.script }

// serve follows each URL the script hands over until stop.
func (ua *userAgent) serve() {
	defer ua.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-ua.done; cancel() }()
	sc := bufio.NewScanner(ua.fifo)
	sc.Buffer(make([]byte, 0, 4096), browserURLBytes)
	for sc.Scan() {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		ua.note(fmt.Sprintf("the client opened a browser (BROWSER): %s", ua.follow(ctx, raw)))
	}
}

// follow GETs raw and its redirects, loopback only, and says what came of
// it.
func (ua *userAgent) follow(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Sprintf("%q is not an http(s) URL: not followed", clipURL(raw))
	}
	if !loopbackHost(u.Hostname()) {
		return fmt.Sprintf("%s is not on loopback: not followed (the harness never leaves this machine)", clipURL(raw))
	}
	var hops []string
	client := &http.Client{
		Timeout: browserTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > browserRedirects {
				return fmt.Errorf("more than %d redirects", browserRedirects)
			}
			if !loopbackHost(req.URL.Hostname()) {
				return fmt.Errorf("a redirect to %s, not on loopback: not followed", clipURL(req.URL.String()))
			}
			hops = append(hops, clipURL(req.URL.String()))
			return nil
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return fmt.Sprintf("%s: %v", clipURL(raw), err)
	}
	req.Header.Set(BrowserHeader, ua.mark)
	resp, err := client.Do(req)
	what := "followed " + clipURL(raw)
	if len(hops) > 0 {
		what += " → " + strings.Join(hops, " → ")
	}
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Sprintf("%s: %v", what, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, browserBodyBytes))
	resp.Body.Close()
	return fmt.Sprintf("%s: HTTP %d", what, resp.StatusCode)
}

// stop ends the user agent (a URL being followed is abandoned) and removes
// its files.
func (ua *userAgent) stop() {
	close(ua.done)
	ua.fifo.Close() // ends the scan
	ua.wg.Wait()
	os.RemoveAll(ua.dir)
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clipURL shortens a URL for a note: the query of an authorization
// request is long, and its state and challenge say nothing to a reader.
func clipURL(s string) string {
	const max = 160
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
