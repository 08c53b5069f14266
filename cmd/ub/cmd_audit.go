package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
)

// errAuditFailed is returned when ub audit finds a leak; exit code 5.
var errAuditFailed = errors.New("audit failed")

func newAuditCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "check that no developer or repository leaks across splits and no point lies in a profile session",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print findings as JSON"}},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runAudit(c, sio, c.Bool("json"))
		},
	}
}

func runAudit(c *cli.Context, sio *streams, asJSON bool) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	findings, err := queries.Audit(c.Context, ws.Conn())
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return reportAudit(sio, findings, asJSON)
}

func reportAudit(sio *streams, findings []queries.Finding, asJSON bool) error {
	if asJSON {
		type f struct {
			Check    string `json:"check"`
			Offender string `json:"offender"`
		}
		out := make([]f, len(findings))
		for i, x := range findings {
			out[i] = f{x.Check, x.Offender}
		}
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"ok": len(findings) == 0, "findings": out}); err != nil {
			return err
		}
	} else {
		for _, x := range findings {
			fmt.Fprintf(sio.out, "FAIL %s: %s\n", x.Check, x.Offender)
		}
		if len(findings) == 0 {
			fmt.Fprintln(sio.out, "audit ok: no developer or repository in two splits, no profile session after a held-out one, every point a held-out moment")
		}
	}
	if len(findings) > 0 {
		return fmt.Errorf("%d finding(s): %w", len(findings), errAuditFailed)
	}
	return nil
}
