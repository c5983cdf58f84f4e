// Package prompts checks prompts/list, prompts/get (PRM) and
// completion/complete (CMP).
package prompts
