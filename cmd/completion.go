package cmd

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// completionScript returns the writer of shell's completion script for
// root, or nil when shell is not one cobra supports. The scripts ask the
// binary itself (its hidden __complete command) for the candidates, so they
// follow new flags and subcommands without being regenerated.
func completionScript(root *cobra.Command, shell string) func(io.Writer) error {
	switch shell {
	case "bash":
		return func(w io.Writer) error { return root.GenBashCompletionV2(w, true) }
	case "zsh":
		return root.GenZshCompletion
	case "fish":
		return func(w io.Writer) error { return root.GenFishCompletion(w, true) }
	case "powershell":
		return root.GenPowerShellCompletionWithDesc
	}
	return nil
}

// newCompletionCmd builds `agent completion SHELL`, which prints the
// completion script of bash, zsh, fish or powershell. The command takes a
// first word away from a prompt only in that exact form (and `agent
// completion` alone, or with --help, prints its help): any other words after
// it, or any flag, make the whole command line a prompt that begins with
// "completion", which run receives with the root's flags parsed, as if no
// completion command existed. So `agent completion of this function`,
// `agent "completion of this function"` and `agent -p completion bash` are
// prompts.
func newCompletionCmd(root *cobra.Command, run func(*cobra.Command, []string) error) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script",
		Long: `Print the completion script of a shell. To load it:

  bash:        source <(agent completion bash)      (needs the bash-completion package)
  zsh:         agent completion zsh > "${fpath[1]}/_agent"
  fish:        agent completion fish > ~/.config/fish/completions/agent.fish
  powershell:  agent completion powershell | Out-String | Invoke-Expression

Only "agent completion SHELL" is this command: with more words or any flag,
the command line is a prompt ("agent completion of this function").`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		// Flags belong to the prompt this may turn out to be, so the root
		// parses them (below), not this command.
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if write := completionScript(root, args[0]); write != nil {
					return write(c.OutOrStdout())
				}
			}
			if len(args) == 0 || len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
				return c.Help()
			}
			root.InitDefaultHelpFlag()
			if err := root.ParseFlags(args); err != nil {
				return root.FlagErrorFunc()(root, err)
			}
			if help, _ := root.Flags().GetBool("help"); help {
				return root.Help()
			}
			return run(root, append([]string{"completion"}, root.Flags().Args()...))
		},
	}
}

// completeFlagValues registers the values of the root's enumerated flags
// for shell completion.
func completeFlagValues(c *cobra.Command) {
	values := map[string][]string{
		"output-format":    {formatText, formatJSON, formatStreamJSON},
		"tools":            {string(picker.ModePick), string(picker.ModeSwap), string(picker.ModeAll)},
		"permission-mode":  {host.ModeAsk, host.ModeAuto, host.ModePlan, host.ModeYolo},
		"sandbox":          {string(sandbox.WorkspaceWrite), string(sandbox.ReadOnly), string(sandbox.Off)},
		"provider":         {profile.OpenAI, profile.OpenAIResponses, profile.Anthropic},
		"reasoning-effort": profile.ReasoningEfforts,
	}
	for flag, vals := range values {
		// Registering fails only for a flag that does not exist, which the
		// completion test would show as a flag without values.
		_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}
}
