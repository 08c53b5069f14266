// Package ub is ub's data model: the things every study is made of,
// defined once, with no behaviour beyond what a value says of itself.
//
// A Session is one recorded conversation of a developer with a coding
// agent, a list of Turns; a developer turn that is not a command is a
// moment of the UserBench study. An Episode is one tau2-bench simulation of
// a user simulator talking to an agent on a Task of a Run, with its
// Messages, ToolCalls, reward Checks and Attempts; probe Findings flag it
// (ProbeFinding). A FidelityEpisode is an episode as one grader graded it
// against its rubric's criteria, in the criterion families of
// FidelityFamilies; a VerdictPair counts two graders' verdicts on the same
// criteria. A CoveragePoint is one point of a judge's risk-coverage curve.
//
// Parsers (ingest) produce these types, queries stores and loads them,
// analysis computes on them, reports render them. This package imports
// nothing of the module, so every other package can speak in its terms
// (the layout of benbjohnson/wtf).
package ub
