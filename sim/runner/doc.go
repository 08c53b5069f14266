// Package runner is the one path of every model call ub makes: requests
// (Request, content-addressed by Key), the OpenAI-compatible client and its
// failure classes (Backend, CallError), the batch runner with retries, rate
// limit, cost accounting and crash safety (Run), the durable response cache
// (Store: DuckStore over a workspace, MemStore), provider batch files
// (WriteBatchFiles, ImportBatchResults), and the Step that a study's model
// path brings its Build and Parse to (RunStep).
//
// The steps themselves live with the package that owns the study: the
// simulators' in sim, the judges' and graders' in judge. runner imports
// only queries.
package runner
