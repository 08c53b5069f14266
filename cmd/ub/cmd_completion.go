package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// newCompletionCommand is "ub completion SHELL": the script that completes
// ub's commands and flags in bash, zsh or fish.
func newCompletionCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			a, err := args(c)
			if err != nil {
				return err
			}
			if len(a) != 1 {
				return usagef("completion: name one shell: bash, zsh or fish")
			}
			switch a[0] {
			case "bash":
				_, err = fmt.Fprint(sio.out, bashCompletion)
			case "zsh":
				_, err = fmt.Fprint(sio.out, zshCompletion)
			case "fish":
				var s string
				if s, err = c.App.ToFishCompletion(); err == nil {
					_, err = fmt.Fprint(sio.out, s)
				}
			default:
				return usagef("completion: unknown shell %q: want bash, zsh or fish", a[0])
			}
			return err
		},
	}
}

// bashCompletion and zshCompletion ask ub for the words that may follow
// (urfave/cli's --generate-bash-completion), as urfave/cli's own scripts do.
const bashCompletion = `# bash completion for ub: ub completion bash > /etc/bash_completion.d/ub
_ub_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o bashdefault -o default -F _ub_complete ub
`

const zshCompletion = `#compdef ub
# zsh completion for ub: ub completion zsh > "${fpath[1]}/_ub"
_ub() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} $cur --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _ub ub
`
