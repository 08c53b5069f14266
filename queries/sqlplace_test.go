package queries_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlText matches the opening of a SQL statement in a string literal.
var sqlText = regexp.MustCompile(`\b(SELECT\b[^"]*\bFROM|DELETE FROM|INSERT INTO|UPDATE \w+ SET|CREATE (OR REPLACE )?(TEMP )?(TABLE|VIEW)|DROP (TABLE|VIEW)|COPY \()`)

// TestSQLOnlyInQueries: no Go file of ub outside queries (tests aside)
// holds SQL text; SQL lives in queries/sql/*.sql behind a Go function.
func TestSQLOnlyInQueries(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || p == filepath.Join("..", "queries")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
					t.Errorf("%s: SQL text outside queries: %.60q", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d Go files: want the module's", checked)
	}
}
