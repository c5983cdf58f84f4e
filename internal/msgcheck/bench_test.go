package msgcheck

import (
	"fmt"
	"strings"
	"testing"
)

func toolsListMessage(rev string, n int) []byte {
	var tools []string
	for i := 0; i < n; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","minimum":0}},"required":["a"]},"annotations":{"readOnlyHint":true}}`, i))
	}
	extra := ""
	if rev == v260728 {
		extra = `"resultType":"complete","ttlMs":1000,"cacheScope":"public",`
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"result":{` + extra + `"tools":[` + strings.Join(tools, ",") + `]}}`)
}

func BenchmarkValidateServerMessage(b *testing.B) {
	for _, rev := range []string{v250618, v260728} {
		for _, n := range []int{1, 20} {
			raw := toolsListMessage(rev, n)
			b.Run(fmt.Sprintf("%s/tools-%d", rev, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if p := ValidateServerMessage(rev, raw, "tools/list"); p != nil {
						b.Fatal(p)
					}
				}
			})
		}
	}
	raw := []byte(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}]}}`)
	b.Run("2026-07-28/tools-call", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ValidateServerMessage(v260728, raw, "tools/call")
		}
	})
}
