package jb
import ("encoding/json";"strings";"testing";"unicode/utf8")
var msg = []byte(`{"jsonrpc":"2.0","id":"x","method":"ping","params":{"_meta":{"mcpconform/oversized":"`+strings.Repeat("x",3<<20)+`"}}}`)
func BenchmarkUnmarshalMap(b *testing.B){ for i:=0;i<b.N;i++{ var m map[string]json.RawMessage; json.Unmarshal(msg,&m)} }
func BenchmarkValid(b *testing.B){ for i:=0;i<b.N;i++{ json.Valid(msg)} }
func BenchmarkUTF8(b *testing.B){ for i:=0;i<b.N;i++{ utf8.Valid(msg)} }
func BenchmarkIndexQuote(b *testing.B){ for i:=0;i<b.N;i++{ n:=0; s:=msg; for { j:=strings.IndexAny(string(s),"\"\\"); if j<0{break}; s=s[j+1:]; n++ } } }
