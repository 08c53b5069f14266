package queries

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
)

// EncodePoints is the published JSONL form of frozen points: one PointRow a
// line, in the order given (ub points export writes them in the order of
// Points: developer, then id).
func EncodePoints(rows []PointRow) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range rows {
		enc.Encode(r) // a PointRow holds strings, ints and a bool: it always encodes
	}
	return b.Bytes()
}

// PointSetHash is the identity of a published benchmark: the hex sha256 of
// EncodePoints of the points sorted by developer, then id. The order the
// points are given in does not matter. It is the one definition: ub points,
// ub points import and ub synth all store it.
func PointSetHash(rows []PointRow) string {
	sorted := append([]PointRow(nil), rows...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Developer != sorted[j].Developer {
			return sorted[i].Developer < sorted[j].Developer
		}
		return sorted[i].ID < sorted[j].ID
	})
	h := sha256.Sum256(EncodePoints(sorted))
	return hex.EncodeToString(h[:])
}
