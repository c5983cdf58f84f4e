package repro

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// Finding is what a script needs of a fuzz case saved by mcpconform fuzz
// (its corpus file): the judgement, the revision and transport, and the
// shrunk messages.
type Finding struct {
	Property    string `json:"property"`
	Layer       string `json:"layer"`
	Code        string `json:"code"`
	Requirement string `json:"requirement"`
	Verdict     string `json:"verdict"`
	Detail      string `json:"detail"`
	Revision    string `json:"revision"`
	Transport   string `json:"transport"`
	Messages    []raw  `json:"messages"`
	Steps       []struct {
		Op       string `json:"op"`
		Messages []raw  `json:"messages"`
	} `json:"steps"`
}

type raw struct {
	Text   *string `json:"text"`
	Base64 string  `json:"base64"`
}

func (r raw) bytes() ([]byte, error) {
	if r.Text != nil {
		return []byte(*r.Text), nil
	}
	return base64.StdEncoding.DecodeString(r.Base64)
}

// ParseFinding reads a corpus file.
func ParseFinding(b []byte) (Finding, error) {
	var f Finding
	if err := json.Unmarshal(b, &f); err != nil {
		return f, err
	}
	if len(f.Messages) == 0 && len(f.Steps) == 0 {
		return f, fmt.Errorf("no messages or steps to replay")
	}
	return f, nil
}

// GenerateFinding returns the script reproducing a saved fuzz case
// against target (the run's target: its report, or the command line).
// A crash is judged; other findings are replayed (exit 2). The messages
// of a state machine's steps are sent in order; its DELETE and session
// reuse steps are not replayed.
func GenerateFinding(f Finding, target result.Target, opt Options) (string, error) {
	transport := f.Transport
	if opt.Transport != "" {
		transport = opt.Transport
	}
	if target.Transport != "" && target.Transport != transport {
		target = result.Target{Transport: transport}
	}
	req := f.Requirement
	if req == "" {
		req = "RPC-014"
	}
	in := input{
		requirement: req, revision: f.Revision, transport: transport, verdict: f.Verdict,
		title: f.Property + " " + f.Layer + "/" + f.Code, message: f.Detail, target: target,
		code: f.Layer + "/" + f.Code,
	}
	if in.verdict == "" {
		in.verdict = "FAIL"
	}
	if r, ok := catalog.Get(req); ok {
		in.title = r.Title + " (fuzz: " + f.Property + " " + in.code + ")"
		for _, l := range r.Links(catalog.Revision(f.Revision)) {
			in.link = l
			break
		}
	}
	var raws []raw
	raws = append(raws, f.Messages...)
	for _, st := range f.Steps {
		raws = append(raws, st.Messages...)
	}
	for i, r := range raws {
		b, err := r.bytes()
		if err != nil {
			return "", fmt.Errorf("message %d: %w", i+1, err)
		}
		m := msg{body: b}
		m.id, m.method = idAndMethod(b)
		if transport == "http" {
			m.headers = in.baseHeaders(m.method, true)
		}
		in.finding = append(in.finding, m)
	}
	return in.script()
}
