package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	// Skip the separator and whitespace before the value the offset precedes.
	for off < int64(len(data)) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
		off++
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// jsonStream decodes an episode or task file value by value, so that
// memory holds one simulation (or task) at a time, not the file. It counts
// the newlines read, to give each value and each syntax error its line.
// A file that is not valid JSON is one error (syntaxError): a parser keeps
// its other errors and its values until the end of the file is reached.
//
// A stream reads in one of two passes (readEpisodeFile). The exact pass
// decodes with encoding/json and words each error as json.Unmarshal does.
// The fast pass (newFastStream) decodes with encoding/json/v2 (the
// go-json-experiment module, which Go 1.27's standard library aliases) in
// encoding/json's semantics: names matched without regard to case, null
// leaves a value alone, and so on (v1.DefaultOptionsV1). It also refuses
// invalid UTF-8 and a name repeated in an object, which encoding/json
// accepts, so that what the fast pass accepts it reads exactly as the
// exact pass would. Its errors are not worded for people: a fast pass
// that meets any error is thrown away and the file read again, exactly.
type jsonStream struct {
	path string
	dec  *json.Decoder // the exact pass; nil in the fast one
	lr   *lineReader

	fast *jsontext.Decoder // the fast pass; nil in the exact one
}

// fastOptions are encoding/json's semantics in encoding/json/v2, less
// invalid UTF-8 (which encoding/json replaces with U+FFFD) and repeated
// names (where encoding/json decodes each in turn): the fast pass fails on
// both and the exact pass reads the file.
var fastOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsontext.AllowInvalidUTF8(false), jsontext.AllowDuplicateNames(false))

// errFastPass is what the fast pass says of any syntax error: the file is
// read again by the exact pass, whose words the user gets.
const errFastPass = "invalid JSON (fast pass)"

// lineReader counts the newlines read through it and keeps what was read
// since the last mark, so that a value decoded straight into a struct can
// still be hashed as the bytes it was written with.
type lineReader struct {
	r      io.Reader
	nl     int
	keep   []byte // the input from offset kept on
	kept   int64
	nokeep bool // count only (the fast pass)
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.nl += bytes.Count(p[:n], []byte("\n"))
	if !l.nokeep {
		l.keep = append(l.keep, p[:n]...)
	}
	return n, err
}

// mark forgets the input before offset off.
func (l *lineReader) mark(off int64) {
	n := copy(l.keep, l.keep[off-l.kept:])
	l.keep, l.kept = l.keep[:n], off
}

// newlineCounter counts the newlines written to it.
type newlineCounter int

func (c *newlineCounter) Write(p []byte) (int, error) {
	*c += newlineCounter(bytes.Count(p, []byte("\n")))
	return len(p), nil
}

func newJSONStream(path string, r io.Reader) *jsonStream {
	lr := &lineReader{r: r}
	return &jsonStream{path: path, dec: json.NewDecoder(lr), lr: lr}
}

// newFastStream is a stream of the fast pass.
func newFastStream(path string, r io.Reader) *jsonStream {
	lr := &lineReader{r: r, nokeep: true}
	return &jsonStream{path: path, fast: jsontext.NewDecoder(lr, fastOptions), lr: lr}
}

// token reads the next token as json.Decoder.Token gives it.
func (s *jsonStream) token() (json.Token, error) {
	if s.fast == nil {
		return s.dec.Token()
	}
	t, err := s.fast.ReadToken()
	if err != nil {
		return nil, err
	}
	switch k := t.Kind(); k {
	case '{', '}', '[', ']':
		return json.Delim(k), nil
	case '"':
		return t.String(), nil
	case 'n':
		return nil, nil
	case 't', 'f':
		return t.Bool(), nil
	default:
		f, err := t.Float()
		return f, err
	}
}

