package client

import (
	"encoding/json"

	c "github.com/mcpconform/mcpconform/internal/conform"
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
