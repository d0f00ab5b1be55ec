package main

import (
	"embed"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// helpFiles holds every verb's long help, help/<verb>.txt (hidden verbs'
// too).
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpOf returns the long help of the verb name, with {RefVersion}
// standing for experiment.RefVersion; "" when it has none.
func helpOf(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(b), "{RefVersion}", experiment.RefVersion)
}
