package scenario

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Icons (the icons scenario, and the black-box server): the server and
// add_numbers carry icons of every kind, and the run sees which the
// client fetches. Clients MUST reject icon URIs of unsafe schemes
// (file:, ws:, javascript: …): a file: icon is a FIFO the harness holds
// open for writing (the open returns when a reader opens it: an event,
// no polling), a ws: icon is a path of the scenario server. A client that
// fetches none of them may simply not fetch icons, so an https: icon is
// the witness: a loopback listener where any connection means the client
// tried to fetch it (its TLS handshake fails: there is no certificate it
// trusts, and none is needed).

const (
	// IconPath prefixes the ws: icons' paths on the scenario server.
	IconPath = "/icons/"
	// IconFetchNote starts the note of an unsafe icon fetched;
	// IconWitnessNote of a connection to the https: icon's listener.
	IconFetchNote   = "the client fetched an icon whose URI scheme is unsafe"
	IconWitnessNote = "the client tried to fetch the https: icon"
)

// iconPNG is a 1×1 transparent PNG.
const iconPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"

// iconCanaries are one run's icon canaries.
type iconCanaries struct {
	dir      string       // holds the file: icons (FIFOs)
	witness  net.Listener // the https: icon's
	stopping atomic.Bool
	wg       sync.WaitGroup
	mu       sync.Mutex
	fifos    map[string]string // where → FIFO path
	note     func(string)
}

// startIcons starts the run's icon canaries.
func startIcons(note func(string)) (*iconCanaries, error) {
	dir, err := os.MkdirTemp("", "mcpconform-icons-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ic := &iconCanaries{dir: dir, witness: ln, fifos: map[string]string{}, note: note}
	ic.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			note(fmt.Sprintf("%s (a connection to its listener on %s)", IconWitnessNote, ln.Addr()))
			conn.Close()
		}
	})
	return ic, nil
}

// set returns the icons of where ("server", "tool"), making its file:
// canary on first use (a stdio run builds a server per server process).
func (ic *iconCanaries) set(r *Run, where string) []mcp.Icon {
	icons := []mcp.Icon{
		{Source: fmt.Sprintf("https://%s%s%s.png", ic.witness.Addr(), IconPath, where), MIMEType: "image/png"},
		{Source: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4DwAAAQEABRjYTgAAAABJRU5ErkJggg==", MIMEType: "image/png"},
		{Source: "ws" + strings.TrimPrefix(r.base, "http") + IconPath + where + "-ws.png", MIMEType: "image/png"},
		{Source: "javascript:alert(document.domain)", MIMEType: "image/png"},
	}
	if p, err := ic.fifo(where); err == nil {
		icons = append(icons, mcp.Icon{Source: "file://" + p, MIMEType: "image/png"})
	} else {
		r.note(fmt.Sprintf("no file: icon for %s: %v", where, err))
	}
	return icons
}

// fifo returns where's file: canary, made and awaited on first use.
func (ic *iconCanaries) fifo(where string) (string, error) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if p, ok := ic.fifos[where]; ok {
		return p, nil
	}
	p := filepath.Join(ic.dir, where+".png")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		return "", err
	}
	ic.fifos[where] = p
	ic.wg.Go(func() {
		// blocks until a reader opens the FIFO: the client, or stop
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		if ic.stopping.Load() {
			return
		}
		ic.note(fmt.Sprintf("%s: file:%s was opened for reading", IconFetchNote, p))
		_, _ = f.WriteString(iconPNG)
	})
	return p, nil
}

// stop ends the canaries: each FIFO nobody opened is opened here (which
// ends its writer's wait), and the files are removed.
func (ic *iconCanaries) stop() {
	ic.stopping.Store(true)
	ic.witness.Close()
	ic.mu.Lock()
	for _, p := range ic.fifos {
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		} else if !errors.Is(err, os.ErrNotExist) {
			ic.note(fmt.Sprintf("the file: icon %s could not be released: %v", p, err))
		}
	}
	ic.mu.Unlock()
	ic.wg.Wait()
	os.RemoveAll(ic.dir)
}

// iconCanary records every fetch of a ws: icon.
func (r *Run) iconCanary() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.note(fmt.Sprintf("%s: ws: %s %s", IconFetchNote, req.Method, req.URL.RequestURI()))
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte(iconPNG))
	})
}

// iconTool is add_numbers, with icons when the run has them.
func iconTool(r *Run) *mcp.Tool {
	t := &mcp.Tool{Name: "add_numbers", Description: "Adds two numbers"}
	if r.icons != nil {
		t.Icons = r.icons.set(r, "tool")
	}
	return t
}

// iconTools: add_numbers with icons (the server's own are in its
// Implementation: Scenario.server).
func iconTools(srv *mcp.Server, r *Run) { addNumbersAs(srv, iconTool(r), nil) }
