package judge

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// BuildWeights trains the built-in judge on the tune part of the labels
// corpus in dir (Split with SplitSalt and HeldShare, DefaultParams),
// calibrates its confidence on the tune part's leave-one-repository-out
// labels (FitCalibration; the held-back part is not used) and returns the
// weights file, as shipped in builtin_weights.json. `go generate ./judge`
// writes it.
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
	res, err := CrossValidate(tune, DefaultParams, func(e Example) string { return e.Repo })
	if err != nil {
		return nil, err
	}
	correct := make([]bool, len(tune))
	for i, e := range tune {
		correct[i] = res[i].Move == e.Move
	}
	cal, err := FitCalibration(res, correct)
	if err != nil {
		return nil, err
	}
	m.Calibration = &cal
	sum, err := corpusSHA256(dir)
	if err != nil {
		return nil, err
	}
	m.Meta.CorpusSHA256 = sum
	m.Meta.Split = fmt.Sprintf("tune part: all but the developers (repos) held back by FNV-1a 64 of %q, held share %.2f", SplitSalt, HeldShare)
	return json.Marshal(m)
}

func corpusSHA256(dir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"messages.jsonl", "labels.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

//go:embed builtin_measure.json
var builtinMeasure []byte

// BuildMeasurement measures the built-in judge on the labels corpus in dir
// (MeasureLORO over the whole corpus with DefaultParams, the held-back
// repositories of Split as the unseen ones) and also labels the held-back
// part with a judge trained on the tune part only, as the shipped weights
// are (Measurement.Shipped). It returns the file shipped as
// builtin_measure.json; `go generate ./judge` writes it.
func BuildMeasurement(dir string) ([]byte, error) {
	exs, err := LoadCorpus(dir)
	if err != nil {
		return nil, err
	}
	tune, held, isHeld := Split(exs, SplitSalt, HeldShare)
	m, _, err := MeasureLORO(exs, DefaultParams, isHeld)
	if err != nil {
		return nil, err
	}
	model, err := Train(tune, DefaultParams)
	if err != nil {
		return nil, err
	}
	ag, _, err := Evaluate(FromModel(model), held)
	if err != nil {
		return nil, err
	}
	m.Shipped = kappaCI(ag)
	if m.CorpusSHA256, err = corpusSHA256(dir); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// BuiltinMeasurement returns the measurement of the built-in judge shipped
// with it (builtin_measure.json, embedded; see BuildMeasurement).
func BuiltinMeasurement() (Measurement, error) {
	var m Measurement
	if err := json.Unmarshal(builtinMeasure, &m); err != nil {
		return m, fmt.Errorf("judge: embedded builtin_measure.json: %w", err)
	}
	return m, nil
}
