// Command ub is an offline batch analytics engine for evaluating LLM user
// simulators. See the README for the commands.
package main

import "os"

func main() { os.Exit(Main()) }
