package main

import "github.com/urfave/cli/v2"

// requireFlags marks the string flags named in flags as required.
func requireFlags(flags []cli.Flag, names ...string) []cli.Flag {
	for _, f := range flags {
		if s, ok := f.(*cli.StringFlag); ok {
			for _, n := range names {
				if s.Name == n {
					s.Required = true
				}
			}
		}
	}
	return flags
}