// more reports whether the array or object being read has another element.
func (s *jsonStream) more() bool {
	if s.fast == nil {
		return s.dec.More()
	}
	k := s.fast.PeekKind()
	return k != 0 && k != ']' && k != '}'
}

// fastValue reads the next value in the fast pass and returns the bytes
// it is written with (valid until the next read) and its line: the line
// after it, less its newlines.
func (s *jsonStream) fastValue() ([]byte, int, error) {
	raw, err := s.fast.ReadValue()
	if err != nil {
		return nil, 0, err
	}
	return raw, s.line() - bytes.Count(raw, []byte("\n")), nil
}

// linesBefore is the number of newlines before the decoder's position,
// less those of the value just decoded (raw).
func (s *jsonStream) linesBefore(raw []byte) int {
	var buffered newlineCounter
	io.Copy(&buffered, s.dec.Buffered()) // a bytes.Reader: WriteTo, no copy
	return s.lr.nl - int(buffered) - bytes.Count(raw, []byte("\n"))
}

// value decodes the next value whole and returns it with the line it
// starts on.
func (s *jsonStream) value() (json.RawMessage, int, error) {
	if s.fast != nil {
		raw, line, err := s.fastValue()
		return bytes.Clone(raw), line, err
	}
	s.lr.mark(s.dec.InputOffset())
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	return raw, 1 + s.linesBefore(raw), nil
}

// decode decodes the next value straight into v (a struct) and returns the
// bytes it was written with (what value would return) and its line. err is
// the decoding error: a syntax error (raw is nil) or, as json.Unmarshal
// gives it, a mistyped field after the whole value was decoded.
func (s *jsonStream) decode(v any) (raw []byte, line int, err error) {
	if s.fast != nil {
		// Any error gives no bytes: the fast pass fails on it whole.
		// The value is decoded from the decoder (UnmarshalDecode), which
		// reads it once, not first as bytes (ReadValue) and again by
		// Unmarshal; the bytes it is written with are kept meanwhile (the
		// decoder's unread buffer, then what it reads), to hash.
		lr := s.lr
		lr.keep = append(lr.keep[:0], s.fast.UnreadBuffer()...)
		start := s.fast.InputOffset()
		lr.nokeep = false
		var err error
		switch v := v.(type) { // without reflection
		case *t2Sim:
			err = decodeT2Sim(s.fast, v)
		case *t1Episode:
			err = decodeT1Episode(s.fast, v)
		default:
			err = jsonv2.UnmarshalDecode(s.fast, v, fastOptions)
		}
		lr.nokeep = true
		if err != nil {
			return nil, 0, err
		}
		raw = bytes.TrimLeft(lr.keep[:s.fast.InputOffset()-start], ", \t\r\n")
		return raw, s.line() - bytes.Count(raw, []byte("\n")), nil
	}
	start := s.dec.InputOffset()
	s.lr.mark(start)
	err = s.dec.Decode(v)
	var se *json.SyntaxError
	if err != nil && (errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return nil, 0, err
	}
	end := s.dec.InputOffset()
	raw = bytes.TrimLeft(s.lr.keep[:end-start], ", \t\r\n")
	return raw, 1 + s.linesBefore(raw), err
}

// unmarshal is json.Unmarshal, or in the fast pass (fast) encoding/json/v2
// in its semantics (fastOptions), about twice as fast; any error there
// makes the file read again by the exact pass, whose words the user gets.
func unmarshal(fast bool, data []byte, v any) error {
	if fast {
		return jsonv2.Unmarshal(data, v, fastOptions)
	}
	return json.Unmarshal(data, v)
}

// line is the line of the decoder's position (after the last token); in
// the fast pass, the newlines read less those the decoder holds unread.
func (s *jsonStream) line() int {
	if s.fast != nil {
		return 1 + s.lr.nl - bytes.Count(s.fast.UnreadBuffer(), []byte("\n"))
	}
	return 1 + s.linesBefore(nil)
}

