package queries

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/ub-bench/ub"
)

// FidelityTape holds the episodes a grader graded for the report's
// analyses, which go over them many times (each analysis once or more),
// without holding them in memory: TapeFidelity reads them from the
// workspace once (one run of fidelity_episodes.sql, the costly part) and
// writes them, a few dozen bytes each, to a temporary file that is
// unlinked at once (nothing is left behind, whatever happens); All reads
// them back from it in the same order. In memory it keeps one copy of each
// name the episodes share (simulators, agents, domains, tasks, probe
// lists), which grows with the tasks, not the episodes.
type FidelityTape struct {
	f      *os.File
	size   int64
	n      int
	names  []string
	probes [][]string

	mu  sync.Mutex
	err error
}

// TapeFidelity writes the episodes grader graded (EachFidelity, by
// simulation id) to a new tape. Close it when done.
func TapeFidelity(ctx context.Context, db Querier, grader string) (*FidelityTape, error) {
	f, err := os.CreateTemp("", "ub-fidelity-*.tape")
	if err != nil {
		return nil, fmt.Errorf("fidelity episodes: a temporary file: %w", err)
	}
	// Unlinked at once: the open file is the only name it has.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("fidelity episodes: a temporary file: %w", err)
	}
	t := &FidelityTape{f: f}
	w := bufio.NewWriterSize(f, 1<<16)
	nameIdx := map[string]uint64{}
	name := func(s string) uint64 {
		i, ok := nameIdx[s]
		if !ok {
			i = uint64(len(t.names))
			nameIdx[s] = i
			t.names = append(t.names, s)
		}
		return i
	}
	probeIdx := map[string]uint64{}
	var buf []byte
	err = EachFidelity(ctx, db, grader, func(e ub.FidelityEpisode) error {
		b := buf[:0]
		for _, s := range [...]string{e.Grader, e.Simulator, e.Agent, e.Domain, e.Task} {
			b = binary.AppendUvarint(b, name(s))
		}
		b = binary.AppendUvarint(b, uint64(len(e.ID)))
		b = append(b, e.ID...)
		b = binary.AppendVarint(b, int64(e.Trial))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Reward))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Cost))
		if e.CostEstimated {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		for i := range e.Applicable {
			b = binary.AppendVarint(b, int64(e.Applicable[i]))
			b = binary.AppendVarint(b, int64(e.Failed[i]))
		}
		b = binary.AppendVarint(b, int64(e.AgentTurns))
		b = binary.AppendVarint(b, int64(e.AgentQuestions))
		b = binary.AppendVarint(b, int64(e.AgentToolCalls))
		p := uint64(0) // none fired
		if len(e.Probes) > 0 {
			key := strings.Join(e.Probes, ",")
			i, ok := probeIdx[key]
			if !ok {
				i = uint64(len(t.probes)) + 1
				probeIdx[key] = i
				t.probes = append(t.probes, e.Probes)
			}
			p = i
		}
		b = binary.AppendUvarint(b, p)
		buf = b
		t.n++
		_, err := w.Write(b)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		t.size, err = f.Seek(0, io.SeekCurrent)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

// Len is the number of episodes on the tape.
func (t *FidelityTape) Len() int { return t.n }

// All gives the episodes in the order they were read from the workspace,
// every time it is ranged over; it may be ranged over concurrently. A
// failure to read the tape back ends the range early and is kept for Err.
func (t *FidelityTape) All() iter.Seq[ub.FidelityEpisode] {
	return func(yield func(ub.FidelityEpisode) bool) {
		r := bufio.NewReaderSize(io.NewSectionReader(t.f, 0, t.size), 1<<16)
		for range t.n {
			e, err := t.read(r)
			if err != nil {
				t.fail(fmt.Errorf("fidelity episodes: reading back the temporary file: %w", err))
				return
			}
			if !yield(e) {
				return
			}
		}
	}
}

func (t *FidelityTape) read(r *bufio.Reader) (ub.FidelityEpisode, error) {
	var e ub.FidelityEpisode
	var err error
	uv := func() uint64 {
		if err != nil {
			return 0
		}
		var x uint64
		x, err = binary.ReadUvarint(r)
		return x
	}
	sv := func() int {
		if err != nil {
			return 0
		}
		var x int64
		x, err = binary.ReadVarint(r)
		return int(x)
	}
	f64 := func() float64 {
		var b [8]byte
		if err == nil {
			_, err = io.ReadFull(r, b[:])
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	var idx [5]uint64
	for i := range idx {
		if idx[i] = uv(); err == nil && idx[i] >= uint64(len(t.names)) {
			err = errors.New("a name out of range")
		}
	}
	if err != nil {
		return e, err
	}
	e.Grader, e.Simulator, e.Agent, e.Domain, e.Task = t.names[idx[0]], t.names[idx[1]], t.names[idx[2]], t.names[idx[3]], t.names[idx[4]]
	id := make([]byte, uv())
	if err == nil {
		_, err = io.ReadFull(r, id)
	}
	e.ID = string(id)
	e.Trial = sv()
	e.Reward, e.Cost = f64(), f64()
	if err == nil {
		var c byte
		c, err = r.ReadByte()
		e.CostEstimated = c == 1
	}
	for i := range e.Applicable {
		e.Applicable[i], e.Failed[i] = sv(), sv()
	}
	e.AgentTurns, e.AgentQuestions, e.AgentToolCalls = sv(), sv(), sv()
	if p := uv(); err == nil && p > 0 {
		if p > uint64(len(t.probes)) {
			return e, errors.New("a probe list out of range")
		}
		e.Probes = t.probes[p-1]
	}
	return e, err
}

func (t *FidelityTape) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// Err is the first failure to read the tape back (nil: every range gave
// every episode).
func (t *FidelityTape) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close releases the tape and its file.
func (t *FidelityTape) Close() error { return t.f.Close() }
