// Package analysis turns scored rows into the statistics behind every ub
// figure, for the three studies:
//
//   - UserBench (userbench.go, accuracy.go, sweep.go, trials.go, ...):
//     per-developer and macro accuracy, the chance line, paired effects
//     (profile, reasoning effort, history), per-move agreement, the
//     terse-only ablation rates, the context and history sweeps, the N x K
//     surface, rank and linear correlation;
//   - user fidelity (fidelity.go, fidelity_uncertainty.go, compare_two.go):
//     UFS and its families over ub.FidelityEpisode, the cost frontier, the
//     graders' agreement, bootstrap intervals over tasks;
//   - the human review (review.go, reviewer_accuracy.go, attempts.go): the
//     simulator error rate, its intervals and the review plan's sizes.
//
// Around them: binomial and bootstrap intervals, Cohen's and Fleiss' kappa,
// the tau2 release and reward-spread tables. The judge-free probes are
// package analysis/probes.
//
// The package is pure: functions take plain Go slices, maps and structs
// (the data model's types, package ub) and return plain structs. It reads no
// database and imports no other ub package but the data model; moves are
// strings (the labels of SPEC section 4), so a caller passes whatever the
// judge wrote, including "other".
//
// # Conventions
//
// The unit of analysis for UserBench is the developer, not the moment: a
// developer's accuracy is the share of their moments scored correctly, and
// every headline number is a macro mean over developers with a Student t
// interval, so a chatty developer does not outweigh a quiet one (SPEC section
// 5). Paired comparisons pair per developer and report which developers could
// not be paired instead of dropping them silently.
//
// Intervals at the study level use [Confidence] (95%). Functions that cannot
// produce a number (an empty sample, a single developer, a zero variance)
// return NaN in that field and say so in their comment; bad input never
// panics.
//
// Results are deterministic: developers, moves and settings are sorted before
// they are aggregated, and every slice in a result is in sorted order, so the
// same rows give byte-identical reports.
package analysis