// syntaxError makes the file's one error from a decoding error. The
// decoder stops where the value it could not read starts; read as a whole,
// that value gives json.Unmarshal's reason and the line of the bad byte,
// as checking the whole file would. An error between values ("expected
// comma after array element") is placed where the decoder stopped.
func (s *jsonStream) syntaxError(err error) *ParseError { return s.syntaxErrorAt(err, false) }

// syntaxErrorAt is syntaxError; top says the top-level value has ended.
func (s *jsonStream) syntaxErrorAt(err error, top bool) *ParseError {
	if s.fast != nil {
		return &ParseError{Path: s.path, Line: s.line(), Reason: errFastPass}
	}
	rest, _ := io.ReadAll(s.dec.Buffered())
	base := s.lr.nl - bytes.Count(rest, []byte("\n"))
	reason := strings.TrimPrefix(err.Error(), "json: ")
	eof := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	if eof {
		reason = "unexpected end of JSON input"
	}
	if pe := syntaxCheck(s.path, rest); !top && pe != nil && (eof || pe.Reason == "invalid JSON: "+reason) {
		pe.Line += base
		return pe
	}
	// The decoder's words for an error between values, in the scanner's.
	if c := bytes.TrimLeft(rest, " \t\r\n"); len(c) > 0 {
		q := strconv.QuoteRune(rune(c[0]))
		q = "'" + q[1:len(q)-1] + "'"
		switch {
		case strings.HasPrefix(reason, "expected comma after "):
			reason = "invalid character " + q + " after " + strings.TrimPrefix(reason, "expected comma after ")
		case reason == "expected colon after object key":
			reason = "invalid character " + q + " after object key"
		case reason == "invalid character "+q:
			reason += " looking for beginning of object key string"
		case top && strings.HasSuffix(reason, " looking for beginning of value"):
			reason = strings.TrimSuffix(reason, " looking for beginning of value") + " after top-level value"
		}
	}
	return &ParseError{Path: s.path, Line: base + lineAt(rest, 0), Reason: "invalid JSON: " + reason}
}

