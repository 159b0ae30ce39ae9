// Command nomadish is the one binary of nomadish: agent (server, client or
// both), the CLI that talks to an agent's HTTP API, and (hidden) the driver
// plugin processes the client launches.
package main

import (
	"os"

	"github.com/nomadish/nomadish/cli"
)

func main() {
	os.Exit(cli.Run(os.Args))
}
