package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Params are the hyperparameters of the built-in judge's classifier. The
// zero value is not useful; start from DefaultParams.
type Params struct {
	// Lambda is the L2 penalty on the weights (not the biases), per item:
	// the loss is the mean log loss plus Lambda/2 * |W|^2.
	Lambda float64 `json:"lambda"`
	// Words, Bigrams, Chars and Lead scale the unit-length n-gram groups
	// (unigrams, bigrams, character 3-5-grams, leading and trailing words);
	// Cues scales the hand-written cue features. A larger scale is a weaker
	// penalty on that group; 0 drops it.
	Words   float64 `json:"words"`
	Bigrams float64 `json:"bigrams"` // see Words
	Chars   float64 `json:"chars"`   // see Words
	Lead    float64 `json:"lead"`    // see Words
	Cues    float64 `json:"cues"`    // see Words
	// MinDF drops n-gram features seen in fewer than MinDF training messages
	// (cues are always kept). It keeps the weights file small and drops
	// features that can only memorise one message.
	MinDF int `json:"min_df"`
	// Fine trains over the seven fine labels and sums their probabilities
	// into moves; otherwise the classifier is trained on the five moves.
	Fine bool `json:"fine"`
	// DevPower weights each training message by n_dev^-DevPower, n_dev
	// being its developer's message count: 0 weighs messages equally, 1
	// weighs developers equally. A few prolific developers otherwise set the
	// class priors and the vocabulary for everyone.
	DevPower float64 `json:"dev_power"`
	// ClassPower weights each message by n_class^-ClassPower (0: none,
	// 1: balanced classes).
	ClassPower float64 `json:"class_power"`
	// NoRules names override rules to switch off (for measuring them).
	NoRules []string `json:"no_rules,omitempty"`
	// Iterations caps the L-BFGS iterations.
	Iterations int `json:"iterations"`
}

// DefaultParams are the parameters of the shipped weights. They were chosen
// by leave-one-developer-out cross validation on the tune part (7 developers,
// 490 messages; the held-back developers were not used), where they give
// kappa 0.765. The same cross validation showed that word and character
// n-grams add nothing for unseen developers (cues alone score the same), so
// character n-grams are off and word n-grams kept only for what they add on
// developers the judge has seen (session-level cross validation: 0.81 with
// cues alone, 0.82 with them). The shares of developers and classes are
// flattened (DevPower, ClassPower 0.5) because two developers who paste
// error logs make the tune part 52% critical.
var DefaultParams = Params{
	Lambda: 0.02, Words: 2, Bigrams: 1.4, Chars: 0, Lead: 1.4, Cues: 1,
	MinDF: 2, Fine: true, DevPower: 0.5, ClassPower: 0.5, Iterations: 400,
}

func (p Params) features() featureOptions {
	return featureOptions{Words: p.Words, Bigrams: p.Bigrams, Chars: p.Chars, Lead: p.Lead, Cues: p.Cues}
}

// Model is a trained multinomial logistic regression over hashed features.
type Model struct {
	// Params are the parameters the model was trained with.
	Params Params
	// Classes name the output units: fine label names if Params.Fine,
	// otherwise move names.
	Classes []string
	// Bias holds one intercept per class.
	Bias []float64
	// Weights maps a feature's hash (featureHash of its key) to its weight
	// for each class.
	Weights map[uint32][]float64
	// Names maps a cue feature's hash to its key, for reasons and for a
	// readable weights file. N-gram keys are not kept: they are made from
	// corpus text.
	Names map[uint32]string
	// Meta describes where the model came from.
	Meta ModelMeta
	// Calibration turns a label's score into a calibrated confidence; nil
	// when the model was not calibrated (Confidence is then 0).
	Calibration *Calibration
}

// ModelMeta records how a model was trained.
type ModelMeta struct {
	// CorpusSHA256 is the SHA-256 of messages.jsonl followed by labels.jsonl
	// of the labels corpus trained from.
	CorpusSHA256 string `json:"corpus_sha256"`
	// Split says how the tune part was chosen.
	Split string `json:"split"`
	// TuneItems is the number of messages trained on.
	TuneItems int `json:"tune_items"`
	// Features is the number of features with weights.
	Features int `json:"features"`
}

