// Package lines is the one line reader of ub: lines of any length with
// their 1-based numbers (Reader), the non-blank lines of a JSONL file
// (ReadJSONL, ReadJSONLFile), bad input at a place (ParseError) and JSON
// decoding errors worded for the person who wrote the file (JSONReason).
// It imports only the standard library, so that every package that reads
// lines (ingest, judge, the model runner's batch files) shares it.
package lines
