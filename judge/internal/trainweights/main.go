// Command trainweights trains the built-in judge on the tune part of a labels
// corpus and writes its weights (judge/builtin_weights.json). With -cv it
// instead reports leave-one-developer-out cross validation on the tune part,
// the way DefaultParams were chosen; with -held it also scores the held-back
// part.
//
//	go run ./judge/internal/trainweights -labels ../shared/corpus/labels -out judge/builtin_weights.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"

	"github.com/ub-bench/ub/judge"
)

func main() {
	labels := flag.String("labels", "../../shared/corpus/labels", "labels corpus directory")
	out := flag.String("out", "builtin_weights.json", "weights file to write")
	cv := flag.Bool("cv", false, "report cross validation on the tune part instead of writing weights")
	held := flag.Bool("held", false, "with -cv: also train on all of the tune part and score the held-back part")
	params := flag.String("params", "", "JSON object overriding DefaultParams (for -cv)")
	verbose := flag.Bool("v", false, "with -cv: print every misjudged tune message")
	group := flag.String("group", "repo", "with -cv: fold by repo (developer) or session")
	measure := flag.Bool("measure", false, "write the leave-one-repository-out measurement (builtin_measure.json) to -out instead of weights")
	all := flag.Bool("all", false, "with -cv: cross-validate over the whole corpus, held-back part included (for reporting only, never for tuning)")
	flag.Parse()
	if *measure {
		b, err := judge.BuildMeasurement(*labels)
		if err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "trainweights:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*labels, *out, *cv, *held, *params, *verbose, *group, *all); err != nil {
		fmt.Fprintln(os.Stderr, "trainweights:", err)
		os.Exit(1)
	}
}

func run(labels, out string, cv, held bool, params string, verbose bool, group string, all bool) error {
	exs, err := judge.LoadCorpus(labels)
	if err != nil {
		return err
	}
	tune, heldEx, _ := judge.Split(exs, judge.SplitSalt, judge.HeldShare)
	p := judge.DefaultParams
	if params != "" {
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			return fmt.Errorf("-params: %w", err)
		}
	}
	if cv {
		if all {
			tune = exs
		}
		fold := func(e judge.Example) string { return e.Repo }
		switch group {
		case "repo":
		case "session":
			// Ten folds of whole sessions.
			fold = func(e judge.Example) string {
				h := fnv.New32a()
				fmt.Fprintf(h, "%s#%d", e.Repo, e.Session)
				return fmt.Sprint(h.Sum32() % 10)
			}
		default:
			return fmt.Errorf("-group %q: want repo or session", group)
		}
		res, err := judge.CrossValidate(tune, p, fold)
		if err != nil {
			return err
		}
		ref := make([]judge.Move, len(tune))
		got := make([]judge.Move, len(tune))
		for i := range tune {
			ref[i], got[i] = tune[i].Move, res[i].Move
			if verbose && ref[i] != got[i] {
				msg := tune[i].Message
				if len(msg) > 160 {
					msg = msg[:160]
				}
				fmt.Printf("%s ref=%s got=%s (%.2f; %s) %q\n", tune[i].ID, ref[i], got[i], res[i].Score, res[i].Reason, msg)
			}
		}
		ag, err := judge.Agree(ref, got)
		if err != nil {
			return err
		}
		fmt.Printf("%s cross validation (folds by %s):\n", map[bool]string{false: "tune-part", true: "whole-corpus"}[all], group)
		ag.Format(os.Stdout, "labels", "builtin")
		if held {
			m, err := judge.Train(tune, p)
			if err != nil {
				return err
			}
			hag, _, err := judge.Evaluate(judge.FromModel(m), heldEx)
			if err != nil {
				return err
			}
			fmt.Println("held-back part:")
			hag.Format(os.Stdout, "labels", "builtin")
		}
		return nil
	}
	if params != "" {
		return fmt.Errorf("-params only applies to -cv: the shipped weights use judge.DefaultParams")
	}
	b, err := judge.BuildWeights(labels)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
