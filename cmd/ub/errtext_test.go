package main

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorsShowNoControlCharacters: whatever an error quotes raw from the
// data, no NUL, terminal escape or bidirectional override of it reaches
// the terminal (each is shown as [U+XXXX]), and no line of it starts as
// one of ub's own.
func TestErrorsShowNoControlCharacters(t *testing.T) {
	var out, errb strings.Builder
	exitCode(errors.New("id a\x00b\x1b[2J\u202ec"), testStreams(&out, &errb))
	if got, want := errb.String(), "ub: id a[U+0000]b[U+001B][2J[U+202E]c\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	errb.Reset()
	exitCode(errors.New("episode x\nub: all is well"), testStreams(&out, &errb))
	if got, want := errb.String(), "ub: episode x\n  ub: all is well\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