// featureHash is the 32-bit FNV-1a hash of a feature key. Collisions merge
// two features, the same way in training and labelling.
func featureHash(key string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return h.Sum32()
}

// moveOfClass returns, per class, the move it counts for.
func (m *Model) moveOfClass() []Move {
	out := make([]Move, len(m.Classes))
	for i, c := range m.Classes {
		if m.Params.Fine {
			f, _ := ParseFine(c)
			out[i] = f.Move()
		} else {
			out[i], _ = ParseMove(c)
		}
	}
	return out
}

// scores returns the class probabilities for the feature map f.
func (m *Model) scores(f map[string]float64) []float64 {
	z := append([]float64(nil), m.Bias...)
	for _, k := range sortedKeys(f) {
		w, ok := m.Weights[featureHash(k)]
		if !ok {
			continue
		}
		v := f[k]
		for c := range z {
			z[c] += w[c] * v
		}
	}
	softmax(z)
	return z
}

func softmax(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	var s float64
	for i, v := range z {
		z[i] = math.Exp(v - mx)
		s += z[i]
	}
	for i := range z {
		z[i] /= s
	}
}

// sparse is one training item: feature indices, values, class.
type sparse struct {
	idx []int
	val []float64
	y   int
	w   float64
}

// Train fits a model to the examples with parameters p: the weighted mean
// log loss plus Lambda/2 times the squared distance of the weights from their
// priors (cuePriors; zero for n-grams), minimised by L-BFGS from the priors.
// It is deterministic: the same examples in the same order and the same p
// give the same weights. Sums run in a fixed order and products are rounded
// before they are added (no fused multiply-add), so the platform matters only
// through math.Exp and math.Log, whose last bits may differ between
// architectures; the weights are stored rounded to 4 decimals.
//
// Its phases: the classes (4-way or fine); each example's features and
// their document frequencies, keeping features seen often enough and every
// cue with a prior; the sparse design matrix (values of keys sharing a
// hash summed in key order); the example weights (per developer and
// class, normalised to mean 1); the objective and its gradient (eval);
// L-BFGS from the priors; and the model's rounded weights, biases,
// feature names and metadata.
func Train(exs []Example, p Params) (*Model, error) {
	if len(exs) == 0 {
		return nil, errors.New("judge: train: no examples")
	}
	m := &Model{Params: p, Weights: map[uint32][]float64{}, Names: map[uint32]string{}}
	if p.Fine {
		for _, f := range Fines() {
			m.Classes = append(m.Classes, f.String())
		}
	} else {
		for _, mv := range Moves() {
			m.Classes = append(m.Classes, mv.String())
		}
	}
	k := len(m.Classes)
	opts := p.features()

	// Features per example, document frequencies by hash.
	feats := make([]map[string]float64, len(exs))
	df := map[uint32]int{}
	for i, e := range exs {
		f, _ := extract(e.Message, e.PrevAgent, opts)
		feats[i] = f
		seen := map[uint32]bool{}
		for key := range f {
			h := featureHash(key)
			if strings.HasPrefix(key, "q:") {
				m.Names[h] = key
			}
			if !seen[h] {
				seen[h] = true
				df[h]++
			}
		}
	}
	// Cues with a prior are kept even when no training message shows them:
	// their weights then stay at the prior.
	for name := range cuePriors {
		h := featureHash(name)
		m.Names[h] = name
		if _, ok := df[h]; !ok {
			df[h] = 0 // keep the cue; it has no document frequency
		}
	}
	var kept []uint32
	for h, n := range df {
		if n >= p.MinDF || m.Names[h] != "" {
			kept = append(kept, h)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i] < kept[j] })
	col := make(map[uint32]int, len(kept))
	for i, h := range kept {
		col[h] = i
	}
	data := make([]sparse, len(exs))
	for i, e := range exs {
		var s sparse
		// Sum values of keys that share a hash, in key order.
		acc := map[int]float64{}
		for _, key := range sortedKeys(feats[i]) {
			if c, ok := col[featureHash(key)]; ok {
				acc[c] += feats[i][key]
			}
		}
		for c := range acc {
			s.idx = append(s.idx, c)
		}
		sort.Ints(s.idx)
		for _, c := range s.idx {
			s.val = append(s.val, acc[c])
		}
		if p.Fine {
			if !e.Fine.Valid() {
				return nil, fmt.Errorf("judge: train: item %s has no fine label", e.ID)
			}
			s.y = int(e.Fine) - 1
		} else {
			s.y = e.Move.Index()
		}
		data[i] = s
	}
	// Message weights, normalised to mean 1.
	devN, classN := map[string]int{}, map[int]int{}
	for i, e := range exs {
		devN[e.Repo]++
		classN[data[i].y]++
	}
	var wsum float64
	for i, e := range exs {
		w := math.Pow(float64(devN[e.Repo]), -p.DevPower) * math.Pow(float64(classN[data[i].y]), -p.ClassPower)
		data[i].w = w
		wsum += w
	}
	for i := range data {
		data[i].w *= float64(len(data)) / wsum
	}
	nf := len(kept)
	dim := nf*k + k // weights (feature-major) then biases
	n := float64(len(data))
	// Prior means of the weights: zero, or the cue's prior.
	prior := make([]float64, nf*k)
	for name, pw := range cuePriors {
		c, ok := col[featureHash(name)]
		if !ok {
			continue
		}
		for j := 0; j < k; j++ {
			var mv Move
			if p.Fine {
				mv = Fines()[j].Move()
			} else {
				mv = Moves()[j]
			}
			prior[c*k+j] = pw[mv.Index()]
		}
	}

	eval := func(grad, x []float64) float64 {
		if grad != nil {
			for i := range grad {
				grad[i] = 0
			}
		}
		var loss float64
		z := make([]float64, k)
		for _, s := range data {
			copy(z, x[nf*k:])
			for t, c := range s.idx {
				v := s.val[t]
				row := x[c*k : c*k+k]
				for j := 0; j < k; j++ {
					z[j] += float64(row[j] * v)
				}
			}
			softmax(z)
			loss -= float64(s.w * math.Log(math.Max(z[s.y], 1e-300)))
			if grad == nil {
				continue
			}
			z[s.y] -= 1
			for j := range z {
				z[j] = float64(z[j] * s.w)
			}
			for t, c := range s.idx {
				v := s.val[t]
				g := grad[c*k : c*k+k]
				for j := 0; j < k; j++ {
					g[j] += float64(z[j] * v)
				}
			}
			gb := grad[nf*k:]
			for j := 0; j < k; j++ {
				gb[j] += z[j]
			}
		}
		loss /= n
		var reg float64
		for i := 0; i < nf*k; i++ {
			d := x[i] - prior[i]
			reg += float64(d * d)
		}
		loss += float64(p.Lambda / 2 * reg)
		if grad != nil {
			for i := range grad {
				grad[i] /= n
			}
			for i := 0; i < nf*k; i++ {
				grad[i] += float64(p.Lambda * (x[i] - prior[i]))
			}
		}
		return loss
	}
	iters := p.Iterations
	if iters <= 0 {
		iters = 400
	}
	x0 := make([]float64, dim)
	copy(x0, prior)
	x, err := minimize(func(x, grad []float64) float64 { return eval(grad, x) }, x0, iters, 1e-7)
	if err != nil {
		return nil, fmt.Errorf("judge: train: %w", err)
	}
	m.Bias = roundAll(x[nf*k:])
	for i, h := range kept {
		w := roundAll(x[i*k : i*k+k])
		nz := false
		for _, v := range w {
			if v != 0 {
				nz = true
			}
		}
		if nz {
			m.Weights[h] = w
		}
	}
	for h := range m.Names {
		if _, ok := m.Weights[h]; !ok {
			delete(m.Names, h)
		}
	}
	m.Meta.TuneItems = len(exs)
	m.Meta.Features = len(m.Weights)
	return m, nil
}

