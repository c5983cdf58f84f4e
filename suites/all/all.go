// Package all assembles every area's checks into one spec tree. Import it
// (blank) to run the whole suite; its init registers the "not applicable"
// container last, so it sees what every area registered.
package all

import (
	"github.com/mcpconform/mcpconform/internal/conform"

	_ "github.com/mcpconform/mcpconform/suites/jsonrpc"
	_ "github.com/mcpconform/mcpconform/suites/lifecycle"
	_ "github.com/mcpconform/mcpconform/suites/stdio"
)

var _ = conform.NotApplicable()
