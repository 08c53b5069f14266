package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestDocsNameCode fails when README.md or a page of docs/ names, in
// backticks, a piece of Go code that the module does not have, so that a
// renamed or removed function cannot stay in the prose.
//
// What counts as a code name (codeNameRE, then codeNames.check):
//   - A span of identifiers joined by dots, optionally ending in "()":
//     `pkg.Name`, `Type.Method`, `funcName`, `pkg.Type.Field`, `Run()`.
//     Anything else (a command line, a flag, a path, SQL, JSON) is not.
//   - A span whose last part is a file extension (`report.md`,
//     `probes.go`, `points.jsonl`) is a file name, not code.
//   - `pkg.Name...`: the first part is the name of a package of the
//     module (its package clause; several folders may share one): Name
//     must be declared at the top level of such a package, and a third
//     part must be a method or field of a type called Name.
//   - `Type.Member...`: the first part is a type declared in the module:
//     Member must be one of its methods or fields.
//   - Any other dotted span (`os.Exit`, tau2's `Results.load`, a JSON
//     path) names code that is not ub's and is not checked.
//   - A single identifier without underscore followed by "()" (`usagef()`)
//     must be declared in the module; with one (`duckdb_memory()`) it is
//     SQL.
//   - Any other single identifier counts only when written in mixedCase, both
//     lower- and upper-case letters and no underscore (`newApp`,
//     `ReviewStatistics`; not `ingest`, `P0`, `run_id`, `HOME`): it must
//     be declared in the module (top level, method or field, test files
//     included), or be a string the non-test code spells (a JSON key ub
//     reads, such as `parentUuid`), since data names are mixedCase too.
//     A name of other code is written qualified (`runtime.MemStats.HeapInuse`,
//     DuckDB's `ART::VerifyAppend`), and so is not checked.
func TestDocsNameCode(t *testing.T) {
	root := filepath.Join("..", "..")
	names, err := loadCodeNames(root)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range codeSpans(string(b)) {
			ok, isCode := names.check(s.text)
			if !isCode {
				continue
			}
			checked++
			if !ok {
				t.Errorf("%s:%d: `%s` names no code of the module", f, s.line, s.text)
			}
		}
	}
	if checked < 50 {
		t.Errorf("%d code names checked in %d files: the rule finds too few", checked, len(files))
	}
	t.Logf("%d code names checked in %d files", checked, len(files))
}

// TestDocsProbeRange fails when README.md or a page of docs/ writes a
// range of probes (P0-P6, P0..P6) that does not end at the last probe the
// code declares (the constants ProbeP0, ProbeP1, ... of the probes'
// package), so a new probe cannot leave the prose behind.
func TestDocsProbeRange(t *testing.T) {
	root := filepath.Join("..", "..")
	names, err := loadCodeNames(root)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for name := range names.decls {
		if m := probeConstRE.FindStringSubmatch(name); m != nil {
			k, _ := strconv.Atoi(m[1])
			last = max(last, k)
		}
	}
	if last < 7 {
		t.Fatalf("the last probe the code declares is P%d: the constants ProbeP0... were not found", last)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	ranges := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range probeRangeRE.FindAllStringSubmatch(line, -1) {
				ranges++
				if k, _ := strconv.Atoi(m[1]); k != last {
					t.Errorf("%s:%d: %q: the probes run to P%d", f, i+1, m[0], last)
				}
			}
		}
	}
	if ranges == 0 {
		t.Error("no range of probes found in the docs: the pattern is wrong")
	}
}

var (
	probeConstRE = regexp.MustCompile(`^ProbeP(\d+)$`)
	probeRangeRE = regexp.MustCompile(`\bP0 ?(?:-|–|\.\.|to) ?P(\d+)\b`)
)

