package main

import (
	"fmt"
	"os"

	"github.com/nomad-client-fork/nomad-client-fork/internal/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitArg {
		os.Exit(sandbox.Init(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "sandbox" {
		argv := os.Args[2:]
		if argv[0] == "--" {
			argv = argv[1:]
		}
		if err := sandbox.Run("", nil, argv...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
