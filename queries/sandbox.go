package queries

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrRefusedSQL marks a statement of a user's query that ub refuses to
// run: one that would install or load a DuckDB extension (native code,
// fetched from the network) or attach a database that is not a local file.
var ErrRefusedSQL = errors.New("refused")

// noExtensions is DuckDB's extension directory for every workspace: a
// path below /dev/null, which no system lets anyone create, so that
// neither an INSTALL that got through nor an autoload finds or writes an
// extension.
const noExtensions = "/dev/null/ub-installs-no-extensions"

// extensionSettings are DuckDB's settings of every workspace connection,
// set when it is opened: nothing is installed or loaded on its own, and
// no community extension at all.
const extensionSettings = "autoinstall_known_extensions=false&autoload_known_extensions=false&allow_community_extensions=false&extension_directory=" + noExtensions

// lockConfiguration locks DuckDB's configuration of c for the rest of its
// life (DuckDB's lock_configuration): a SET, RESET or PRAGMA of the user's
// query that would change a setting, such as turning autoinstalling back
// on, is refused by DuckDB. ub's own settings are applied before.
func lockConfiguration(ctx context.Context, db Querier) error {
	locked, err := ConfigurationLocked(ctx, db)
	if err != nil {
		return fmt.Errorf("lock the configuration: %w", err)
	}
	if locked {
		return nil
	}
	if _, err := db.ExecContext(ctx, "SET lock_configuration = true"); err != nil {
		return fmt.Errorf("lock the configuration: %w", err)
	}
	return nil
}

// ConfigurationLocked says whether DuckDB's configuration is locked
// (lockConfiguration has run on this instance): no setting can change.
func ConfigurationLocked(ctx context.Context, db Querier) (bool, error) {
	var locked bool
	err := db.QueryRowContext(ctx, "SELECT current_setting('lock_configuration')").Scan(&locked)
	return locked, err
}

// remoteRE is a path with a scheme (http://, s3://, md:, hf://, ...): not
// a local file.
var remoteRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:(//)?`)

// CheckUserSQL refuses a query of a user (ub sql, ub export --query) any
// of whose statements installs (INSTALL, FORCE INSTALL, UPDATE
// EXTENSIONS) or loads (LOAD) an extension, or attaches a database that
// is not a local file. It looks at the statements as DuckDB's parser
// splits them: comments and quoted text are skipped, keywords are case-
// insensitive.
func CheckUserSQL(query string) error {
	for _, st := range splitStatements(query) {
		if len(st) == 0 {
			continue
		}
		kw := func(i int) string {
			if i < len(st) && !st[i].quoted {
				return strings.ToUpper(st[i].text)
			}
			return ""
		}
		switch {
		case kw(0) == "INSTALL", kw(0) == "FORCE" && kw(1) == "INSTALL", kw(0) == "UPDATE" && kw(1) == "EXTENSIONS":
			what := kw(0)
			if what != "INSTALL" {
				what += " " + kw(1)
			}
			return fmt.Errorf("%w: %s: ub never installs a DuckDB extension", ErrRefusedSQL, what)
		case kw(0) == "LOAD":
			return fmt.Errorf("%w: LOAD: ub never loads a DuckDB extension", ErrRefusedSQL)
		case kw(0) == "ATTACH":
			i := 1
			if kw(i) == "DATABASE" {
				i++
			}
			if kw(i) == "IF" && kw(i+1) == "NOT" && kw(i+2) == "EXISTS" {
				i += 3
			}
			if i >= len(st) {
				continue // DuckDB's parser says what is wrong
			}
			target := st[i].text
			if !st[i].quoted || remoteRE.MatchString(target) && !strings.HasPrefix(strings.ToLower(target), "file:") {
				return fmt.Errorf("%w: ATTACH %s: ub attaches local database files only", ErrRefusedSQL, target)
			}
		}
	}
	return nil
}

// lockedRE is DuckDB's refusal of a setting changed once the
// configuration is locked.
var lockedRE = regexp.MustCompile(`the configuration has been locked`)

// ErrQuery marks DuckDB's error of a user's query (ub sql, ub export
// --query) that is the query's own: its syntax, a name or type it does not
// know, a value it cannot convert, a write on a workspace opened read-only,
// a constraint it breaks. The message is DuckDB's, unchanged. A fault of
// the machine (I/O, memory) or of DuckDB itself is not one.
var ErrQuery = errors.New("query rejected")

// queryFaultRE matches the types of DuckDB's errors that a query's own
// text or values cause, as DuckDB writes them first in the message.
var queryFaultRE = regexp.MustCompile(`^(Parser|Syntax|Binder|Catalog|Conversion|Out of Range|Invalid Input|Constraint|Dependency|Not implemented|Mismatch Type|Invalid type|Unknown Type|Decimal|Divide by Zero|Expression|Parameter Not Resolved|Parameter Not Allowed|Sequence|Permission) Error: `)

// queryError is a DuckDB error of a user's query: ErrQuery, with
// DuckDB's message.
type queryError struct{ err error }

func (e queryError) Error() string   { return e.err.Error() }
func (e queryError) Unwrap() []error { return []error{e.err, ErrQuery} }

// userQueryError marks err as ErrQuery when DuckDB gave it for the query's
// own sake (queryFaultRE); any other error is returned as it is.
func userQueryError(err error) error {
	if err != nil && !errors.Is(err, ErrRefusedSQL) && !errors.Is(err, ErrQuery) && queryFaultRE.MatchString(err.Error()) {
		return queryError{err}
	}
	return err
}

// refusedByDuckDB marks DuckDB's refusal of a locked setting as ub's own.
func refusedByDuckDB(err error) error {
	if err != nil && lockedRE.MatchString(err.Error()) {
		return fmt.Errorf("%w: %v (ub's settings of DuckDB are locked: no extension is installed or loaded)", ErrRefusedSQL, err)
	}
	return err
}

type token struct {
	text   string
	quoted bool // a '...' string (its text unquoted); "..." identifiers are quoted too
}

// splitStatements cuts query into statements of tokens: words, quoted
// strings and identifiers, and single punctuation characters; -- and /* */
// comments are dropped; a ; ends a statement.
func splitStatements(query string) [][]token {
	var out [][]token
	var cur []token
	s := query
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == ';':
			out = append(out, cur)
			cur = nil
			s = s[1:]
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s = s[1:]
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
			} else {
				s = ""
			}
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s[2:], "*/"); i >= 0 {
				s = s[i+4:]
			} else {
				s = ""
			}
		case c == '\'' || c == '"':
			var b strings.Builder
			i := 1
			for i < len(s) {
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c { // doubled quote
						b.WriteByte(c)
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			cur = append(cur, token{text: b.String(), quoted: true})
			s = s[i:]
		case isWordByte(c):
			i := 1
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			cur = append(cur, token{text: s[:i]})
			s = s[i:]
		default:
			cur = append(cur, token{text: s[:1]})
			s = s[1:]
		}
	}
	return append(out, cur)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