// weightDecimals is the precision weights are stored with: small enough a
// file, and far below what changes a label.
const weightDecimals = 4

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	s := math.Pow(10, weightDecimals)
	for i, x := range v {
		out[i] = math.Round(x*s) / s
		if out[i] == 0 {
			out[i] = 0 // no negative zero
		}
	}
	return out
}

// modelFile is the JSON form of a Model.
type modelFile struct {
	Format string    `json:"format"`
	About  string    `json:"about"`
	Meta   ModelMeta `json:"meta"`
	// Calibration is fitted by BuildWeights (see Calibration).
	Calibration *Calibration         `json:"calibration,omitempty"`
	Params      Params               `json:"params"`
	Classes     []string             `json:"classes"`
	Bias        []float64            `json:"bias"`
	Cues        map[string][]float64 `json:"cues"`
	// Hashed holds the n-gram features as [hash, w_1, ..., w_k], by hash.
	Hashed [][]float64 `json:"hashed"`
}

const modelFormat = "ub-judge-builtin/1"

// MarshalJSON writes the model in a stable, compact form: cues by name,
// n-grams by hash, one per line, sorted.
func (m *Model) MarshalJSON() ([]byte, error) {
	mf := modelFile{
		Format:      modelFormat,
		About:       "weights of ub's built-in move judge; regenerate with go generate ./judge",
		Meta:        m.Meta,
		Calibration: m.Calibration,
		Params:      m.Params,
		Classes:     m.Classes,
		Bias:        m.Bias,
		Cues:        map[string][]float64{},
	}
	hs := make([]uint32, 0, len(m.Weights))
	for h := range m.Weights {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	for _, h := range hs {
		if name, ok := m.Names[h]; ok {
			mf.Cues[name] = m.Weights[h]
			continue
		}
		mf.Hashed = append(mf.Hashed, append([]float64{float64(h)}, m.Weights[h]...))
	}
	// Hand-written layout: one feature per line keeps diffs readable.
	var b bytes.Buffer
	head := mf
	head.Cues, head.Hashed = nil, nil
	hb, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	b.Write(hb[:len(hb)-1])
	b.WriteString(",\n\"cues\": {")
	names := make([]string, 0, len(mf.Cues))
	for n := range mf.Cues {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		nb, _ := json.Marshal(n)
		b.WriteString("\n")
		b.Write(nb)
		b.WriteString(": ")
		writeFloats(&b, mf.Cues[n])
	}
	b.WriteString("\n},\n\"hashed\": [")
	for i, row := range mf.Hashed {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		writeFloats(&b, row)
	}
	b.WriteString("\n]}\n")
	return b.Bytes(), nil
}

func writeFloats(b *bytes.Buffer, v []float64) {
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	}
	b.WriteByte(']')
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (m *Model) UnmarshalJSON(data []byte) error {
	var mf modelFile
	if err := json.Unmarshal(data, &mf); err != nil {
		return err
	}
	if mf.Format != modelFormat {
		return fmt.Errorf("judge: weights format %q, want %q", mf.Format, modelFormat)
	}
	k := len(mf.Classes)
	if k == 0 || len(mf.Bias) != k {
		return fmt.Errorf("judge: weights: %d classes, %d biases", k, len(mf.Bias))
	}
	for _, c := range mf.Classes {
		if mf.Params.Fine {
			if _, err := ParseFine(c); err != nil {
				return err
			}
		} else if _, err := ParseMove(c); err != nil {
			return err
		}
	}
	*m = Model{Params: mf.Params, Classes: mf.Classes, Bias: mf.Bias, Meta: mf.Meta, Calibration: mf.Calibration,
		Weights: map[uint32][]float64{}, Names: map[uint32]string{}}
	for n, w := range mf.Cues {
		if len(w) != k {
			return fmt.Errorf("judge: weights: cue %s has %d weights, want %d", n, len(w), k)
		}
		h := featureHash(n)
		m.Weights[h] = w
		m.Names[h] = n
	}
	for i, row := range mf.Hashed {
		if len(row) != k+1 || row[0] < 0 || row[0] > math.MaxUint32 || row[0] != math.Trunc(row[0]) {
			return fmt.Errorf("judge: weights: hashed row %d is malformed", i)
		}
		m.Weights[uint32(row[0])] = row[1:]
	}
	return nil
}
