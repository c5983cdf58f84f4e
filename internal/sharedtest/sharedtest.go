// Package sharedtest finds the development-only oracle folder for tests:
// the official MCP JSON schemas and the spec notes that sit beside the
// project's checkout (../shared), never inside it and never read by the
// product at run time. A plain clone has no such folder: the tests that
// use it skip with one line saying so. CI, which has it, sets
// MCPCONFORM_REQUIRE_SHARED=1, and then a missing folder fails the test
// instead of skipping it, so the oracle tests cannot vanish unnoticed.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv is the environment variable that turns a skip into a failure.
const RequireEnv = "MCPCONFORM_REQUIRE_SHARED"

// Root returns the folder beside the module root named "shared" (or
// $MCPCONFORM_SHARED_DIR), or skips the test when it is absent.
func Root(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCPCONFORM_SHARED_DIR")
	if dir == "" {
		mod, err := moduleRoot()
		if err != nil {
			absent(t, "the module root", err)
			return ""
		}
		dir = filepath.Join(filepath.Dir(mod), "shared")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		absent(t, dir, err)
	}
	return dir
}

// Path returns a file or folder inside the shared folder, or skips the test
// when it is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Root(t)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		absent(t, p, err)
	}
	return p
}

// Schemas returns the folder of the official JSON schemas (one folder per
// revision), or $MCPCONFORM_SCHEMA_DIR when set.
func Schemas(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("MCPCONFORM_SCHEMA_DIR"); dir != "" {
		return dir
	}
	return Path(t, "mcp-schema")
}

func absent(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("the development-only oracle folder is required (%s=1) but %s is absent: %v", RequireEnv, what, err)
	}
	t.Skipf("skipped: needs the development-only oracle folder beside the checkout (../shared), absent here: %v", err)
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
