// Package catalogchange describes the user's way to change a server's
// catalog at run time (the config key catalog_change), which the suite's
// STALE and SUB checks and the fuzzer's state machines fire. It has no
// test framework in it: the fuzzer uses it without the suite.
package catalogchange

import "strings"

// Trigger is a catalog change: a tool to call with arguments — called
// whatever the call policy, because the user named it —, or a command to
// run. Restore, when given, puts the catalog back.
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
