// Package trigger describes the user's catalog_change (config file): what
// the checks that need the server's catalog to change, and the fuzzer's
// sequences, fire. It depends on nothing of the suite, so the fuzzer can
// use it without the suite's test framework.
package trigger

import "strings"

// Trigger is the user's way to change the server's catalog at run time
// (config catalog_change): a tool to call with arguments — called whatever
// the call policy, because the user named it —, or a command to run.
// Restore, when given, puts the catalog back after the check.
type Trigger struct {
	Tool      string
	Arguments map[string]any
	Command   []string
	Restore   *Trigger
}

// Describe names the trigger for messages.
func (tr *Trigger) Describe() string {
	if tr.Tool != "" {
		return "the tool " + tr.Tool
	}
	return "the command " + strings.Join(tr.Command, " ")
}
