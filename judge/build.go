package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// BuildWeights trains the built-in judge on the tune part of the labels
// corpus in dir (Split with SplitSalt and HeldShare, DefaultParams) and
// returns the weights file, byte for byte as shipped in
// builtin_weights.json. `go generate ./judge` writes it; a test checks the
// shipped file against it.
func BuildWeights(dir string) ([]byte, error) {
	exs, err := LoadCorpus(dir)
	if err != nil {
		return nil, err
	}
	tune, _, _ := Split(exs, SplitSalt, HeldShare)
	m, err := Train(tune, DefaultParams)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, name := range []string{"messages.jsonl", "labels.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		h.Write(b)
	}
	m.Meta.CorpusSHA256 = hex.EncodeToString(h.Sum(nil))
	m.Meta.Split = fmt.Sprintf("tune part: all but the developers (repos) held back by FNV-1a 64 of %q, held share %.2f", SplitSalt, HeldShare)
	return json.Marshal(m)
}
