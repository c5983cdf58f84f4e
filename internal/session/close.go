package session

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// orphan holds the frames of an HTTP exchange no call has claimed yet.
type orphan struct {
	frames []wire.Frame
	ended  bool
}

// maxOrphans bounds the unclaimed exchanges kept (notifications and raw
// sends never claim theirs).
const maxOrphans = 64

func (s *Session) orphanLocked(f wire.Frame) {
	if s.orphans == nil {
		s.orphans = map[int64]*orphan{}
	}
	o := s.orphans[f.Exchange]
	if o == nil {
		if len(s.orphans) >= maxOrphans {
			oldest := int64(-1)
			for k := range s.orphans {
				if oldest < 0 || k < oldest {
					oldest = k
				}
			}
			delete(s.orphans, oldest)
		}
		o = &orphan{}
		s.orphans[f.Exchange] = o
	}
	if f.Kind == wire.KindNote && f.Note == wire.NoteExchangeEnd {
		o.ended = true
		return
	}
	if len(o.frames) < 256 {
		o.frames = append(o.frames, f)
	}
}

// closeDeleteWait bounds the wait for the answer to Close's DELETE: ending
// a session is housekeeping (the checks that judge DELETE send their own),
// and a server that holds it open while work of the session runs must not
// hold up the end of the run.
const closeDeleteWait = time.Second

// Close ends the session: on legacy HTTP with a session id it sends DELETE
// (waiting at most closeDeleteWait for its answer); then the connection is
// closed and the dispatcher stopped.
func (s *Session) Close() error {
	s.mu.Lock()
	sid := s.sessionID
	s.mu.Unlock()
	if sid != "" {
		if d, ok := s.conn.(wire.HTTPDoer); ok {
			ctx, cancel := context.WithTimeout(context.Background(), min(s.opts.Timeout, closeDeleteWait))
			reply, err := d.Do(ctx, http.MethodDelete, nil, &wire.SendOptions{Header: s.legacyHeaders()})
			if err == nil && reply != nil {
				select {
				case <-reply.Done:
				case <-ctx.Done():
				}
			}
			cancel()
		}
	}
	err := s.conn.Close()
	s.stop()
	select {
	case <-s.dispatchDone:
	case <-time.After(2 * time.Second):
	}
	return err
}
