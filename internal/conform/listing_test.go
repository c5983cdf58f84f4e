package conform

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// listConn is a stdio wire.Conn whose server answers every request with
// a one-page tools/list result and counts the requests.
type listConn struct {
	name   string
	frames chan wire.Frame
	seq    atomic.Int64
	lists  atomic.Int32
}

func newListConn(name string) *listConn {
	return &listConn{name: name, frames: make(chan wire.Frame, 16)}
}

func (c *listConn) Name() string      { return c.name }
func (c *listConn) Transport() string { return wire.Stdio }
func (c *listConn) Close() error      { return nil }

func (c *listConn) Send(_ context.Context, payload []byte, _ *wire.SendOptions) (*wire.Reply, error) {
	m, err := jsonrpc.Decode(payload)
	if err != nil || !m.HasID {
		return nil, err
	}
	if m.Method == "tools/list" {
		c.lists.Add(1)
	}
	raw := []byte(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`)
	c.frames <- wire.Frame{Seq: c.seq.Add(1), Time: time.Now(), Conn: c.name, Dir: wire.In, Kind: wire.KindMessage, Raw: raw}
	return nil, nil
}

func (c *listConn) Recv(ctx context.Context) (wire.Frame, error) {
	select {
	case f := <-c.frames:
		return f, nil
	case <-ctx.Done():
		return wire.Frame{}, wire.ErrTimeout
	}
}

// Listing walks a list once per revision on the shared sessions, walks a
// session of the check's own every time, and walks again after a catalog
// change (a trigger ran).
func TestListingIsSharedUntilTheCatalogChanges(t *testing.T) {
	env := &Env{}
	rev := catalog.LatestLegacy
	open := func(c *listConn) *session.Session {
		s := session.New(c, session.Options{Revision: rev, Timeout: 5 * time.Second})
		t.Cleanup(func() { s.Close() })
		return s
	}
	sharedConn, ownConn := newListConn("stdio#1"), newListConn("stdio#2")
	shared, own := open(sharedConn), open(ownConn)
	env.shareds.Store(shared, true)
	check := func() *T { return memoT(context.Background(), env, rev, wire.Stdio) }

	w1 := check().Listing(shared, "tools/list")
	w2 := check().Listing(shared, "tools/list")
	if n := sharedConn.lists.Load(); n != 1 || w1 != w2 || len(w1.Items) != 1 {
		t.Fatalf("two checks on the shared session: %d walks, same walk %v, %d items; want 1 walk shared, 1 item", n, w1 == w2, len(w1.Items))
	}
	check().Listing(own, "tools/list")
	check().Listing(own, "tools/list")
	if n := ownConn.lists.Load(); n != 2 {
		t.Fatalf("a session of the check's own: %d walks, want one per check (2)", n)
	}
	env.catalogGen.Add(1)
	if w3 := check().Listing(shared, "tools/list"); sharedConn.lists.Load() != 2 || w3 == w1 {
		t.Fatalf("after a catalog change: %d walks, want 2 (a new walk)", sharedConn.lists.Load())
	}
}
