package judge

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"

	"github.com/ub-bench/ub/ingest/lines"
)

// Example is one labelled developer message of a labels corpus
// (../shared/corpus/labels: messages.jsonl joined with labels.jsonl).
type Example struct {
	ID        string // item id, e.g. "s0042"
	Repo      string // repository; in the aider corpus one repository is one developer
	Session   int    // index of the session in the repository's history file
	Message   string // the developer's message
	PrevAgent string // the end of the agent's previous reply
	Move      Move   // the reference move
	Fine      Fine   // the reference 7-way label; zero if the file gave none
}

// DoubleLabel is one item labelled twice by independent passes
// (double.jsonl).
type DoubleLabel struct {
	ID   string // item id
	A, B Move   // the labels of the two passes
}

// LoadCorpus reads messages.jsonl and labels.jsonl from dir and joins them by
// id, in the order of messages.jsonl. Every message must have exactly one
// label and every label a message; the error names the file and line.
func LoadCorpus(dir string) ([]Example, error) {
	type msgLine struct {
		ID        string `json:"id"`
		Repo      string `json:"repo"`
		Session   int    `json:"session"`
		Message   string `json:"message"`
		PrevAgent string `json:"prev_agent"`
	}
	type labelLine struct {
		ID    string `json:"id"`
		Label string `json:"label"`
		Fine  string `json:"fine"`
	}
	var exs []Example
	index := map[string]int{}
	mpath := filepath.Join(dir, "messages.jsonl")
	err := readJSONL(mpath, func(line int, raw []byte) error {
		var m msgLine
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		if m.ID == "" {
			return fmt.Errorf(`missing "id"`)
		}
		if _, dup := index[m.ID]; dup {
			return fmt.Errorf("duplicate id %q", m.ID)
		}
		index[m.ID] = len(exs)
		exs = append(exs, Example{ID: m.ID, Repo: m.Repo, Session: m.Session, Message: m.Message, PrevAgent: m.PrevAgent})
		return nil
	})
	if err != nil {
		return nil, err
	}
	lpath := filepath.Join(dir, "labels.jsonl")
	err = readJSONL(lpath, func(line int, raw []byte) error {
		var l labelLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return err
		}
		i, ok := index[l.ID]
		if !ok {
			return fmt.Errorf("label for unknown id %q", l.ID)
		}
		if exs[i].Move.Valid() {
			return fmt.Errorf("second label for id %q", l.ID)
		}
		m, err := ParseMove(l.Label)
		if err != nil {
			return err
		}
		exs[i].Move = m
		if l.Fine != "" {
			f, err := ParseFine(l.Fine)
			if err != nil {
				return err
			}
			if f.Move() != m {
				return fmt.Errorf("id %q: fine label %s maps to %s, not %s", l.ID, f, f.Move(), m)
			}
			exs[i].Fine = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range exs {
		if !e.Move.Valid() {
			return nil, fmt.Errorf("%s: no label for id %q", lpath, e.ID)
		}
	}
	return exs, nil
}

// LoadDouble reads double.jsonl from dir: items labelled by two independent
// passes, in file order.
func LoadDouble(dir string) ([]DoubleLabel, error) {
	type line struct {
		ID string `json:"id"`
		A  string `json:"label_a"`
		B  string `json:"label_b"`
	}
	var out []DoubleLabel
	err := readJSONL(filepath.Join(dir, "double.jsonl"), func(_ int, raw []byte) error {
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			return err
		}
		a, err := ParseMove(l.A)
		if err != nil {
			return fmt.Errorf("label_a: %w", err)
		}
		b, err := ParseMove(l.B)
		if err != nil {
			return fmt.Errorf("label_b: %w", err)
		}
		out = append(out, DoubleLabel{ID: l.ID, A: a, B: b})
		return nil
	})
	return out, err
}

// readJSONL calls fn for every non-blank line of the file
// (lines.ReadJSONLFile) and prefixes its error with path:line.
func readJSONL(path string, fn func(line int, raw []byte) error) error {
	return lines.ReadJSONLFile(path, func(n int, raw []byte) error {
		if err := fn(n, raw); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		return nil
	})
}

// SplitSalt seeds the tune/held-back split of the labels corpus. Changing it
// changes which developers are held back, and so invalidates every reported
// held-back number.
const SplitSalt = "ub-judge-split/v1"

// HeldShare is the share of labelled messages held back for validation.
const HeldShare = 0.30

// Split divides a labels corpus into a tune part and a held-back part by
// developer: in the aider corpus one repository is one developer, and a
// developer's messages share habits (the same pasted error format, the same
// language, the same one-word "continue"), so a message-level split would
// leak them into the validation. Repositories are ordered by FNV-1a 64 of
// salt+":"+repo and taken in that order into the held-back part while it
// stays within heldShare of all messages (a repository that would overflow it
// is skipped and the next tried), so the part approaches the requested share
// without depending on anything but the names. Both parts keep the input
// order; isHeld reports which repositories are held back.
func Split(exs []Example, salt string, heldShare float64) (tune, held []Example, isHeld map[string]bool) {
	count := map[string]int{}
	for _, e := range exs {
		count[e.Repo]++
	}
	repos := make([]string, 0, len(count))
	for r := range count {
		repos = append(repos, r)
	}
	key := func(r string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(salt + ":" + r))
		return h.Sum64()
	}
	sort.Slice(repos, func(i, j int) bool {
		ki, kj := key(repos[i]), key(repos[j])
		if ki != kj {
			return ki < kj
		}
		return repos[i] < repos[j]
	})
	target := heldShare * float64(len(exs))
	isHeld = map[string]bool{}
	n := 0
	for _, r := range repos {
		if float64(n+count[r]) <= target {
			isHeld[r] = true
			n += count[r]
		}
	}
	for _, e := range exs {
		if isHeld[e.Repo] {
			held = append(held, e)
		} else {
			tune = append(tune, e)
		}
	}
	return tune, held, isHeld
}
