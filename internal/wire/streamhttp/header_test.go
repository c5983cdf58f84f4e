package streamhttp

import (
	"errors"
	"testing"
)

func TestEncodeHeaderValue(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", "tools/call", "tools/call"},
		{"inner space", "hello world", "hello world"},
		{"empty", "", ""},
		{"all visible", "!~az09=?", "!~az09=?"},
		{"leading space", " hello", "=?base64?IGhlbGxv?="},
		{"trailing space", "hello ", "=?base64?aGVsbG8g?="},
		{"only space", " ", "=?base64?IA==?="},
		{"non-ascii", "日本語", "=?base64?5pel5pys6Kqe?="},
		{"control char", "a\x01b", "=?base64?YQFi?="},
		{"tab inside", "a\tb", "=?base64?YQli?="},
		{"newline", "a\nb", "=?base64?YQpi?="},
		{"DEL", "a\x7fb", "=?base64?YX9i?="},
		{"looks like sentinel", "=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
		{"empty sentinel", "=?base64??=", "=?base64?PT9iYXNlNjQ/Pz0=?="},
		{"uppercase sentinel stays", "=?BASE64?YWJj?=", "=?BASE64?YWJj?="},
		{"overlapping markers stay", "=?base64?=", "=?base64?="},
		{"prefix only stays", "=?base64?abc", "=?base64?abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EncodeHeaderValue(tt.in)
			if got != tt.want {
				t.Fatalf("EncodeHeaderValue(%q) = %q, want %q", tt.in, got, tt.want)
			}
			back, err := DecodeHeaderValue(got)
			if err != nil || back != tt.in {
				t.Fatalf("DecodeHeaderValue(%q) = %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"plain", "tools/call", "tools/call", false},
		{"sentinel", "=?base64?5pel5pys6Kqe?=", "日本語", false},
		{"empty payload", "=?base64??=", "", false},
		{"uppercase literal", "=?BASE64?5pel5pys6Kqe?=", "=?BASE64?5pel5pys6Kqe?=", false},
		{"mixed case literal", "=?Base64?YWJj?=", "=?Base64?YWJj?=", false},
		{"no suffix literal", "=?base64?YWJj", "=?base64?YWJj", false},
		{"malformed", "=?base64?!!!?=", "", true},
		{"bad padding", "=?base64?YWJ?=", "", true},
		{"unpadded", "=?base64?YQ?=", "", true},
		{"non-zero pad bits", "=?base64?YR==?=", "", true},
		{"embedded newline", "=?base64?YW\nJj?=", "", true},
		{"url alphabet", "=?base64?-_-_?=", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeHeaderValue(tt.in)
			if tt.wantErr {
				if err == nil || !errors.Is(err, ErrBadSentinel) {
					t.Fatalf("DecodeHeaderValue(%q) = %q, %v; want ErrBadSentinel", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("DecodeHeaderValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzHeaderValueRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", " a", "a ", "日本語", "=?base64?x?=", "=?base64??=", "\x00", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := EncodeHeaderValue(s)
		if !isPlain(enc) {
			t.Fatalf("encoded %q is not plain: %q", s, enc)
		}
		dec, err := DecodeHeaderValue(enc)
		if err != nil || dec != s {
			t.Fatalf("round trip of %q: %q, %v", s, dec, err)
		}
	})
}
