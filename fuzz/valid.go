package fuzz

import (
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
)

// validCache remembers the message model's verdict on server messages it
// has validated: a campaign sees the same bytes again and again (list
// results, errors for the same kind of fault, the probe's answer), and
// validating a message against the revision's schema costs more than the
// rest of its judging. The verdict depends on the revision, the method
// the message answers and its bytes only; a valid id (a string or an
// integer: the harness's ids differ case after case) stands in the key
// as the empty string or 0, the schema allowing any of either.
type validCache struct {
	mu sync.Mutex
	m  map[validKey][]msgcheck.Problem
}

type validKey struct {
	rev    catalog.Revision
	method string
	raw    string
}

// Bounds: messages this large are validated every time; the cache is
// emptied when full.
const (
	maxCachedMessage = 16 << 10
	maxCachedVerdict = 2048
)

func (c *validCache) validate(rev catalog.Revision, msg *jsonrpc.Message, method string) []msgcheck.Problem {
	raw := msg.Raw
	if len(raw) > maxCachedMessage {
		return msgcheck.ValidateServerMessage(string(rev), raw, method)
	}
	norm := string(raw)
	if msg.HasID && msg.ID.Valid() {
		canon := "0"
		if msg.ID.IsString() {
			canon = `""`
		}
		norm = strings.Replace(norm, `"id":`+msg.ID.Key(), `"id":`+canon, 1)
	}
	k := validKey{rev, method, norm}
	c.mu.Lock()
	ps, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return ps
	}
	ps = msgcheck.ValidateServerMessage(string(rev), raw, method)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedVerdict {
		c.m = map[validKey][]msgcheck.Problem{}
	}
	c.m[k] = ps
	c.mu.Unlock()
	return ps
}
