package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// SARIF 2.1.0 output (sarif.json), the format GitHub code scanning and
// other static-analysis dashboards ingest. One SARIF rule per requirement
// that has a finding, one SARIF result per FAIL, WARN or ERROR result (PASS
// and NA are counted in the run's properties, not listed). A baselined
// result carries an external suppression with the baseline's reason.
//
// A SARIF result needs a location in a file of the analysed repository.
// A conformance finding is about the server as a whole, so the location is
// the file that names the target: the --config file when there is one,
// else the first argument of the stdio command that is a relative path to
// an existing file (e.g. build/index.js), else the command name or URL.
// The revision and transport go into a logical location.

func init() {
	register(format{Name: "sarif", File: "sarif.json", Order: 10, Help: "SARIF 2.1.0 for code scanning", Write: WriteSARIF})
}

const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	Invocations       []sarifInvocation `json:"invocations"`
	AutomationDetails *sarifAutomation  `json:"automationDetails,omitempty"`
	Results           []sarifResult     `json:"results"`
	Properties        map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	Help                 *sarifText     `json:"help,omitempty"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConf  `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	StartTimeUTC        string `json:"startTimeUtc,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Kind                string             `json:"kind"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// SARIF renders the report as a SARIF 2.1.0 log.
func SARIF(r *Report) ([]byte, error) {
	uri := sarifArtifactURI(r.Target)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: r.Tool.Name, Version: r.Tool.Version,
			InformationURI: "https://modelcontextprotocol.io/specification",
			Rules:          []sarifRule{},
		}},
		Invocations:       []sarifInvocation{{ExecutionSuccessful: !r.Interrupted, StartTimeUTC: r.StartedAt.UTC().Format("2006-01-02T15:04:05.000Z")}},
		AutomationDetails: &sarifAutomation{ID: "mcpconform/" + r.Target.Transport + "/"},
		Results:           []sarifResult{},
		Properties: map[string]any{
			"revisions": r.Revisions, "transport": r.Target.Transport,
			"counts": r.Summary.Counts, "passed": r.Summary.Passed, "hollow": r.Summary.Hollow,
		},
	}
	ruleIndex := map[string]int{}
	for _, res := range r.Results {
		level, ok := sarifLevel(res.Verdict)
		if !ok {
			continue
		}
		idx, seen := ruleIndex[res.Requirement]
		if !seen {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[res.Requirement] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(res))
		}
		msg := res.Message
		if res.Verdict == result.ERROR {
			msg = "could not be judged (ERROR, not a protocol verdict): " + msg
		}
		if res.Expected != "" {
			msg += "\nexpected: " + res.Expected
		}
		if res.Actual != "" {
			msg += "\nactual: " + res.Actual
		}
		if strings.TrimSpace(msg) == "" {
			msg = res.Title
		}
		where := res.Revision + "/" + res.Transport
		sr := sarifResult{
			RuleID: res.Requirement, RuleIndex: idx, Kind: "fail", Level: level,
			Message: sarifText{Text: msg},
			Locations: []sarifLocation{{
				PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}},
				LogicalLocations: []sarifLogical{{Name: where, FullyQualifiedName: res.Requirement + "@" + where, Kind: "module"}},
			}},
			PartialFingerprints: map[string]string{"mcpconform/v1": fingerprint(res.Requirement, res.Revision, res.Transport)},
			Properties: map[string]any{
				"verdict": res.Verdict, "level": res.Level, "revision": res.Revision, "transport": res.Transport,
			},
		}
		if res.Baselined {
			sr.Suppressions = []sarifSuppression{{Kind: "external", Justification: res.BaselineReason}}
		}
		run.Results = append(run.Results, sr)
	}
	sarifContract(&run, r.Contract, uri)
	return json.MarshalIndent(sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}, "", "  ")
}

