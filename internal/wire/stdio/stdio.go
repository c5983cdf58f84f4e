// Package stdio launches a server process and speaks newline-delimited
// JSON-RPC over its stdin and stdout, as the MCP stdio transport says.
package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// Options configure a launched server.
type Options struct {
	// Command is the program and its arguments.
	Command []string
	// Env is appended to the harness's environment.
	Env []string
	// Dir is the working directory ("" = current).
	Dir string
	// Name names the connection in transcripts.
	Name string
	// Recorder receives every frame.
	Recorder *wire.Recorder
	// MaxLineBytes caps one stdout line (default 16 MiB). A longer line is
	// delivered truncated and the rest is discarded without buffering.
	MaxLineBytes int
	// StderrBytes is how much of the tail of stderr is kept (default 64 KiB).
	StderrBytes int
	// ExitWait is how long Close waits after closing stdin before SIGTERM,
	// and again after SIGTERM before SIGKILL (default 2s each).
	ExitWait time.Duration
	// Prestart: the process is started ahead of need (a pool); the
	// "started pid" note is recorded when a check takes it (Adopt), so the
	// transcript of the check running meanwhile does not show it.
	Prestart bool
}

// Conn is a running stdio server.
type Conn struct {
	opts   Options
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	rec    *wire.Recorder

	writeMu sync.Mutex

	q *queue

	stderr     *tail
	stderrR    *os.File
	stderrDone chan struct{}

	exited   chan struct{}
	exitErr  error
	readDone chan struct{}

	closeOnce sync.Once
	closeErr  error

	// closing is set once the harness starts ending the process (closes
	// stdin, signals it); sent counts the messages written to stdin.
	closing atomic.Bool
	sent    atomic.Int64
	// eofWaited and termWaited are set once CloseStdinAndWait and
	// TerminateAndWait have waited: Close does not wait again.
	eofWaited, termWaited atomic.Bool
	// started is when the process was started.
	started time.Time
}

// Start launches the command in its own process group.
func Start(opts Options) (*Conn, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("stdio: no command")
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 16 << 20
	}
	if opts.StderrBytes <= 0 {
		opts.StderrBytes = 64 << 10
	}
	if opts.ExitWait <= 0 {
		opts.ExitWait = 2 * time.Second
	}
	if opts.Name == "" {
		opts.Name = "stdio"
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Dir = opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	liveMu.Lock() // ReapOrphans must not take the new process for an orphan
	err = cmd.Start()
	if err == nil {
		live[cmd.Process.Pid] = true
	}
	liveMu.Unlock()
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("cannot start %q: %w", opts.Command[0], err)
	}
	// The child holds its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()

	c := &Conn{
		opts:       opts,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		rec:        opts.Recorder,
		q:          newQueue(),
		stderr:     newTail(opts.StderrBytes),
		stderrR:    errR,
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
		readDone:   make(chan struct{}),
		started:    time.Now(),
	}
	if !opts.Prestart {
		c.rec.Note(opts.Name, fmt.Sprintf("started pid %d", cmd.Process.Pid))
	}
	go c.wait()
	go c.readStdout()
	go c.readStderr(errR)
	return c, nil
}

// Adopt records the start of a process started ahead of need (Prestart)
// when a check takes it: what it wrote before is recorded before the
// check's mark, so it is not that check's.
func (c *Conn) Adopt() {
	c.rec.Note(c.opts.Name, fmt.Sprintf("started pid %d (%s ahead of need; nothing was sent to it yet)", c.cmd.Process.Pid, time.Since(c.started).Round(time.Millisecond)))
}

// Prestarted reports whether the process was started ahead of need
// (Options.Prestart).
func (c *Conn) Prestarted() bool { return c.opts.Prestart }

func (c *Conn) wait() {
	c.exitErr = c.cmd.Wait()
	liveMu.Lock()
	delete(live, c.cmd.Process.Pid)
	liveMu.Unlock()
	close(c.exited)
}

// Name implements wire.Conn.
func (c *Conn) Name() string { return c.opts.Name }

// Transport implements wire.Conn.
func (c *Conn) Transport() string { return wire.Stdio }

// Pid returns the process id.
func (c *Conn) Pid() int { return c.cmd.Process.Pid }

// Exited is closed when the process has exited and was reaped.
func (c *Conn) Exited() <-chan struct{} { return c.exited }

// ExitState describes how the process ended ("" while it runs).
func (c *Conn) ExitState() string {
	select {
	case <-c.exited:
		if c.exitErr == nil {
			return "exit status 0"
		}
		return c.exitErr.Error()
	default:
		return ""
	}
}

// Stderr returns the kept tail of the server's stderr.
func (c *Conn) Stderr() string { return c.stderr.String() }

