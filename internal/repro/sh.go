package repro

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// sq quotes s for sh: one single-quoted word ('\” for a quote).
func sq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printfFormat returns b as a single-quoted printf format that writes
// exactly b: backslash and percent escaped, the quote, control bytes, DEL
// and bytes of invalid UTF-8 as octal escapes; valid UTF-8 text stays
// readable.
func printfFormat(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\%03o`, b[0])
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '%':
			sb.WriteString(`%%`)
		case r == '\'':
			sb.WriteString(`\047`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\%03o`, b[0])
		default:
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	sb.WriteByte('\'')
	return sb.String()
}

// display is how a message is shown in the script's output: control
// characters and invalid bytes made visible, long text clipped.
func display(b []byte) string {
	const max = 300
	var sb strings.Builder
	n := 0
	for i := 0; i < len(b) && n < max; {
		r, w := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && w <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			sb.WriteRune(r)
		}
		i += w
		n++
		if n == max && i < len(b) {
			fmt.Fprintf(&sb, "… (%d bytes)", len(b))
		}
	}
	return sb.String()
}

// ereQuote escapes s for a POSIX extended regular expression.
func ereQuote(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.[]()*+?{}|^$`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// prelude is the helpers every script shares. Variables: tmp (scratch
// directory), WAIT (seconds per answer), pid (stdio server).
const prelude = `WAIT=${MCPCONFORM_WAIT:-10}
tmp=$(mktemp -d 2>/dev/null) || { tmp=${TMPDIR:-/tmp}/mcpconform-repro.$$; mkdir "$tmp"; } || exit 2
pid=
cleanup() {
	exec 3>&- 2>/dev/null
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		i=0; while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 20 ]; do nap; i=$((i+1)); done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP
# nap: a tenth of a second where sleep takes fractions, else a second.
nap() { sleep 0.1 2>/dev/null || sleep 1; }
# norm: JSON text without whitespace (member order is never relied on).
norm() { tr -d ' \t\r'; }
# rep TEXT N: TEXT repeated N times.
rep() { R_TEXT=$1 R_TIMES=$2 LC_ALL=C awk 'BEGIN { s = ENVIRON["R_TEXT"]; t = length(s) * ENVIRON["R_TIMES"]; r = s; while (length(r) < t) r = r r; printf "%s", substr(r, 1, t) }'; }
# show PREFIX FILE FROM: the lines of FILE after line FROM, clipped.
show() { LC_ALL=C awk -v p="$1" -v from="$3" 'NR > from { if (length($0) > 600) print p substr($0, 1, 600) "... (" length($0) " bytes)"; else print p $0 }' "$2"; }
# sent TEXT: print a message sent.
sent() { printf '> %s\n' "$1"; }
lines() { LC_ALL=C awk 'END { print NR }' "$1"; }
# codeof: the error code of a normalised answer ("" when it is no error).
codeof() { case $1 in *'"error":'*) printf '%s\n' "$1" | sed -n 's/.*"error":.*"code":\(-\{0,1\}[0-9][0-9]*\).*/\1/p' ;; esac; }
verdict() { # STATUS EXPECTED WHAT
	echo
	case $1 in
	1) echo "VIOLATION: $2; the server: $3" ;;
	0)
		if [ -n "$UNREPRODUCED" ]; then
			echo "CANNOT TELL: $2; the server: $3 -- but the run saw the violation, and this script cannot say it is gone: $UNREPRODUCED"
			exit 2
		fi
		echo "OK: $2; the server: $3" ;;
	*) echo "CANNOT TELL: $2; $3" ;;
	esac
	exit "$1"
}
`

// stdioPrelude starts the server with its stdin on a FIFO and defines
// send/answer helpers.
const stdioPrelude = `mkfifo "$tmp/in" || exit 2
: >"$tmp/out"
if [ -n "$TARGET_CWD" ]; then cd "$TARGET_CWD" || verdict 2 "$EXPECTED" "cannot enter $TARGET_CWD"; fi
sh -c "$TARGET_CMD" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"
trap '' PIPE
shown=0
gone=
# flush: print what the server wrote since the last flush.
flush() { show '< ' "$tmp/out" "$shown"; shown=$(lines "$tmp/out"); }
# await ERE: wait (up to WAIT seconds) for a server line matching ERE.
await() {
	i=0 limit=$((WAIT * 10))
	while ! norm <"$tmp/out" | grep -qE "$1"; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ "$i" -ge "$limit" ] && return 1
		nap; i=$((i+1))
	done
}
# answer ID_ERE: wait (up to WAIT seconds) for the response with that id;
# sets ans (normalised) and gone (the process ended).
answer() {
	ans= i=0 limit=$((WAIT * 10))
	while :; do
		ans=$(norm <"$tmp/out" | grep -E "\"id\":$1[,}]" | grep -E '"(result|error)":' | sed -n 1p)
		[ -n "$ans" ] && break
		if ! kill -0 "$pid" 2>/dev/null; then
			gone=1
			ans=$(norm <"$tmp/out" | grep -E "\"id\":$1[,}]" | grep -E '"(result|error)":' | sed -n 1p)
			break
		fi
		[ "$i" -ge "$limit" ] && break
		nap; i=$((i+1))
	done
	flush
	[ -n "$ans" ]
}
`

// httpPrelude defines post: one HTTP request with curl.
const httpPrelude = `command -v curl >/dev/null 2>&1 || verdict 2 "$EXPECTED" "curl is not installed"
sid=
n=0
# request METHOD BODYFILE HEADER...: one HTTP request; sets status ("000"
# when no response came), body (normalised JSON lines: the body, or the
# data of its SSE events) and n (the request's number).
request() {
	n=$((n+1)) m=$1 bf=$2; shift 2
	[ -n "${MCP_TOKEN:-}" ] && [ -z "${noauth:-}" ] && set -- "$@" -H "Authorization: Bearer $MCP_TOKEN"
	[ -n "$bf" ] && set -- "$@" --data-binary "@$bf"
	status=$(curl -sS -m "$WAIT" -X "$m" -D "$tmp/h$n" -o "$tmp/b$n" -w '%{http_code}' "$@" "$TARGET_URL" 2>"$tmp/e$n")
	[ -n "$status" ] || status=000
	: >>"$tmp/h$n"; : >>"$tmp/b$n"
	if grep -qi '^content-type:[[:space:]]*text/event-stream' "$tmp/h$n"; then
		sed -n 's/^data: \{0,1\}//p' "$tmp/b$n" | norm >"$tmp/j$n"
	else
		norm <"$tmp/b$n" | tr -d '\n' >"$tmp/j$n"; echo >>"$tmp/j$n"
	fi
	body=$(cat "$tmp/j$n")
	s=$(sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]:[[:space:]]*//p' "$tmp/h$n" | tr -d '\r' | sed -n 1p)
	[ -n "$s" ] && sid=$s
	if [ "$status" = 000 ]; then echo "< no response: $(sed -n 1p "$tmp/e$n")"; else echo "< HTTP $status"; show '< ' "$tmp/b$n" 0; fi
}
# answer ID_ERE: the response with that id in the last request's body.
answer() {
	ans=$(grep -E "\"id\":$1[,}]" "$tmp/j$n" | grep -E '"(result|error)":' | sed -n 1p)
	[ -n "$ans" ]
}
`
