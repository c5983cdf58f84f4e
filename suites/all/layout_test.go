package all_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/conform"
)

// folderOf is the folder under suites/ that holds an area's checks: the
// area's label (area:NAME, what --label-filter selects) without hyphens,
// which Go package names cannot have.
func folderOf(area string) string {
	if f, ok := sharedFolders[area]; ok {
		return f
	}
	return strings.ReplaceAll(area, "-", "")
}

// sharedFolders are the areas whose checks still live in another area's
// folder, with the reason; each is a debt, not a pattern to follow.
var sharedFolders = map[string]string{
	// One exercise (utilities/exercise.go) calls the tools once per run
	// and the three areas judge the same traffic.
	"cancellation": "utilities",
	"progress":     "utilities",
	"logging":      "utilities",
}

// checkFolders are single checks that live outside their area's folder.
var checkFolders = map[string]string{
	// needs the authorization area's weak-token machinery (weakSession,
	// findWeakRefusal, requireProtected).
	"STALE-007": "auth",
	// judges the requests the server sent the server-request exercise's
	// sessions (requestsSeen), which declare the client
	// capabilities that make a server send requests at all.
	"RPC-009": "serverrequests",
}

// TestFoldersMatchAreas: every check is registered in the folder of its
// area (the area its id prefix gives in the catalog, which is also its
// area: label and its report group), under a Ginkgo container named after
// that area.
func TestFoldersMatchAreas(t *testing.T) {
	conform.CheckedIDs()
	sources := conform.Sources()
	if len(sources) == 0 {
		t.Fatal("no check registered")
	}
	for id, ps := range sources {
		want := folderOf(catalog.AreaOf(id))
		if f, ok := checkFolders[id]; ok {
			want = f
		}
		for _, p := range ps {
			if dir := filepath.Base(filepath.Dir(strings.Split(p, ":")[0])); dir != want {
				t.Errorf("%s (area %s) is registered at %s: want it in suites/%s", id, catalog.AreaOf(id), p, want)
			}
		}
	}
}

var (
	areaCall = regexp.MustCompile(`c\.Area\("([^"]+)"`)
	itCall   = regexp.MustCompile(`c\.It\("([A-Z]+-[0-9]+)"`)
)

// TestContainersMatchAreas: a file's c.Area containers are named after the
// areas of the checks it registers (the name leads the check's line in
// Ginkgo's output and --focus matches it).
func TestContainersMatchAreas(t *testing.T) {
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var areas []string
		for _, m := range areaCall.FindAllStringSubmatch(string(b), -1) {
			areas = append(areas, m[1])
		}
		if len(areas) == 0 {
			continue // its checks are registered from another file's container
		}
		for _, m := range itCall.FindAllStringSubmatch(string(b), -1) {
			if want := catalog.AreaOf(m[1]); !slices.Contains(areas, want) {
				t.Errorf("%s registers %s under container(s) %v: want %q", f, m[1], areas, want)
			}
		}
	}
}

// TestNoSuiteImportsAnother: what two areas share lives in internal/conform
// (or internal/session), not in one of them.
func TestNoSuiteImportsAnother(t *testing.T) {
	const prefix = "github.com/mcpconform/mcpconform/suites/"
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasPrefix(f, "../all/") {
			continue // the assembly imports every area
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, prefix) {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