// Send implements wire.Conn: it writes payload plus a newline (no newline
// with opts.Raw). The write respects ctx's deadline.
func (c *Conn) Send(ctx context.Context, payload []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	raw := opts != nil && opts.Raw
	buf := payload
	if !raw {
		buf = make([]byte, 0, len(payload)+1)
		buf = append(buf, payload...)
		buf = append(buf, '\n')
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.exited:
		return nil, fmt.Errorf("%w: server process has exited (%s)", wire.ErrClosed, c.ExitState())
	default:
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.stdin.SetWriteDeadline(dl)
	} else {
		_ = c.stdin.SetWriteDeadline(time.Time{})
	}
	var decoded any
	if opts != nil {
		decoded = opts.Decoded
	}
	c.rec.Record(wire.Frame{Conn: c.opts.Name, Dir: wire.Out, Kind: wire.KindMessage, Raw: payload, Decoded: decoded})
	c.sent.Add(1)
	_, err := c.stdin.Write(buf)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("%w: server did not read its stdin", wire.ErrTimeout)
		}
		return nil, fmt.Errorf("%w: write to stdin: %v", wire.ErrClosed, err)
	}
	return nil, nil
}

// Recv implements wire.Conn.
func (c *Conn) Recv(ctx context.Context) (wire.Frame, error) { return c.q.pop(ctx) }

func (c *Conn) readStdout() {
	defer close(c.readDone)
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	max := c.opts.MaxLineBytes
	for {
		line, total, err := readLine(r, max)
		truncated := total > len(line)
		if len(line) > 0 || (err == nil) {
			f := c.rec.Record(wire.Frame{Conn: c.opts.Name, Dir: wire.In, Kind: wire.KindMessage, Raw: line, Truncated: truncated})
			c.lineCauses(line, total, err)
			if !c.q.push(f) {
				break // closing
			}
		}
		if err != nil {
			break
		}
	}
	// stdout ended: the process closed it or exited. Report the exit state
	// if it comes soon, so the transcript says why.
	select {
	case <-c.exited:
	case <-time.After(500 * time.Millisecond):
	}
	note := "server closed stdout"
	if s := c.ExitState(); s != "" {
		note += "; process " + s
		if !c.closing.Load() && s != "exit status 0" {
			c.cause(fmt.Sprintf("%s (%s) after %d messages from the harness", wire.ExitCause, s, c.sent.Load()))
		}
	}
	f := c.rec.Record(wire.Frame{Conn: c.opts.Name, Dir: wire.In, Kind: wire.KindClosed, Note: note})
	c.q.push(f)
	c.q.close()
}

// cause records a transport problem of the server (wire.CausePrefix).
func (c *Conn) cause(text string) {
	c.rec.Note(c.opts.Name, wire.CausePrefix+text)
}

// lineCauses records what is wrong with one stdout line at the transport
// level: longer than the cap, invalid UTF-8, cut off by the end of stdout
// (err != nil: no newline came).
func (c *Conn) lineCauses(line []byte, total int, err error) {
	if total > len(line) {
		c.cause(fmt.Sprintf("a stdout line exceeds the %s cap (%s in all): cut at the cap, the rest read and discarded",
			wire.Size(int64(c.opts.MaxLineBytes)), wire.Size(int64(total))))
	}
	if at := wire.InvalidUTF8(line, total > len(line)); at >= 0 {
		c.cause(fmt.Sprintf("invalid UTF-8 in server output (a stdout line of %d bytes, first invalid byte 0x%02x at offset %d)", total, line[at], at))
	}
	if err != nil && total > 0 {
		c.cause(fmt.Sprintf("stdout ended in the middle of a message: %d bytes without the final newline", total))
	}
}

// readLine reads one '\n'-terminated line, keeping at most max bytes of
// content (the newline does not count against max); total is the length
// of the whole line.
func readLine(r *bufio.Reader, max int) (line []byte, total int, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if e == nil {
			chunk = chunk[:len(chunk)-1] // drop the newline
		}
		total += len(chunk)
		room := max - len(line)
		if len(chunk) > room {
			if room > 0 {
				line = append(line, chunk[:room]...)
			}
		} else {
			line = append(line, chunk...)
		}
		switch {
		case e == nil:
			return line, total, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return line, total, e
		}
	}
}

func (c *Conn) readStderr(f *os.File) {
	defer close(c.stderrDone)
	defer f.Close()
	_, _ = io.Copy(c.stderr, f)
}

