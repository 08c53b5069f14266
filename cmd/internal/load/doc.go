// Package load assembles what a report is drawn from, out of a workspace:
// the UserBench study scored with one judge, the judges' measured quality
// and agreement, the split, the tau2 episodes and their probe rates, the
// human review, and the user-fidelity study graded by one grader. ub
// report, ub publish and ub demo load a study through Report, so all three
// draw the same report from the same workspace; the page-writing commands
// to come take the same road.
//
// It is the one package that reads the store on the report's behalf:
// reports itself runs no SQL. It lives below cmd because it reads both
// judge (the judges' quality and agreement, the review) and reports, and
// judge/review prints through reports/visible: in either folder it would
// make an arrow run back up.
package load
