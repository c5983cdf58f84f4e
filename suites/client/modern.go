package client

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

var _ = c.ClientArea("client", func() {
	c.It("CLI-011", "every request carries _meta protocolVersion and clientCapabilities", func(t *c.T) {
		var bad []msg
		n := 0
		for _, r := range t.Runs(nil) {
			for _, m := range requests(modernTraffic(t, r)) {
				n++
				t.Judged(r)
				meta := metaOf(m.M)
				var v string
				if json.Unmarshal(meta[MetaProtocolVersion], &v) != nil || v == "" || !isObject(meta[MetaClientCapabilities]) {
					bad = append(bad, m)
				}
			}
		}
		if n == 0 {
			t.NA("the client sent no request")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation(`params._meta with "`+MetaProtocolVersion+`" (a string) and "`+MetaClientCapabilities+`" (an object)`, describe(bad),
				"%d request(s) of the client lack the per-request protocol version or client capabilities (the first: %s)", len(bad), bad[0].M.Method)
		}
	})

	c.It("CLI-012", "every request carries _meta clientInfo", func(t *c.T) {
		var bad []msg
		n := 0
		for _, r := range t.Runs(nil) {
			for _, m := range requests(modernTraffic(t, r)) {
				n++
				t.Judged(r)
				var info struct {
					Name, Version *string
				}
				if json.Unmarshal(metaOf(m.M)[MetaClientInfo], &info) != nil || info.Name == nil || info.Version == nil {
					bad = append(bad, m)
				}
			}
		}
		if n == 0 {
			t.NA("the client sent no request")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation(`params._meta["`+MetaClientInfo+`"] with name and version`, describe(bad),
				"%d request(s) of the client carry no clientInfo (the first: %s)", len(bad), bad[0].M.Method)
		}
	})
})

// modernErrorCodes are the JSON-RPC errors by which a server shows it is
// modern (2026-07-28 versioning): a client that gets one to its probe
// does not fall back to initialize.
var modernErrorCodes = map[int64]bool{-32022: true}

var _ = c.ClientArea("client", func() {
	c.It("CLI-031", "after a legacy error to its server/discover probe the client falls back to initialize", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			reqs := requests(ms)
			for _, conn := range r.Conns {
				i := slices.IndexFunc(reqs, func(m msg) bool { return m.F.Conn == conn })
				if i < 0 || reqs[i].M.Method != "server/discover" || !modernShaped(reqs[i].M) {
					continue // no probe on this connection
				}
				probe := reqs[i]
				a, ok := answer(ms, probe)
				if !ok || !a.M.HasError || a.M.Error == nil || modernErrorCodes[a.M.Error.Code] {
					continue // a modern answer, or none (a timeout is the client's to choose)
				}
				judged++
				t.Judged(r)
				// on the same connection, or on a server process the
				// client started anew for it
				if !slices.ContainsFunc(reqs, func(m msg) bool { return m.F.Seq > a.F.Seq && m.M.Method == "initialize" }) {
					bad.add(a, fmt.Sprintf("%s: the server/discover probe got error %d (a legacy server's) and the client never sent initialize", describeRunOf(r), a.M.Error.Code))
				}
			}
		}
		if judged == 0 {
			t.NA("the client probed no legacy stdio server with server/discover (it is not dual-era, or opened with initialize)")
		}
		bad.report(t, "initialize after any error to the probe that is not a recognized modern one (the fallback is not keyed to one code)")
	})
})

var _ = c.ClientArea("client", func() {
	c.It("CLI-032", "after UnsupportedProtocolVersionError the client retries with a listed version", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			if len(notes(t, r, r.Conn, scenario.SimulatedRejectionNote)) == 0 {
				continue
			}
			ms := traffic(t, r)
			reqs := requests(ms)
			i := slices.IndexFunc(reqs, func(m msg) bool {
				a, ok := answer(ms, m)
				return ok && a.M.HasError && a.M.Error != nil && a.M.Error.Code == -32022
			})
			if i < 0 {
				continue
			}
			judged++
			t.Judged(r)
			rejected := reqs[i]
			var retry *msg
			for j := i + 1; j < len(reqs); j++ {
				if reqs[j].M.Method == rejected.M.Method || reqs[j].M.Method == "initialize" {
					retry = &reqs[j]
					break
				}
			}
			switch {
			case retry == nil:
				a, _ := answer(ms, rejected)
				bad.add(a, fmt.Sprintf("%s: the client's %s got UnsupportedProtocolVersionError listing %s as supported, and it did not retry", describeRunOf(r), rejected.M.Method, catalog.Modern))
			case retry.M.Method == "initialize":
				bad.add(*retry, fmt.Sprintf("%s: after UnsupportedProtocolVersionError listing %s as supported, the client fell back to initialize, a version the server did not list", describeRunOf(r), catalog.Modern))
			case metaString(retry.M, MetaProtocolVersion) != string(catalog.Modern):
				bad.add(*retry, fmt.Sprintf("%s: after UnsupportedProtocolVersionError listing %s as supported, the client retried %s with version %q", describeRunOf(r), catalog.Modern, retry.M.Method, metaString(retry.M, MetaProtocolVersion)))
			}
		}
		if judged == 0 {
			t.NA("no first request of the client got the version-negotiation scenario's UnsupportedProtocolVersionError")
		}
		bad.report(t, "a retry of the request with a version from the error's supported list")
	})
})