// Close runs the spec's shutdown: close stdin, wait, SIGTERM, wait, SIGKILL.
// The whole process group is signalled and the process is always reaped;
// so are the server's descendants that left the group (see AdoptOrphans).
// Once a process of the same command has ignored stdin EOF (or SIGTERM),
// later ones get learnedWait instead of ExitWait for that step.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.writeMu.Lock()
		c.stdin.Close()
		c.writeMu.Unlock()
		pgid := c.cmd.Process.Pid
		// A shutdown check already gave the process its time: no second
		// wait. A server of this command that was seen to ignore stdin EOF
		// (or SIGTERM) before gets a short wait only: a run does not pay
		// the full grace for each of its many processes.
		hint := hintFor(c.opts.Command)
		afterEOF, afterTerm := c.opts.ExitWait, c.opts.ExitWait
		if hint.ignoresEOF.Load() {
			afterEOF = min(afterEOF, learnedWait)
		}
		if hint.ignoresTERM.Load() {
			afterTerm = min(afterTerm, learnedWait)
		}
		if c.eofWaited.Load() {
			afterEOF = 0
		}
		if c.termWaited.Load() {
			afterEOF, afterTerm = 0, 0
		}
		select {
		case <-c.exited:
		case <-time.After(afterEOF):
			hint.ignoresEOF.Store(true)
			c.rec.Note(c.opts.Name, fmt.Sprintf("no exit %s after stdin EOF; SIGTERM sent to the process group", afterEOF))
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			select {
			case <-c.exited:
			case <-time.After(afterTerm):
				hint.ignoresTERM.Store(true)
				c.rec.Note(c.opts.Name, "no exit after SIGTERM; SIGKILL sent to the process group")
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				<-c.exited
			}
		}
		// Children left in the group would keep pipes open: end them too,
		// and those that left the group (adopted orphans).
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if n := ReapOrphans(); n > 0 {
			c.rec.Note(c.opts.Name, fmt.Sprintf("%d orphaned descendant process(es) of the server killed", n))
		}
		close(c.q.stop) // a reader blocked on a full queue gives up
		select {
		case <-c.readDone:
		case <-time.After(200 * time.Millisecond):
			c.stdout.Close() // unblocks the reader when a grandchild holds stdout
			<-c.readDone
		}
		c.stdout.Close()
		// Let the stderr reader drain what the process wrote before it
		// ended, so Stderr() after Close holds the full tail.
		select {
		case <-c.stderrDone:
		case <-time.After(200 * time.Millisecond):
			c.stderrR.Close() // a process outside the group still holds stderr
			<-c.stderrDone
		}
		c.rec.Note(c.opts.Name, "process "+c.ExitState())
	})
	return c.closeErr
}

// learnedWait is how long Close waits after stdin EOF (or SIGTERM) for a
// server whose command was already seen to ignore it.
const learnedWait = 100 * time.Millisecond

// shutdownHint is what earlier processes of one command taught about its
// shutdown.
type shutdownHint struct{ ignoresEOF, ignoresTERM atomic.Bool }

var hints sync.Map // command (NUL-joined) → *shutdownHint

func hintFor(command []string) *shutdownHint {
	v, _ := hints.LoadOrStore(strings.Join(command, "\x00"), &shutdownHint{})
	return v.(*shutdownHint)
}

// CloseStdinAndWait reports whether the process exits within d after stdin EOF,
// without signalling it (for shutdown checks). It closes stdin.
func (c *Conn) CloseStdinAndWait(d time.Duration) bool {
	c.closing.Store(true)
	c.writeMu.Lock()
	c.stdin.Close()
	c.writeMu.Unlock()
	defer c.eofWaited.Store(true)
	select {
	case <-c.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// TerminateAndWait sends SIGTERM to the process group and reports whether
// the process exits within d, without escalating (for shutdown checks;
// Close still runs the rest of the shutdown sequence).
func (c *Conn) TerminateAndWait(d time.Duration) bool {
	select {
	case <-c.exited:
		return true
	default:
	}
	c.closing.Store(true)
	c.rec.Note(c.opts.Name, "SIGTERM sent to the process group")
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
	defer c.termWaited.Store(true)
	select {
	case <-c.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// queue is a bounded FIFO of frames with a blocking, cancellable pop. When
// it is full, push blocks: the reader stops reading, the server's stdout
// pipe fills and the server blocks — backpressure instead of unbounded
// memory when a server floods.
type queue struct {
	mu     sync.Mutex
	items  []wire.Frame
	bytes  int
	notify chan struct{}
	space  chan struct{}
	stop   chan struct{}
	closed bool
}

// Bounds of the queue between the stdout reader and Recv.
const (
	queueMaxItems = 4096
	queueMaxBytes = 32 << 20
)

func newQueue() *queue {
	return &queue{notify: make(chan struct{}, 1), space: make(chan struct{}, 1), stop: make(chan struct{})}
}

// push appends f, waiting for room; it returns false once the queue was
// stopped (the connection is closing).
func (q *queue) push(f wire.Frame) bool {
	for {
		q.mu.Lock()
		if len(q.items) < queueMaxItems && (q.bytes+len(f.Raw) <= queueMaxBytes || len(q.items) == 0) {
			q.items = append(q.items, f)
			q.bytes += len(f.Raw)
			q.mu.Unlock()
			select {
			case q.notify <- struct{}{}:
			default:
			}
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-q.stop:
			return false
		}
	}
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *queue) pop(ctx context.Context) (wire.Frame, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			f := q.items[0]
			q.items[0] = wire.Frame{}
			q.items = q.items[1:]
			q.bytes -= len(f.Raw)
			q.mu.Unlock()
			select {
			case q.space <- struct{}{}:
			default:
			}
			return f, nil
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return wire.Frame{}, wire.ErrClosed
		}
		select {
		case <-q.notify:
		case <-ctx.Done():
			return wire.Frame{}, fmt.Errorf("%w: %v", wire.ErrTimeout, ctx.Err())
		}
	}
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	n   int
	cut bool
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}
