// Command server stands in for your MCP server: it is mcpconform's
// after-sales reference fixture over stdio (`server --mutant NAME` serves
// one of its deliberately broken variants, to see a campaign fail).
package main

import (
	"os"

	"github.com/mcpconform/mcpconform/fixtures"
)

func main() {
	os.Exit(fixtures.Main(append([]string{"aftersales"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
}