// sarifContract adds the contract gate's findings: the rule ids of the
// contract catalog, located in the contract file (line and JSON pointer)
// or, for lints without one, at the target.
func sarifContract(run *sarifRun, c *Contract, targetURI string) {
	if c == nil {
		return
	}
	ruleIndex := map[string]int{}
	for _, f := range c.Findings {
		level := map[string]string{"ERR": "error", "WARN": "warning"}[f.Level]
		if level == "" {
			level = "note"
		}
		idx, seen := ruleIndex[f.Rule]
		if !seen {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[f.Rule] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: f.Rule, ShortDescription: sarifText{Text: f.Rule},
				FullDescription: &sarifText{Text: f.Why}, DefaultConfiguration: sarifRuleConf{Level: level},
				Properties: map[string]any{"category": f.Category, "kind": "contract"}})
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: targetURI}}}
		if c.File != "" {
			loc.PhysicalLocation.ArtifactLocation.URI = filepath.ToSlash(c.File)
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
		}
		loc.LogicalLocations = []sarifLogical{{Name: f.Subject, FullyQualifiedName: f.Pointer(), Kind: "member"}}
		sr := sarifResult{RuleID: f.Rule, RuleIndex: idx, Kind: "fail", Level: level, Message: sarifText{Text: f.Message},
			Locations: []sarifLocation{loc}, PartialFingerprints: map[string]string{"mcpconform-contract/v1": f.Fingerprint},
			Properties: map[string]any{"category": f.Category, "revisions": f.Revisions, "profile": f.Profile, "level": f.Level}}
		if f.Accepted {
			sr.Suppressions = []sarifSuppression{{Kind: "external", Justification: f.Reason}}
		}
		run.Results = append(run.Results, sr)
	}
}

// WriteSARIF writes sarif.json into dir.
func WriteSARIF(dir string, r *Report) (string, error) {
	b, err := SARIF(r)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "sarif.json")
	return path, writeFile(path, append(b, '\n'))
}

// sarifLevel maps a verdict to a SARIF level; PASS and NA are not results.
func sarifLevel(verdict Verdict) (string, bool) {
	switch verdict {
	case result.FAIL, result.ERROR:
		return "error", true
	case result.WARN:
		return "warning", true
	}
	return "", false
}

func sarifRuleOf(res Result) sarifRule {
	rule := sarifRule{
		ID:                   res.Requirement,
		Name:                 strings.ReplaceAll(res.Requirement, "-", ""),
		ShortDescription:     sarifText{Text: res.Title},
		DefaultConfiguration: sarifRuleConf{Level: "error"},
		Properties:           map[string]any{"tags": []string{"mcp", "conformance", res.Area}},
	}
	if req, ok := catalog.Get(res.Requirement); ok {
		rule.ShortDescription.Text = req.Title
		rule.FullDescription = &sarifText{Text: req.Statement}
		links := req.Links(catalog.Revision(res.Revision))
		rule.Help = &sarifText{Text: req.Statement + "\nlevel: " + req.SpecLevel + "\nspec: " + strings.Join(links, " ")}
		if len(links) > 0 {
			rule.HelpURI = links[0]
		}
		if req.Level != catalog.MUST {
			rule.DefaultConfiguration.Level = "warning"
		}
	}
	if rule.ShortDescription.Text == "" {
		rule.ShortDescription.Text = res.Requirement
	}
	return rule
}

// sarifArtifactURI is the file a finding is located in (see the package
// comment above): the config file, the stdio command's script, or the
// command name / URL.
func sarifArtifactURI(t Target) string {
	if t.Config != "" {
		return filepath.ToSlash(t.Config)
	}
	for _, a := range t.Command {
		if a == "" || strings.HasPrefix(a, "-") || filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err == nil && !fi.IsDir() {
			return filepath.ToSlash(filepath.Clean(a))
		}
	}
	if len(t.Command) > 0 {
		return filepath.ToSlash(filepath.Base(t.Command[0]))
	}
	if t.URL != "" {
		return t.URL
	}
	return "."
}

func fingerprint(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}
