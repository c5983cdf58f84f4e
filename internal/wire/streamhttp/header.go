package streamhttp

import (
	"encoding/base64"
	"errors"
	"strings"
)

// The Base64 sentinel of the 2026-07-28 header value encoding. The markers
// are case-sensitive: "=?BASE64?...?=" is an ordinary literal value.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// isSentinel reports whether s has the exact shape "=?base64?<x>?=" (with
// prefix and suffix not overlapping). Encode and Decode share this test, so
// Decode(Encode(s)) == s for every s.
func isSentinel(s string) bool {
	return len(s) >= len(sentinelPrefix)+len(sentinelSuffix) &&
		strings.HasPrefix(s, sentinelPrefix) &&
		strings.HasSuffix(s, sentinelSuffix)
}

// isPlain reports whether s may travel as is: only visible ASCII
// (0x21–0x7E) and spaces, with no space at either end.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b == ' ' {
			if i == 0 || i == len(s)-1 {
				return false
			}
			continue
		}
		if b < 0x21 || b > 0x7E {
			return false
		}
	}
	return true
}

// EncodeHeaderValue encodes s for an MCP 2026-07-28 request header
// (Mcp-Name, Mcp-Param-*). Plain visible ASCII — spaces allowed only
// inside — that does not already look like a sentinel is returned as is;
// anything else becomes "=?base64?" + standard Base64 of the bytes + "?=".
func EncodeHeaderValue(s string) string {
	if isPlain(s) && !isSentinel(s) {
		return s
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelSuffix
}

// ErrBadSentinel is returned (wrapped) by DecodeHeaderValue for a sentinel
// whose payload is not valid standard Base64.
var ErrBadSentinel = errors.New("malformed base64 header value")

// strictB64 rejects non-zero padding bits; CR and LF are rejected separately
// because the standard decoder silently skips them.
var strictB64 = base64.StdEncoding.Strict()

// DecodeHeaderValue is the inverse of EncodeHeaderValue. Only the exact
// lowercase markers are recognised; any other value is returned unchanged.
func DecodeHeaderValue(s string) (string, error) {
	if !isSentinel(s) {
		return s, nil
	}
	inner := s[len(sentinelPrefix) : len(s)-len(sentinelSuffix)]
	if strings.ContainsAny(inner, "\r\n") {
		return "", ErrBadSentinel
	}
	b, err := strictB64.DecodeString(inner)
	if err != nil {
		return "", errors.Join(ErrBadSentinel, err)
	}
	return string(b), nil
}
