package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// longFunc is how many lines a function may run before its doc comment
// must say its phases.
const longFunc = 100

// TestLongFunctionsSayTheirPhases fails when a function of the module's
// non-test code runs over longFunc lines (from func to its closing brace)
// without a doc comment: a reader of a long function needs to know its
// phases before reading it (or the function needs splitting).
func TestLongFunctionsSayTheirPhases(t *testing.T) {
	long, undocumented := longFunctions(t, filepath.Join("..", ".."))
	for _, f := range undocumented {
		t.Errorf("%s runs over %d lines without a doc comment: say its phases, or split it", f, longFunc)
	}
	if long == 0 {
		t.Error("no function over the limit found: the walk read nothing")
	}
	t.Logf("%d functions over %d lines", long, longFunc)
}

// longFunctions returns how many non-test functions under root run over
// longFunc lines, and those of them without a doc comment
// (path:line name, lines).
func longFunctions(t *testing.T, root string) (int, []string) {
	t.Helper()
	long := 0
	var undocumented []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > longFunc {
				long++
				if fd.Doc == nil || strings.TrimSpace(fd.Doc.Text()) == "" {
					rel, _ := filepath.Rel(root, path)
					undocumented = append(undocumented, rel+":"+strconv.Itoa(start.Line)+" "+fd.Name.Name+" ("+strconv.Itoa(n)+" lines)")
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return long, undocumented
}
