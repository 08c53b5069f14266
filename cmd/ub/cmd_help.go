package main

import "github.com/urfave/cli/v2"

// newHelpCommand is "ub help [CMD...]": exactly "ub CMD... --help".
func newHelpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the help of ub or of a command (the same as ub CMD --help)",
		ArgsUsage: "[COMMAND...]",
		Action: func(c *cli.Context) error {
			a, err := args(c)
			if err != nil {
				return err
			}
			if len(a) == 0 {
				return cli.ShowAppHelp(c)
			}
			return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, a...), "--help"))
		},
	}
}
