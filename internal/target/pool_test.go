package target

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

func poolTarget(cmd ...string) *Target {
	return &Target{Command: cmd, Timeout: 5 * time.Second, Recorder: wire.NewRecorder(nil), Prestart: 2}
}

// idleConns returns the pool's idle processes once the refills under way
// have ended.
func idleConns(t *Target) []*stdio.Conn {
	t.pool.mu.Lock()
	for t.pool.inflight > 0 {
		t.pool.mu.Unlock()
		time.Sleep(time.Millisecond) // polling the refill goroutines, not timing the test
		t.pool.mu.Lock()
	}
	defer t.pool.mu.Unlock()
	return append([]*stdio.Conn(nil), t.pool.idle...)
}

// A connection is taken from the pool, its start is recorded when it is
// taken (not when it was started), the pool is refilled, and ClosePool
// ends every idle process; the counts say what was started and not used.
func TestPoolTakeRefillClose(t *testing.T) {
	tg := poolTarget("cat")
	tg.StartPool()
	first := idleConns(tg)
	if len(first) != 2 {
		t.Fatalf("pool holds %d processes, want 2", len(first))
	}
	for _, f := range tg.Recorder.Since(0, 0) {
		if strings.HasPrefix(f.Note, "started pid") {
			t.Fatalf("a process started ahead of need was recorded before it was taken: %q", f.Note)
		}
	}
	conn, err := tg.Connect()
	if err != nil {
		t.Fatal(err)
	}
	if conn != first[0] {
		t.Fatal("Connect did not hand out the oldest pre-started process")
	}
	notes := tg.Recorder.OnConn(0, conn.Name())
	if len(notes) != 1 || !strings.Contains(notes[0].Note, "ahead of need") {
		t.Fatalf("the taken process's start is not recorded when it is taken: %+v", notes)
	}
	if got := idleConns(tg); len(got) != 2 {
		t.Fatalf("pool not refilled: %d idle", len(got))
	}
	idle := idleConns(tg)
	tg.ClosePool()
	for _, c := range idle {
		select {
		case <-c.Exited():
		default:
			t.Fatalf("%s still running after ClosePool", c.Name())
		}
	}
	conn.Close()
	st := tg.Stats()
	if st.Connections != 3 || st.Prestarted != 1 || st.Unused != 2 {
		t.Fatalf("stats %+v, want 3 processes, 1 taken from the pool, 2 unused", st)
	}
	// After ClosePool, connections are started on demand.
	c2, err := tg.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := idleConns(tg); len(got) != 0 {
		t.Fatalf("a closed pool was refilled: %d idle", len(got))
	}
}

// A pre-started process that ended while idle is reaped and skipped: the
// connection handed out is a process started on demand.
func TestPoolSkipsDeadProcesses(t *testing.T) {
	tg := poolTarget("true")
	tg.StartPool()
	for _, c := range idleConns(tg) {
		<-c.Exited()
	}
	conn, err := tg.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tg.ClosePool()
	if st := tg.Stats(); st.Prestarted != 0 || st.Unused < 2 {
		t.Fatalf("stats %+v: the dead pre-started processes must not be handed out", st)
	}
	notes := tg.Recorder.OnConn(0, conn.Name())
	if len(notes) == 0 || notes[0].Note == "" || strings.Contains(notes[0].Note, "ahead of need") {
		t.Fatalf("want a process started on demand, got %+v", notes)
	}
}

// No pool for HTTP targets nor with Prestart < 0.
func TestPoolOff(t *testing.T) {
	tg := poolTarget("cat")
	tg.Prestart = -1
	tg.StartPool()
	if n := len(idleConns(tg)); n != 0 {
		t.Fatalf("Prestart -1 started %d processes", n)
	}
	h := &Target{URL: "http://127.0.0.1:1/mcp", Recorder: wire.NewRecorder(nil)}
	h.StartPool()
	if n := len(idleConns(h)); n != 0 {
		t.Fatalf("an HTTP target started %d processes", n)
	}
}

// The pool holds no more processes than the checks still to come may take
// (SetPoolDemand): a take is replaced only while the demand allows it.
func TestPoolDemand(t *testing.T) {
	tg := poolTarget("cat")
	tg.Prestart = 3
	tg.SetPoolDemand(2)
	tg.StartPool()
	defer tg.ClosePool()
	if got := idleConns(tg); len(got) != 2 {
		t.Fatalf("pool holds %d processes for a demand of 2, want 2", len(got))
	}
	tg.SetPoolDemand(1) // a check that takes one started
	conn, err := tg.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := idleConns(tg); len(got) != 1 {
		t.Fatalf("pool holds %d processes after a take with a demand of 1, want 1 (no replacement)", len(got))
	}
	tg.SetPoolDemand(5)
	c2, err := tg.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := idleConns(tg); len(got) != 3 {
		t.Fatalf("pool holds %d processes after a take with a demand of 5, want its size 3", len(got))
	}
}