// TestCodeNamesCheck runs the rule of TestDocsNameCode on a module written
// for the test: each kind of name it resolves, each it must report, and
// each it must leave alone.
func TestCodeNamesCheck(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":          "module example.com/m\n",
		"store/store.go":  "package store\n\ntype Row struct{ ID int }\n\nfunc (Row) Save() {}\n\nfunc Open() {}\n\nconst key = \"parentUuid\"\n",
		"cmd/x/main.go":   "package main\n\nfunc newApp() {}\n",
		"cmd/x/a_test.go": "package main\n\nfunc TestScripts() {}\n\nvar fixture = \"probeEpisodes\"\n",
		"testdata/t.go":   "package gone\n\nfunc fidelityFigures() {}\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, err := loadCodeNames(root)
	if err != nil {
		t.Fatal(err)
	}
	for span, want := range map[string]string{
		"store.Open": "ok", "store.Open()": "ok", "store.Row.Save": "ok", "store.Row.ID": "ok", "Row.Save": "ok",
		"newApp": "ok", "newApp()": "ok", "TestScripts": "ok", "gone()": "stale", "duckdb_memory()": "prose", "parentUuid": "ok",
		"store.Close": "stale", "store.Row.Load": "stale", "Row.Load": "stale", "fidelityFigures": "stale", "probeEpisodes()": "stale",
		"report.md": "prose", "probes.go": "prose", "os.Exit": "prose", "Results.load": "prose", "ingest": "prose",
		"P0": "prose", "run_id": "prose", "HOME": "prose", "ub sql": "prose", "--db": "prose", "store": "prose",
	} {
		ok, isCode := names.check(span)
		got := "prose"
		if isCode {
			got = map[bool]string{true: "ok", false: "stale"}[ok]
		}
		if got != want {
			t.Errorf("`%s`: %s, want %s", span, got, want)
		}
	}
}

// codeNames is what the module declares: per package name, its top-level
// names; per type name, its methods and fields; every declared name; every
// identifier-like word of its string literals and struct tags.
type codeNames struct {
	pkgs    map[string]map[string]bool
	members map[string]map[string]bool
	decls   map[string]bool
	strs    map[string]bool
}

