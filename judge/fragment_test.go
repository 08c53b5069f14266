package judge

import "testing"

// TestFragmentKind checks the fragment recogniser on lines written for this
// test: pasted code, comments, prompts, logs and stack frames in several
// programming and natural languages, and developer prose (in the same
// languages) that must not be taken for a fragment.
func TestFragmentKind(t *testing.T) {
	tests := []struct {
		msg, want string
	}{
		// Code, one line as aider sends it.
		{"import numpy as np", fragCode},
		{"from django.db import models", fragCode},
		{"def parse(self, raw):", fragCode},
		{"const user = await fetchUser(id);", fragCode},
		{"let total = items.reduce((a, b) => a + b, 0);", fragCode},
		{"func (s *Server) Start() error {", fragCode},
		{"pub fn new(cap: usize) -> Self {", fragCode},
		{"#include <stdio.h>", fragCode},
		{"public static void main(String[] args) {", fragCode},
		{"if (result != VK_SUCCESS) {", fragCode},
		{"}", fragCode},
		{"});", fragCode},
		{"x := strings.TrimSpace(line)", fragCode},
		{"SELECT id, name FROM users WHERE age > 30;", fragCode},
		{`<div className="header">`, fragCode},
		{"console.log(response.data);", fragCode},
		{"self.assertEqual(result, 4)", fragCode},
		{"```python\nprint('hola')\n```", fragCode},
		// Comments, in several natural languages.
		{"// načti uživatele před vykreslením", fragComment},
		{"# Obtener la lista de pedidos", fragComment},
		{"/* Benutzer laden */", fragComment},
		{"// 获取用户信息", fragComment},
		{"-- supprime les doublons", fragComment},
		{"# TODO: refactor this later", fragComment},
		// Shell and REPL prompts.
		{"(venv) ana@laptop:~/shop$ python manage.py migrate", fragShell},
		{"$ npm run build", fragShell},
		{`PS C:\Users\jan\app> dotnet run`, fragShell},
		{">>> df.head()", fragShell},
		{"mysql> SHOW TABLES;", fragShell},
		// Log lines without a fault.
		{"2024-03-05 14:22:01 INFO Server started on port 8080", fragLog},
		{"[INFO] Building jar: target/app.jar", fragLog},
		{"level=info msg=\"listening\" addr=:8080", fragLog},
		{"web-1  | Listening on http://0.0.0.0:3000", fragLog},
		{"ana@srv:~/app$ ls -la\ntotal 8\ndrwxr-xr-x  2 ana ana 4096 Mar  5 10:00 .\n-rw-r--r--  1 ana ana  120 Mar  5 10:00 main.go", fragShell},
		// Stack frames.
		{"at Object.<anonymous> (/app/index.js:3:9)", fragFrame},
		{`File "/app/main.py", line 12, in <module>`, fragFrame},
		{"goroutine 1 [running]:", fragFrame},
		// The developer's own words: never a fragment.
		{"add a logout button", fragNone},
		{"use `fetchUser()` instead of the raw query", fragNone},
		{"přidej tlačítko pro odhlášení", fragNone},
		{"¿por qué falla el login?", fragNone},
		{"bitte die Tests für den Parser schreiben", fragNone},
		{"这个函数返回什么？", fragNone},
		{"ok, now add tests", fragNone},
		{"# Question: how do I add a file?", fragNone},
		{"the function returns None when the list is empty", fragNone},
		{"import the csv and show me the first rows", fragNone},
		{"> quoted: please keep the old API", fragNone},
		// A fragment followed by the developer's words is not a fragment.
		{"const x = 1;\nwhy is x not updated here?", fragNone},
		{"", fragNone},
	}
	for _, tt := range tests {
		if got := fragmentKind(tt.msg); got != tt.want {
			t.Errorf("fragmentKind(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// TestBuiltinFragments checks the labels of whole fragment messages written
// for this test. The guide (../shared/corpus/labels/GUIDE.md) labels a
// message that makes no move other, and a pasted error or stack trace
// critical (rule 1, fault first); a fragment that shows a fault therefore
// stays critical.
func TestBuiltinFragments(t *testing.T) {
	b := builtin(t)
	tests := []struct {
		msg, prev string
		want      Move
	}{
		{"const user = await fetchUser(id);", "", Other},
		{"def parse(self, raw):", "", Other},
		{"// načti uživatele před vykreslením", "", Other},
		{"# Obtener la lista de pedidos", "", Other},
		{"(venv) ana@laptop:~/shop$ python manage.py migrate", "", Other},
		{"2024-03-05 14:22:01 INFO Server started on port 8080", "", Other},
		{"}", "", Other},
		// Fault first: fragments that show a fault.
		{"TypeError: Cannot read properties of undefined (reading 'id')", "", Critical},
		{"2024-03-05 14:22:01 ERROR connection refused: db:5432", "", Critical},
		// Guide boundaries: a request that mentions an error is a request
		// (rule 2; no fault is asserted); permission to apply the proposed
		// changes adds nothing new (rule 4).
		{"add error handling to the upload endpoint", "", Directive},
		{"log an error when the config file is missing", "", Directive},
		{"go ahead and make the changes", "Shall I apply these changes to the parser?", Approve},
		{"yes, apply them", "Shall I apply these changes to the parser?", Approve},
	}
	for _, tt := range tests {
		r := b.Label(tt.msg, tt.prev)
		if r.Move != tt.want {
			t.Errorf("Label(%.50q) = %s (%.2f; %s), want %s", tt.msg, r.Move, r.Score, r.Reason, tt.want)
		}
	}
}
