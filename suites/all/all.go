// Package all assembles every area's checks into one spec tree. Import it
// (blank) to run the whole suite; its init registers the "not applicable"
// container last, so it sees what every area registered.
package all

import (
	"github.com/mcpconform/mcpconform/internal/conform"

	_ "github.com/mcpconform/mcpconform/suites/auth"
	_ "github.com/mcpconform/mcpconform/suites/caching"
	_ "github.com/mcpconform/mcpconform/suites/client"
	_ "github.com/mcpconform/mcpconform/suites/completion"
	_ "github.com/mcpconform/mcpconform/suites/http"
	_ "github.com/mcpconform/mcpconform/suites/jsonrpc"
	_ "github.com/mcpconform/mcpconform/suites/lifecycle"
	_ "github.com/mcpconform/mcpconform/suites/mrtr"
	_ "github.com/mcpconform/mcpconform/suites/pagination"
	_ "github.com/mcpconform/mcpconform/suites/prompts"
	_ "github.com/mcpconform/mcpconform/suites/resources"
	_ "github.com/mcpconform/mcpconform/suites/serverrequests"
	_ "github.com/mcpconform/mcpconform/suites/staleness"
	_ "github.com/mcpconform/mcpconform/suites/stdio"
	_ "github.com/mcpconform/mcpconform/suites/subscriptions"
	_ "github.com/mcpconform/mcpconform/suites/tasks"
	_ "github.com/mcpconform/mcpconform/suites/tools"
	_ "github.com/mcpconform/mcpconform/suites/utilities"
)

var _ = conform.NotApplicable()
