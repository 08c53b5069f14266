package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strconv"
)

// Moment is a held-out moment that may be frozen as a point: the developer
// turn TurnIdx of a session, with PriorTurns turns before it.
type Moment struct {
	Developer, Split, SessionID string
	TurnIdx, PriorTurns         int
}

// Point is a frozen moment with a stable id.
type Point struct {
	Moment
	ID           string
	ConstantDose bool // PriorTurns >= ConstantDoseTurns
}

// ConstantDoseTurns is the prior-turn count from which a moment belongs to
// the constant-dose subset of the context sweep (SPEC section 5: moments
// with at least 10 prior turns, so every window up to N = 10 is full).
const ConstantDoseTurns = 10

// PointID is the stable id of the moment at (session, turn): "p" and the
// first 12 hex digits of sha256(session NUL turn). It does not depend on the
// seed, so two point sets can be compared point by point.
func PointID(sessionID string, turnIdx int) string {
	h := sha256.Sum256([]byte(sessionID + "\x00" + strconv.Itoa(turnIdx)))
	return "p" + hex.EncodeToString(h[:6])
}

// FreezePoints draws up to perDeveloper points per developer from moments,
// deterministically from seed: each developer's moments are ranked by
// sha256(seed, point id) and the first perDeveloper kept. A developer's
// draw depends only on the seed and their own moments, so adding another
// developer to the study changes no one else's points. The result is
// sorted by developer, then in the order moments were given (time order).
// perDeveloper <= 0 keeps every moment.
func FreezePoints(moments []Moment, perDeveloper int, seed int64) []Point {
	byDev := map[string][]int{}
	var devs []string
	for i, m := range moments {
		if _, ok := byDev[m.Developer]; !ok {
			devs = append(devs, m.Developer)
		}
		byDev[m.Developer] = append(byDev[m.Developer], i)
	}
	sort.Strings(devs)
	var seedBytes [8]byte
	binary.BigEndian.PutUint64(seedBytes[:], uint64(seed))
	var out []Point
	for _, d := range devs {
		idx := byDev[d]
		type ranked struct {
			i    int
			rank [32]byte
		}
		rs := make([]ranked, len(idx))
		for k, i := range idx {
			id := PointID(moments[i].SessionID, moments[i].TurnIdx)
			rs[k] = ranked{i, sha256.Sum256(append(seedBytes[:], id...))}
		}
		if perDeveloper > 0 && len(rs) > perDeveloper {
			sort.Slice(rs, func(a, b int) bool { return string(rs[a].rank[:]) < string(rs[b].rank[:]) })
			rs = rs[:perDeveloper]
			sort.Slice(rs, func(a, b int) bool { return rs[a].i < rs[b].i })
		}
		for _, r := range rs {
			m := moments[r.i]
			out = append(out, Point{Moment: m, ID: PointID(m.SessionID, m.TurnIdx), ConstantDose: m.PriorTurns >= ConstantDoseTurns})
		}
	}
	return out
}
