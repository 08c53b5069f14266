// Package reports turns results into what people read: tables in text,
// CSV, JSON and Markdown, figures (gonum/plot) and the Markdown report. It
// runs no SQL; it formats what it is given.
package reports
