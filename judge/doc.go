// Package judge holds the move taxonomy, the built-in offline judge and the
// agreement statistics between judges (SPEC section 4).
//
// # Taxonomy
//
// A developer message makes one move: approve, critical, directive or
// inquiry, or other when it makes none (Move). The study started from seven
// finer labels (Fine); Map7To4 collapses the two confusable pairs. The
// fault-first rule settles messages that do several things: a message that
// asserts or shows a fault is critical whatever else it does; otherwise a
// request for action is a directive, a request for information an inquiry,
// an acceptance an approval (Resolve). Other is a label like the others: it
// is counted and reported, never dropped.
//
// # The built-in judge
//
// Builtin labels a message offline. Its weights (builtin_weights.json,
// embedded) are a multinomial logistic regression over hand-written
// multilingual cues and word n-grams, trained by BuildWeights on the tune
// part of ../shared/corpus/labels (real developer messages labelled by a
// strong model judge). The corpus is split by developer (Split): the
// developers held back are never trained or tuned on, and TestHeldBackKappa
// reports the agreement on them. Messages that make no move (a pasted line
// of code, a comment, a shell prompt, a log line; fragment.go) get a cue
// with a prior toward other; a fragment that shows a fault stays critical.
//
// # Confidence and the cascade
//
// Every label carries Result.Confidence, the calibrated probability that it
// is right (Calibration: Platt scaling of the label's score, fitted on the
// tune part's leave-one-repository-out labels). MeasureLORO measures a
// judge design by leave-one-repository-out over the whole corpus: kappa
// with its interval (all repositories, and those the shipped weights never
// saw), the reliability diagram and ECE, and the risk-coverage curve; the
// shipped measurement is builtin_measure.json (BuiltinMeasurement). The
// cascade (Cascade, ub judge --cascade builtin,NAME) keeps the built-in
// judge's most confident labels and sends the rest to a model judge.
// LabelWorkspace labels a workspace's points or generations with the
// built-in judge; LabelJSONL the messages of a JSONL file.
//
// Regenerate the weights and the measurement with
//
//	go generate ./judge
//
// and explore parameters, by cross validation on the tune part only, with
//
//	go run ./judge/internal/trainweights -labels ../shared/corpus/labels -cv [-v] [-params '{"lambda":0.05}']
//
// # Agreement
//
// Agree computes Cohen's kappa between two labellings with the Fleiss, Cohen
// and Everitt (1969) standard error and a 95% interval, the confusion matrix
// and per-label agreement.
//
// # Model steps
//
// The judges' and graders' model paths are steps of the runner
// (sim/runner.Step, run by RunStep): JudgeStep and JudgeWithModel (the model
// judge; one request builder, JudgeRequest), Cascade and JudgeCascade (the
// built-in judge's least confident share through JudgeStep). The
// user-fidelity study's rubrics and grading are package judge/rubric's.
package judge
