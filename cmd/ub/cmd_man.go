package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// newManCommand is "ub man": the manual page, made from the commands' help.
func newManCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff; docs/ub.1 is this output)",
		Action: func(c *cli.Context) error {
			s, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(sio.out, s)
			return err
		},
	}
}