// drain reads the rest of the input, at nesting depth depth, and returns
// the syntax error there is (nil: the file is valid JSON to its end).
func (s *jsonStream) drain(depth int) *ParseError {
	if s.fast != nil {
		// Only called on the way to an error: the file is read again.
		return &ParseError{Path: s.path, Line: s.line(), Reason: errFastPass}
	}
	for {
		t, err := s.dec.Token()
		if err == io.EOF && depth == 0 {
			return nil
		}
		if err != nil {
			return s.syntaxErrorAt(err, depth == 0)
		}
		if depth == 0 {
			return &ParseError{Path: s.path, Line: s.line(), Reason: fmt.Sprintf("invalid JSON: invalid character %q after top-level value", tokenStart(t))}
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// jsonArray reads a file that is one JSON array, calling fn to decode
// each element (with s.value or s.decode) and returning the syntax error
// it met. A file that is not valid JSON, or whose value is no array
// (notArray), is one error on sink, and ok is false; fn may have been
// called before the error was found.
func jsonArray(s *jsonStream, sink EpisodeSink, notArray string, fn func(i int, s *jsonStream) error) (ok bool) {
	t, err := s.token()
	if err != nil {
		sink.Error(s.syntaxError(err))
		return false
	}
	if t != json.Delim('[') {
		pe := &ParseError{Path: s.path, Line: 1, Reason: notArray}
		if se := s.drain(depthOf(t)); se != nil {
			pe = se
		}
		sink.Error(pe)
		return false
	}
	for i := 0; s.more(); i++ {
		if err := fn(i, s); err != nil {
			sink.Error(s.syntaxError(err))
			return false
		}
	}
	if pe := s.finish(); pe != nil {
		sink.Error(pe)
		return false
	}
	return true
}

// finish reads the end of the top-level array or object and checks that
// nothing but white space follows it.
func (s *jsonStream) finish() *ParseError {
	if _, err := s.token(); err != nil {
		return s.syntaxError(err)
	}
	if s.fast != nil {
		if _, err := s.fast.ReadToken(); err != io.EOF {
			return s.syntaxError(err)
		}
		return nil
	}
	return s.drain(0)
}

// readEpisodeFile reads an episode or task file with pass: first with a
// fast stream, when r can be read again (a file, anything with Seek, or
// Rewind), whose results reach sink only if pass reported no error; else,
// or after such an error, with an exact stream (jsonStream). The fast
// pass decodes corpus/tau2 about twice as fast. Whatever it accepts it
// decodes as the exact pass would (TestFastPassAgrees); a file with any
// error, syntax or content, is reported in the exact pass's words.
func readEpisodeFile(path string, r io.Reader, sink EpisodeSink, pass func(s *jsonStream, sink EpisodeSink) error) error {
	if rewind := rewinderOf(r); rewind != nil {
		fs := &fastSink{sink: sink}
		if err := pass(newFastStream(path, r), fs); err == nil && !fs.failed {
			for _, f := range fs.files {
				if err := sink.EpisodeFile(f); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rewind(); err != nil {
			return fmt.Errorf("read again: %w", err)
		}
	}
	return pass(newJSONStream(path, r), sink)
}

// rewinderOf returns what reads r again from where it is now: its Rewind
// method, or a Seek back; nil when it cannot be read again (a pipe).
func rewinderOf(r io.Reader) func() error {
	switch v := r.(type) {
	case interface{ Rewind() error }:
		return v.Rewind
	case io.Seeker:
		at, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil
		}
		return func() error {
			_, err := v.Seek(at, io.SeekStart)
			return err
		}
	}
	return nil
}

// fastSink keeps what a fast pass gives until it is known to have met no
// error.
type fastSink struct {
	sink   EpisodeSink
	files  []*EpisodeFile
	failed bool
}

func (f *fastSink) EpisodeFile(e *EpisodeFile) error {
	f.files = append(f.files, e)
	return nil
}

func (f *fastSink) Error(*ParseError) { f.failed = true }

// tau1Names is the sink's (sinkTau1Names).
func (f *fastSink) tau1Names() Tau1Names { return sinkTau1Names(f.sink) }

// taskKey is the sink's (sinkTaskKey).
func (f *fastSink) taskKey(domain, taskID string, raw json.RawMessage) string {
	return sinkTaskKey(f.sink)(domain, taskID, raw)
}

// taskSeen is the sink's (sinkTaskSeen).
func (f *fastSink) taskSeen() seenTasks { return sinkTaskSeen(f.sink) }

// tokenStart is the first character of a token as JSON writes it.
func tokenStart(t json.Token) rune {
	switch v := t.(type) {
	case json.Delim:
		return rune(v)
	case string:
		return '"'
	case bool:
		if v {
			return 't'
		}
		return 'f'
	case nil:
		return 'n'
	}
	b, _ := json.Marshal(t)
	if len(b) == 0 {
		return '?'
	}
	return rune(b[0])
}

// depthOf is the nesting a first token opens.
func depthOf(t json.Token) int {
	if t == json.Delim('{') || t == json.Delim('[') {
		return 1
	}
	return 0
}

// syntaxCheck returns one ParseError for data that is not valid JSON, with
// json.Unmarshal's reason and the line of the offending byte; nil for valid
// JSON.
func syntaxCheck(path string, data []byte) *ParseError {
	if json.Valid(data) {
		return nil
	}
	err := json.Unmarshal(data, new(struct{}))
	if se, ok := err.(*json.SyntaxError); ok {
		return &ParseError{Path: path, Line: lineAt(data, se.Offset-1), Reason: "invalid JSON: " + se.Error()}
	}
	return &ParseError{Path: path, Line: 1, Reason: "invalid JSON"}
}
