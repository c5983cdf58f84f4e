package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/policy"
)

// Print writes a human summary: identity, revision (and the other eras the
// server answered), capabilities, instructions, the catalog and notes.
// Server text is untrusted: control characters and terminal escape
// sequences are removed, and the output is redacted.
func (in *Inspection) Print(w io.Writer) {
	var b strings.Builder
	field := func(label, value string) { fmt.Fprintf(&b, "%-13s %s\n", label, value) }

	field("Server", describeServer(in.ServerInfo))
	field("Target", clean(in.Target)+" ("+in.Transport+")")
	rev := string(in.Revision)
	if in.Revision.IsLegacy() {
		rev += " (initialize)"
	} else {
		rev += " (server/discover, per-request _meta)"
	}
	var others []string
	for _, e := range in.Eras {
		if e != in.Revision {
			others = append(others, string(e))
		}
	}
	if len(others) > 0 {
		rev += "; the server also answers " + strings.Join(others, ", ") + " (--revision to choose)"
	}
	field("Revision", rev)
	if len(in.SupportedVersions) > 0 {
		vs := make([]string, len(in.SupportedVersions))
		for i, v := range in.SupportedVersions {
			vs[i] = clean(v)
		}
		field("Supports", strings.Join(vs, ", ")+" (server/discover supportedVersions)")
	}
	field("Capabilities", describeCapabilities(in.Capabilities))
	if in.Instructions != "" {
		lines := strings.Split(cleanText(in.Instructions), "\n")
		field("Instructions", clipString(lines[0], 200))
		shown := 0
		for i, l := range lines[1:] {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if shown == 9 {
				fmt.Fprintf(&b, "%-13s … (%d more lines)\n", "", len(lines)-1-i)
				break
			}
			fmt.Fprintf(&b, "%-13s %s\n", "", clipString(l, 200))
			shown++
		}
	}
	callable := len(in.Callable())
	field("Call policy", fmt.Sprintf("%s: %d of %d tools callable (%s %s)", in.Policy, callable, len(in.Tools), policy.Flag, strings.Join(policy.Names(), "|")))

	if in.declared("tools") || len(in.Tools) > 0 {
		fmt.Fprintf(&b, "\nTools (%d)\n", len(in.Tools))
		for _, t := range in.Tools {
			req, opt := requiredArgs(t)
			args := make([]string, 0, len(req)+1)
			for _, r := range req {
				args = append(args, clean(r))
			}
			if len(opt) > 0 {
				o := make([]string, len(opt))
				for i, x := range opt {
					o[i] = clean(x)
				}
				args = append(args, "["+strings.Join(o, ", ")+"]")
			}
			line := "  " + clean(itemString(t, "name")) + "(" + strings.Join(args, ", ") + ")"
			if v, _ := policy.ReadOnlyHint(t); v {
				line += " [read-only]"
			} else if ok, _ := in.Policy.Allows(t); !ok {
				line += " [not called under " + in.Policy.String() + "]"
			}
			if d := firstLine(itemString(t, "description")); d != "" {
				line += " — " + d
			}
			b.WriteString(line + "\n")
		}
	}
	if in.declared("resources") || len(in.Resources)+len(in.ResourceTemplates) > 0 {
		fmt.Fprintf(&b, "\nResources (%d)\n", len(in.Resources))
		for _, r := range in.Resources {
			b.WriteString("  " + describeResource(r, "uri") + "\n")
		}
		fmt.Fprintf(&b, "\nResource templates (%d)\n", len(in.ResourceTemplates))
		for _, r := range in.ResourceTemplates {
			b.WriteString("  " + describeResource(r, "uriTemplate") + "\n")
		}
	}
	if in.declared("prompts") || len(in.Prompts) > 0 {
		fmt.Fprintf(&b, "\nPrompts (%d)\n", len(in.Prompts))
		for _, p := range in.Prompts {
			b.WriteString("  " + describePrompt(p) + "\n")
		}
	}
	if len(in.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range in.Notes {
			b.WriteString("  - " + clean(n) + "\n")
		}
	}
	io.WriteString(w, in.redact(b.String()))
}

func describeServer(raw json.RawMessage) string {
	var si struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &si) != nil {
		return "(no serverInfo)"
	}
	s := clean(si.Name)
	if s == "" {
		s = "(unnamed)"
	}
	if si.Version != "" {
		s += " " + clean(si.Version)
	}
	if si.Title != "" {
		s += " — " + clean(si.Title)
	}
	return s
}

