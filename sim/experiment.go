package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// Conditions a generation can be made under (SPEC section 3): the names
// of queries, given here for sim's callers.
const (
	CondProfile   = queries.CondProfile
	CondNoProfile = queries.CondNoProfile
	CondTerse     = queries.CondTerse
)

// DefaultWindow is the leaderboard's live window N (turns before the moment).
const DefaultWindow = 14

// Offline backends need no network.
var offlineBackends = []string{"mix", "retrieve"}

// modelBackends call a model, live or through provider batch files.
var modelBackends = []string{"openai", "openai-batch", "anthropic-batch"}

// IsOffline reports whether a backend is a built-in offline simulator.
func IsOffline(backend string) bool { return slices.Contains(offlineBackends, backend) }

// SimulatorConfig is one simulator of an experiment: backend, model,
// parameters, prices and limits.
type SimulatorConfig struct {
	Name            string         `toml:"name"`
	Backend         string         `toml:"backend"`
	Model           string         `toml:"model"`
	BaseURL         string         `toml:"base_url"`
	APIKeyEnv       string         `toml:"api_key_env"` // the NAME of the variable holding the key, never the key
	Temperature     *float64       `toml:"temperature"`
	MaxTokens       int            `toml:"max_tokens"`
	ReasoningEffort string         `toml:"reasoning_effort"`
	Extra           map[string]any `toml:"extra"`
	PriceIn         float64        `toml:"price_in"`       // USD per million input tokens
	PriceOut        float64        `toml:"price_out"`      // USD per million output tokens
	BatchDiscount   float64        `toml:"batch_discount"` // price factor for batch answers; 0 means 0.5
	Concurrency     int            `toml:"concurrency"`    // 0 means 4
	RateLimit       float64        `toml:"rate_limit"`     // requests per second; 0 means unlimited
	Timeout         duration       `toml:"timeout"`        // per request; 0 means 120s
	MaxAttempts     int            `toml:"max_attempts"`   // 0 means 6
	Conditions      []string       `toml:"conditions"`     // empty means the experiment's
	Seed            int64          `toml:"seed"`           // offline simulators; 0 means the experiment's
}

// Params returns the generation parameters of the simulator.
func (s SimulatorConfig) Params() runner.Params {
	return runner.Params{Temperature: s.Temperature, MaxTokens: s.MaxTokens, ReasoningEffort: s.ReasoningEffort, Extra: s.Extra}
}

// Cost is the USD price of a response (Endpoint.Cost).
func (s SimulatorConfig) Cost(tokensIn, tokensOut int, viaBatch bool) float64 {
	return s.Endpoint().Cost(tokensIn, tokensOut, viaBatch)
}

// Endpoint is the model endpoint of a model simulator, for RunStep.
func (s SimulatorConfig) Endpoint() runner.Endpoint {
	return runner.Endpoint{Backend: s.Backend, BaseURL: s.BaseURL, APIKeyEnv: s.APIKeyEnv, Timeout: s.Timeout.Duration,
		Concurrency: s.Concurrency, RateLimit: s.RateLimit, MaxAttempts: s.MaxAttempts,
		PriceIn: s.PriceIn, PriceOut: s.PriceOut, BatchDiscount: s.BatchDiscount}
}

type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	d.Duration = v
	return err
}

// Sweep adds generations at other windows and history sizes: every
// (window_n, history_k) pair of the grid, for the named simulators (all when
// empty) and conditions (the simulator's when empty).
type Sweep struct {
	Name       string   `toml:"name"`
	Simulators []string `toml:"simulators"`
	Conditions []string `toml:"conditions"`
	WindowN    []int    `toml:"window_n"`  // empty means [DefaultWindow]
	HistoryK   []int    `toml:"history_k"` // empty means [0]
}

// Experiment is what `ub generate` runs: simulators, conditions and sweeps.
type Experiment struct {
	Name       string            `toml:"name"`
	Seed       int64             `toml:"seed"`
	Conditions []string          `toml:"conditions"` // empty means profile and noprofile
	WindowN    int               `toml:"window_n"`   // the main run's N; 0 means DefaultWindow
	HistoryK   int               `toml:"history_k"`  // the main run's K
	Simulators []SimulatorConfig `toml:"simulator"`
	Sweeps     []Sweep           `toml:"sweep"`
	// Trials is k, the generations made per point in every cell (the main
	// run and every sweep), each trial its own request (runner.Request.Sample
	// 0 .. k-1, so its own cache key and generation id); 0 means 1.
	Trials int    `toml:"trials"`
	Hash   string `toml:"-"` // short sha256 of the file
}

// MaxTrials bounds Experiment.Trials: a typing slip (trials = 300) would
// otherwise multiply the cost of a run by hundreds.
const MaxTrials = 100

// TrialCount is the number of trials of the experiment: Trials, or 1 when
// it is 0.
func (e Experiment) TrialCount() int { return max(e.Trials, 1) }

