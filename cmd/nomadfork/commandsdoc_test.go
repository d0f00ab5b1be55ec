package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/faults"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/scale"
)

// commandsDoc is the command reference generated from the command table:
// the usage, then every command's summary and its help (`nomadfork help
// <command>`). root is replaced by "." so the file is the same on every
// machine.
func commandsDoc(t *testing.T, root string) string {
	t.Helper()
	helpOf := func(args ...string) string {
		var out bytes.Buffer
		if code := run(context.Background(), append([]string{"-C", root}, args...), &out, &out); code != 0 {
			t.Fatalf("nomadfork %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
		}
		return strings.TrimRight(strings.ReplaceAll(out.String(), root, "."), "\n")
	}
	var b strings.Builder
	b.WriteString("# nomadfork commands\n\n")
	b.WriteString("Generated from the command table (`cmd/nomadfork`) by `make commands-doc`;\n")
	b.WriteString("`go test ./cmd/nomadfork` (so CI) fails when this file is stale.\n\n")
	fmt.Fprintf(&b, "```\n%s\n```\n", helpOf("help"))
	for _, c := range visible() {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n```\n%s\n```\n", c.Name, c.Summary, helpOf("help", c.Name))
	}
	return b.String()
}

// docs/commands.md is the command table's current reference, and every
// command has help of its own beyond its summary.
func TestCommandsDoc(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range prog.Commands() {
		if strings.TrimSpace(c.Help) == "" || strings.TrimSpace(c.Summary) == "" {
			t.Errorf("command %s has no summary or long help in the command table", c.Name)
		}
		if c.Hidden() {
			continue
		}
		var out bytes.Buffer
		run(context.Background(), []string{"-C", root, "help", c.Name}, &out, &out)
		if !strings.Contains(out.String(), strings.TrimSpace(c.Help)) {
			t.Errorf("nomadfork help %s does not print the long help its table entry holds", c.Name)
		}
		if lines := strings.Count(strings.TrimSpace(out.String()), "\n"); lines < 2 {
			t.Errorf("nomadfork help %s: %d lines of help, want a usage line and a description", c.Name, lines+1)
		}
	}
	want := commandsDoc(t, root)
	file := filepath.Join(root, "docs", "commands.md")
	if os.Getenv("NOMADFORK_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != want {
		t.Errorf("%s is stale (or missing: %v); run `make commands-doc`", file, err)
	}
}

// Every verb a file registers is in the usage, once, and every hidden
// verb has an entry point of its own instead of a handler.
func TestCommandTable(t *testing.T) {
	listed := map[string]int{}
	for _, name := range verbOrder {
		listed[name]++
	}
	for _, c := range prog.Commands() {
		switch {
		case c.Hidden():
			if c.Run != nil || listed[c.Name] > 0 {
				t.Errorf("hidden verb %s has a handler or is in the usage", c.Name)
			}
		case c.Run == nil:
			t.Errorf("verb %s has no handler", c.Name)
		case listed[c.Name] != 1:
			t.Errorf("verb %s is listed %d times in verbOrder, want once", c.Name, listed[c.Name])
		}
		delete(listed, c.Name)
	}
	for name := range listed {
		t.Errorf("verbOrder lists %s, which no file registers", name)
	}
	for _, hidden := range []string{sandbox.InitArg, bench.RunArg, faults.RunArg, scale.RunArg, release.UICheckArg} {
		if c := prog.Lookup(hidden); c == nil || !c.Hidden() {
			t.Errorf("hidden verb %s is not in the command table", hidden)
		}
	}
}