// describeCapabilities lists the capability names, sorted, with the
// sub-capabilities that are true: "tools (listChanged)".
func describeCapabilities(raw json.RawMessage) string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return "(none)"
	}
	names := make([]string, 0, len(caps))
	for k, v := range caps {
		if string(v) == "null" {
			continue
		}
		names = append(names, k)
	}
	if len(names) == 0 {
		return "(none)"
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		var sub map[string]json.RawMessage
		var flags []string
		if json.Unmarshal(caps[k], &sub) == nil {
			for sk, sv := range sub {
				if string(sv) == "true" {
					flags = append(flags, clean(sk))
				}
			}
		}
		sort.Strings(flags)
		parts[i] = clean(k)
		if len(flags) > 0 {
			parts[i] += " (" + strings.Join(flags, ", ") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func describeResource(raw json.RawMessage, uriKey string) string {
	s := clean(itemString(raw, uriKey))
	var extra []string
	if n := itemString(raw, "name"); n != "" {
		extra = append(extra, clean(n))
	}
	if m := itemString(raw, "mimeType"); m != "" {
		extra = append(extra, clean(m))
	}
	if len(extra) > 0 {
		s += "  " + strings.Join(extra, ", ")
	}
	if d := firstLine(itemString(raw, "description")); d != "" {
		s += " — " + d
	}
	return s
}

func describePrompt(raw json.RawMessage) string {
	var p struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(raw, &p)
	var req, opt []string
	for _, a := range p.Arguments {
		if a.Required {
			req = append(req, clean(a.Name))
		} else {
			opt = append(opt, clean(a.Name))
		}
	}
	if len(opt) > 0 {
		req = append(req, "["+strings.Join(opt, ", ")+"]")
	}
	s := clean(p.Name) + "(" + strings.Join(req, ", ") + ")"
	if d := firstLine(p.Description); d != "" {
		s += " — " + d
	}
	return s
}

// firstLine returns the first non-empty line of s, cleaned and clipped.
func firstLine(s string) string {
	for _, l := range strings.Split(cleanText(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return clipString(l, 160)
		}
	}
	return ""
}

// PrintCall writes the outcome of a call readably (text content as text,
// other content summarised) and then the record as indented JSON. Server
// text is cleaned of control characters; the output is redacted.
func (in *Inspection) PrintCall(w io.Writer, rec *CallRecord) {
	if rec == nil {
		return
	}
	var b strings.Builder
	head := fmt.Sprintf("Call %s → %s", clean(rec.Tool), rec.Layer)
	var meta []string
	if rec.HTTPStatus != 0 {
		meta = append(meta, fmt.Sprintf("HTTP %d", rec.HTTPStatus))
	}
	meta = append(meta, fmt.Sprintf("%.1f ms", rec.DurationMs))
	b.WriteString(head + " (" + strings.Join(meta, ", ") + ")\n")
	b.WriteString("  arguments: " + clean(string(rec.Arguments)) + "\n")

	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(rec.Response, &msg)
	switch rec.Layer {
	case LayerTransport:
		b.WriteString("  transport failure: " + clean(rec.Error) + "\n")
		if rec.Body != "" {
			b.WriteString("  body: " + clipString(clean(rec.Body), 500) + "\n")
		}
	case LayerJSONRPC:
		if msg.Error != nil {
			fmt.Fprintf(&b, "  JSON-RPC error %s: %s\n", clean(string(msg.Error.Code)), clean(msg.Error.Message))
			if len(msg.Error.Data) > 0 {
				b.WriteString("  data: " + clipString(clean(string(msg.Error.Data)), 500) + "\n")
			}
		}
	case LayerInputRequired:
		var res struct {
			InputRequests map[string]struct {
				Method string `json:"method"`
			} `json:"inputRequests"`
			RequestState *string `json:"requestState"`
		}
		_ = json.Unmarshal(msg.Result, &res)
		keys := make([]string, 0, len(res.InputRequests))
		for k := range res.InputRequests {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  input request %s: %s\n", clean(k), clean(res.InputRequests[k].Method))
		}
		if res.RequestState != nil {
			b.WriteString("  requestState: present\n")
		}
	default:
		printResult(&b, msg.Result, rec.Layer == LayerTool)
	}
	for _, n := range rec.Notes {
		b.WriteString("  note: " + clean(n) + "\n")
	}
	b.WriteString("\nRecord\n")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		fmt.Fprintf(&b, "(the record could not be encoded: %v)\n", err)
	} else {
		b.Write(escapeUnsafe(buf.Bytes()))
	}
	io.WriteString(w, in.redact(b.String()))
}

// printResult renders a CallToolResult's content blocks.
func printResult(b *strings.Builder, raw json.RawMessage, isError bool) {
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if json.Unmarshal(raw, &res) != nil {
		b.WriteString("  (the result is not an object)\n")
		return
	}
	if isError {
		b.WriteString("  the tool reported an error (isError: true):\n")
	}
	if len(res.Content) == 0 {
		b.WriteString("  (no content)\n")
	}
	for _, c := range res.Content {
		var blk struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			MIMEType string `json:"mimeType"`
			Data     string `json:"data"`
			URI      string `json:"uri"`
			Name     string `json:"name"`
			Resource *struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
				Blob     string `json:"blob"`
			} `json:"resource"`
		}
		if json.Unmarshal(c, &blk) != nil {
			b.WriteString("  [a content block that is not an object]\n")
			continue
		}
		switch blk.Type {
		case "text":
			for _, l := range strings.Split(clipString(cleanText(blk.Text), 4000), "\n") {
				b.WriteString("    " + l + "\n")
			}
		case "image", "audio":
			fmt.Fprintf(b, "  [%s %s, %d bytes of base64 data]\n", blk.Type, clean(blk.MIMEType), len(blk.Data))
		case "resource_link":
			fmt.Fprintf(b, "  [resource link %s %s %s]\n", clean(blk.URI), clean(blk.Name), clean(blk.MIMEType))
		case "resource":
			if blk.Resource == nil {
				b.WriteString("  [embedded resource without a resource object]\n")
				continue
			}
			fmt.Fprintf(b, "  [embedded resource %s %s]\n", clean(blk.Resource.URI), clean(blk.Resource.MIMEType))
			switch {
			case blk.Resource.Text != "":
				for _, l := range strings.Split(clipString(cleanText(blk.Resource.Text), 2000), "\n") {
					b.WriteString("    " + l + "\n")
				}
			case blk.Resource.Blob != "":
				fmt.Fprintf(b, "    (%d bytes of base64 data)\n", len(blk.Resource.Blob))
			}
		default:
			fmt.Fprintf(b, "  [content of type %q]\n", clean(blk.Type))
		}
	}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		b.WriteString("  structuredContent: " + clipString(clean(string(res.StructuredContent)), 1000) + "\n")
	}
}