var (
	codeNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$`)
	fileExtRE   = regexp.MustCompile(`\.(go|md|sql|jsonl?|csv|tsv|svg|png|toml|txt|txtar|duckdb|parquet|html|ya?ml|sh|py|js|css|zip|gz|log|1)$`)
	mixedCaseRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	stringWord  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// check says whether span is a code name (isCode) and, if so, whether the
// module has it (ok).
func (n *codeNames) check(span string) (ok, isCode bool) {
	if !codeNameRE.MatchString(span) || fileExtRE.MatchString(span) {
		return false, false
	}
	parts := strings.Split(strings.TrimSuffix(span, "()"), ".")
	if len(parts) == 1 {
		w := parts[0]
		if strings.HasSuffix(span, "()") && !strings.Contains(w, "_") {
			return n.decls[w], true
		}
		if !mixedCaseRE.MatchString(w) || strings.ToLower(w) == w || strings.ToUpper(w) == w {
			return false, false
		}
		return n.decls[w] || n.strs[w], true
	}
	if top, isPkg := n.pkgs[parts[0]]; isPkg {
		if !top[parts[1]] {
			return false, true
		}
		return len(parts) == 2 || n.members[parts[1]][parts[2]], true
	}
	if m, isType := n.members[parts[0]]; isType {
		return m[parts[1]], true
	}
	return false, false
}

// loadCodeNames parses every Go file under root (test files included;
// testdata, vendor and hidden folders left out).
func loadCodeNames(root string) (*codeNames, error) {
	n := &codeNames{pkgs: map[string]map[string]bool{}, members: map[string]map[string]bool{},
		decls: map[string]bool{}, strs: map[string]bool{}}
	member := func(typ, name string) {
		if n.members[typ] == nil {
			n.members[typ] = map[string]bool{}
		}
		n.members[typ][name] = true
		n.decls[name] = true
	}
	fset := token.NewFileSet()
	files := 0
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		top := n.pkgs[f.Name.Name]
		if top == nil {
			top = map[string]bool{}
			n.pkgs[f.Name.Name] = top
		}
		declare := func(name string) { top[name], n.decls[name] = true, true }
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 {
					member(recvType(d.Recv.List[0].Type), d.Name.Name)
				} else {
					declare(d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declare(s.Name.Name)
						if n.members[s.Name.Name] == nil {
							n.members[s.Name.Name] = map[string]bool{}
						}
						addFields(s.Name.Name, s.Type, member)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							declare(id.Name)
						}
					}
				}
			}
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil // the strings of tests are fixtures, not names the code reads
		}
		ast.Inspect(f, func(x ast.Node) bool {
			if lit, ok := x.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					for _, w := range stringWord.FindAllString(v, -1) {
						n.strs[w] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err == nil && files == 0 {
		err = fmt.Errorf("%s: no Go files", root)
	}
	return n, err
}

// addFields declares the fields (and the methods of an interface) of the
// type expression t as members of typ; an embedded type is a member under
// its own name.
func addFields(typ string, t ast.Expr, member func(typ, name string)) {
	var list *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return
	}
	for _, f := range list.List {
		if len(f.Names) == 0 {
			if name := recvType(f.Type); name != "" {
				member(typ, name)
			}
		}
		for _, id := range f.Names {
			member(typ, id.Name)
		}
	}
}

// recvType is the name of the type in a receiver or embedded field:
// T, *T, T[P], pkg.T.
func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// codeSpan is the text of an inline code span outside fenced blocks, and
// the line it starts on.
type codeSpan struct {
	text string
	line int
}

// codeSpans returns the inline code spans of Markdown text (fenced code
// blocks left out), their text trimmed of one space each side.
func codeSpans(text string) []codeSpan {
	var out []codeSpan
	fence := ""
	var prose strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			line = "\n"[:strings.Count(line, "\n")]
		case fenceOf(trimmed) != "":
			fence = fenceOf(trimmed)
			line = "\n"[:strings.Count(line, "\n")]
		}
		prose.WriteString(line)
	}
	s := prose.String()
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
		end := strings.Index(s[i+n:], strings.Repeat("`", n))
		for end >= 0 && i+n+end+n < len(s) && s[i+n+end+n] == '`' { // a longer run is not the closer
			next := strings.Index(s[i+n+end+n:], strings.Repeat("`", n))
			if next < 0 {
				end = -1
				break
			}
			end += n + next
		}
		if end < 0 {
			i += n
			continue
		}
		body := s[i+n : i+n+end]
		out = append(out, codeSpan{text: strings.TrimSpace(body), line: 1 + strings.Count(s[:i], "\n")})
		i += n + end + n
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].line < out[b].line })
	return out
}

// TestReadmeLinksEveryDocsPage fails when README.md leaves a page of docs/
// unlinked (a page nobody finds goes stale unread), or when its first link
// into docs/ is not docs/architecture.md, where a newcomer starts.
func TestReadmeLinksEveryDocsPage(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	first := ""
	for _, m := range mdLink.FindAllStringSubmatch(proseOf(string(b)), -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if !strings.HasPrefix(target, "docs/") || !strings.HasSuffix(target, ".md") {
			continue
		}
		if first == "" {
			first = target
		}
		linked[target] = true
	}
	if first != "docs/architecture.md" {
		t.Errorf("README.md's first link into docs/ is %q, want docs/architecture.md", first)
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(pages) < 10 {
		t.Fatalf("%d pages in docs/", len(pages))
	}
	for _, p := range pages {
		if name := "docs/" + filepath.Base(p); !linked[name] {
			t.Errorf("README.md does not link %s", name)
		}
	}
	if n := strings.Count(string(b), "\n"); n >= 250 {
		t.Errorf("README.md has %d lines: keep it under 250, the reference belongs in docs/", n)
	}
}