// LoadExperiment reads and checks an experiment TOML file. Errors name the
// file and, where TOML gives it, the line.
func LoadExperiment(path string) (Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Experiment{}, err
	}
	var e Experiment
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&e)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return e, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return e, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return e, fmt.Errorf("%s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	if e.Name == "" {
		e.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	h := sha256.Sum256(b)
	e.Hash = hex.EncodeToString(h[:6])
	if err := e.Check(); err != nil {
		return e, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

// Check fills defaults and validates the experiment.
func (e *Experiment) Check() error {
	if len(e.Conditions) == 0 {
		e.Conditions = []string{CondProfile, CondNoProfile}
	}
	if e.WindowN == 0 {
		e.WindowN = DefaultWindow
	}
	if e.WindowN < 1 || e.HistoryK < 0 {
		return fmt.Errorf("window_n must be >= 1 and history_k >= 0")
	}
	if e.Trials < 0 || e.Trials > MaxTrials {
		return fmt.Errorf("trials %d: want 1 .. %d (0 means 1)", e.Trials, MaxTrials)
	}
	if len(e.Simulators) == 0 {
		return fmt.Errorf("no [[simulator]]")
	}
	if err := checkConditions(e.Conditions); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range e.Simulators {
		s := &e.Simulators[i]
		if s.Name == "" {
			return fmt.Errorf("simulator %d: missing name", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("simulator %q named twice", s.Name)
		}
		seen[s.Name] = true
		switch {
		case IsOffline(s.Backend):
			if s.Model == "" {
				s.Model = s.Backend
			}
			if s.Seed == 0 {
				s.Seed = e.Seed
			}
		case slices.Contains(modelBackends, s.Backend):
			if s.Model == "" {
				return fmt.Errorf("simulator %q: missing model", s.Name)
			}
		default:
			return fmt.Errorf("simulator %q: backend %q is not one of %s", s.Name, s.Backend,
				strings.Join(append(slices.Clone(modelBackends), offlineBackends...), ", "))
		}
		if len(s.Conditions) == 0 {
			s.Conditions = e.Conditions
		}
		if err := checkConditions(s.Conditions); err != nil {
			return fmt.Errorf("simulator %q: %w", s.Name, err)
		}
		if s.Concurrency == 0 {
			s.Concurrency = 4
		}
		if s.Timeout.Duration == 0 {
			s.Timeout.Duration = 120 * time.Second
		}
		if s.MaxAttempts == 0 {
			s.MaxAttempts = 6
		}
		if s.PriceIn < 0 || s.PriceOut < 0 || s.BatchDiscount < 0 || s.RateLimit < 0 || s.Concurrency < 0 {
			return fmt.Errorf("simulator %q: prices, limits and concurrency must not be negative", s.Name)
		}
	}
	for i, sw := range e.Sweeps {
		for _, n := range sw.Simulators {
			if !seen[n] {
				return fmt.Errorf("sweep %d (%s): no simulator %q", i+1, sw.Name, n)
			}
		}
		if err := checkConditions(sw.Conditions); err != nil {
			return fmt.Errorf("sweep %d (%s): %w", i+1, sw.Name, err)
		}
		for _, n := range sw.WindowN {
			if n < 1 {
				return fmt.Errorf("sweep %d (%s): window_n %d < 1", i+1, sw.Name, n)
			}
		}
		for _, k := range sw.HistoryK {
			if k < 0 {
				return fmt.Errorf("sweep %d (%s): history_k %d < 0", i+1, sw.Name, k)
			}
		}
	}
	return nil
}

func checkConditions(cs []string) error {
	for _, c := range cs {
		if !slices.Contains(queries.Conditions(), c) {
			return fmt.Errorf("condition %q is not profile, noprofile or terse", c)
		}
	}
	return nil
}

// Cell is one (simulator, condition, N, K) combination of an experiment.
type Cell struct {
	Simulator string
	Condition string
	WindowN   int
	HistoryK  int
}

// Cells expands the experiment into its distinct cells, sorted: the main run
// of every simulator under each of its conditions, and every sweep's grid.
func (e Experiment) Cells() []Cell {
	set := map[Cell]bool{}
	for _, s := range e.Simulators {
		for _, c := range s.Conditions {
			set[Cell{s.Name, c, e.WindowN, e.HistoryK}] = true
		}
	}
	for _, sw := range e.Sweeps {
		ns, ks := sw.WindowN, sw.HistoryK
		if len(ns) == 0 {
			ns = []int{DefaultWindow}
		}
		if len(ks) == 0 {
			ks = []int{0}
		}
		for _, s := range e.Simulators {
			if len(sw.Simulators) > 0 && !slices.Contains(sw.Simulators, s.Name) {
				continue
			}
			conds := sw.Conditions
			if len(conds) == 0 {
				conds = s.Conditions
			}
			for _, c := range conds {
				for _, n := range ns {
					for _, k := range ks {
						set[Cell{s.Name, c, n, k}] = true
					}
				}
			}
		}
	}
	out := make([]Cell, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Simulator != b.Simulator {
			return a.Simulator < b.Simulator
		}
		if a.Condition != b.Condition {
			return a.Condition < b.Condition
		}
		if a.WindowN != b.WindowN {
			return a.WindowN < b.WindowN
		}
		return a.HistoryK < b.HistoryK
	})
	return out
}

// Simulator returns the named simulator's config.
func (e Experiment) Simulator(name string) (SimulatorConfig, bool) {
	for _, s := range e.Simulators {
		if s.Name == name {
			return s, true
		}
	}
	return SimulatorConfig{}, false
}

// GenerationID is the stable id of the generation for (simulator, point,
// condition, N, K) in trial (the sample index, from 0): 16 hex digits of
// sha256 over the five, NUL-separated, and for a trial after the first
// (trial > 0) its index as a sixth part. The first trial keeps the id a
// single-trial study gives.
func GenerationID(simulator, pointID, condition string, windowN, historyK, trial int) string {
	parts := []string{simulator, pointID, condition, strconv.Itoa(windowN), strconv.Itoa(historyK)}
	if trial > 0 {
		parts = append(parts, strconv.Itoa(trial))
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}
