// Package rubric owns the user-fidelity study's rubrics and grading (SPEC
// 6.2, seed 002): the criterion families and modes (Families), reading
// rubric and verdict files (ParseRubrics, ParseVerdicts, ImportRubricFile,
// ImportVerdictFile, each quote checked against the task's texts), writing
// rubrics with a model writer and its verifier (WriteRubrics), and grading
// each episode against its task's criteria with a model grader (Grade). Its
// model paths are steps of the runner (sim/runner), as the move judge's
// are; it shares nothing else with package judge, the move judge.
package rubric
