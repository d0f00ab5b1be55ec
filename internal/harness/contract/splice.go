package contract

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
)

// splice returns upstream's test file src with the top-level functions
// named in tests replaced by their versions in series (the series' version
// of the same file): the tests a patch declares deliberately changed keep
// the patch's form, everything else of the file is upstream's. It returns
// the names it replaced; names missing from either version are skipped.
func splice(src, series []byte, tests []string) ([]byte, []string, error) {
	up, err := funcs(src)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing upstream's version: %w", err)
	}
	ours, err := funcs(series)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing the series' version: %w", err)
	}
	type repl struct {
		start, end int
		text       []byte
		name       string
	}
	var rs []repl
	for _, name := range tests {
		u, ok1 := up[name]
		o, ok2 := ours[name]
		if !ok1 || !ok2 {
			continue
		}
		rs = append(rs, repl{u[0], u[1], series[o[0]:o[1]], name})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start > rs[j].start })
	out := append([]byte(nil), src...)
	var names []string
	for _, r := range rs {
		var b bytes.Buffer
		b.Write(out[:r.start])
		b.Write(r.text)
		b.Write(out[r.end:])
		out = b.Bytes()
		names = append(names, r.name)
	}
	sort.Strings(names)
	return out, names, nil
}

// funcs maps the file's top-level plain functions to their byte ranges,
// doc comments included.
func funcs(src []byte) (map[string][2]int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	out := map[string][2]int{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil {
			continue
		}
		start := fd.Pos()
		if fd.Doc != nil {
			start = fd.Doc.Pos()
		}
		out[fd.Name.Name] = [2]int{fset.Position(start).Offset, fset.Position(fd.End()).Offset}
	}
	return out, nil
}
