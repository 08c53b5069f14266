// Package synth writes synthetic studies with planted effects: the
// fixtures of the report's tests and benchmarks, and a way to see every
// figure without a model endpoint or a cent spent. Write writes the
// UserBench study (seed 000, below); WriteFidelity the user-fidelity study
// (seed 002: UserProxyBench episodes of 7 simulators in 4 domains, their
// rubrics and verdicts, with planted UFS, costs and family effects; the
// planted values are in fidelity.go). The demo's corpus, files ub demo
// ingests as a user's, is package democorpus.
//
// The study has the seed's shape and goes through the workspace's own
// tables, so every ub command reads it as it reads real data: about 190
// developers in about 160 components (the largest 16 developers across 3
// repositories), split train/val/test by [graph.Assign] with ub split's
// rules; sessions with turns (every moment's real developer message and the
// agent turn before it); 20 eligible test developers, the others dropping
// out of the funnel at the sessions or the moments rule; 24 frozen points
// per eligible developer drawn by [graph.FreezePoints] (480 points); the
// planted simulators in their conditions at N = 14, K = 0; the context
// sweep (N = 1..10 and 14), the history sweep (K = 0..64 at N = 14), the
// substitution test (K = 0, 8, 64 at N = 1) and the N x K surface for
// gemini-3.5-flash without profile; and labels of judge "synth" (the
// planted moves) on every point and generation, and of judge "synth-alt"
// (agreeing 88% of the time) on the points and the leaderboard
// generations. Scale 10 and 100 multiply the developers, and with them the
// points and generations, for benchmarks.
//
// # Planted values
//
// Accuracy at N = 14, K = 0 is the population mean of per-developer
// accuracy (the quantity the macro interval estimates); the lift is with
// minus without profile:
//
//	simulator            effort  without  with   lift    terse   words without/with
//	gpt-5.5              low     0.546    0.530  -0.016  0.521   36 / 17
//	claude-opus-4.8      low     0.520    0.528  +0.008          30 / 22
//	gemini-3.5-flash     low     0.505    0.517  +0.012          32 / 16
//	deepseek-v4-pro      low     0.486    0.509  +0.023          27 / 15
//	deepseek-v4-pro-max  high    0.487    0.526  +0.039          25 / 14
//	glm-5.2              low     0.460    0.559  +0.099  0.485   52 / 18
//	osim-8b                      0.430    0.479  +0.049          34 / 16
//	osim-4b                      0.400    0.473  +0.073          30 / 14
//
// The effort variant differs from deepseek-v4-pro by +0.017 with profile and
// +0.001 without. Terse-only generations have 8 words; real messages 11.
// GLM-5.2 and the OSim models over-ask without a profile (wrong guesses are
// four times as often inquiries), the terse prefix all but stops asking and
// loses critical recall (a -0.25 critical tilt).
//
// A developer's move mix is Dirichlet with mean approve 0.12, critical
// 0.28, directive 0.52, inquiry 0.08 and concentration 20; a simulator's
// hit probability at a moment is
//
//	accuracy + u_d + v_(s,c,d) + delta_(s,c)(real move) + g(min(N, P)) - g(min(14, P))
//
// with u_d uniform on +/-0.06 per developer, v uniform on +/-0.03 per
// (simulator, condition, developer), a per-move tilt delta with
// sum_m mu_m delta_m = 0 (so the planted accuracy stays the mean), P the
// moment's prior turns and g the context curve ([ContextCurve]): -0.06 at
// N = 1, rising with ln N to +0.08 at the peak N = 8, back to 0 at N = 14.
// History has no effect at any N ([HistoryEffect]). Nothing is clipped
// (TestNoClipping).
//
// Every draw comes from a PCG stream named by its purpose and seeded by
// Options.Seed, so the same seed writes the same rows.
package synth