// Terminal escape sequences (7-bit and C1 forms): CSI, OSC, DCS/SOS/PM/APC
// strings, and two-byte escapes.
var escapeSeq = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]?" +
	"|\x1b\\][^\x07\x1b\u009c]*(?:\x07|\x1b\\\\|\u009c)?" +
	"|\x1b[PX^_][^\x1b\u009c]*(?:\x1b\\\\|\u009c)?" +
	"|\x1b[ -/]*[0-~]?" +
	"|\u009b[0-?]*[ -/]*[@-~]?" +
	"|\u009d[^\x07\x1b\u009c]*(?:\x07|\x1b\\\\|\u009c)?" +
	"|[\u0090\u0098\u009e\u009f][^\x1b\u009c]*(?:\x1b\\\\|\u009c)?")

// invisible reports runes that reorder or hide text on a terminal
// (bidirectional controls, zero-width marks) besides Unicode controls.
func invisible(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f', r == '\ufeff',
		r >= '\u202a' && r <= '\u202e',
		r >= '\u2066' && r <= '\u2069',
		r == '\u2028', r == '\u2029':
		return true
	}
	return false
}

// cleanText removes escape sequences, control characters (keeping newline
// and tab) and invisible formatting from untrusted text.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = escapeSeq.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\u2028' || r == '\u2029':
			return '\n'
		case unicode.IsControl(r) || invisible(r):
			return -1
		}
		return r
	}, s)
}

// clean is cleanText for one line: newlines and tabs become spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, cleanText(s))
}

// escapeUnsafe rewrites, in valid JSON text, the characters a terminal may
// act on that JSON allows unescaped (DEL, C1 controls, bidirectional and
// invisible formatting, invalid UTF-8) as \u escapes. Such characters can
// only occur inside strings, where the escape means the same.
func escapeUnsafe(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			out.WriteString(`\ufffd`)
		case r < 0x20 && r != '\n' && r != '\t' && r != '\r':
			fmt.Fprintf(&out, `\u%04x`, r)
		case unicode.IsControl(r) && r >= 0x7f, invisible(r):
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.Bytes()
}
