package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// pruneCommand is stdbg corpus prune: it removes the entries whose bug is
// fixed.
func (c *rerunner) pruneCommand() *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "prune [DIR|ENTRY...]",
		Short: "remove the entries whose bug is fixed",
		Long: `Rerun every entry (default: every corpus under the current directory, each
testdata/stdbg below it, as ./... finds packages) as stdbg corpus
run does, and remove those reported fixed: their whole schedule runs and the
program ends cleanly. Entries that reproduce, diverge, fail differently or
cannot be rerun are kept. --dry-run lists what would be removed.

Exit status: 0 when every entry could be rerun, 2 when an entry is corrupt
or errors (nothing is removed then) or when there is no entry.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := c.all(args, func(rerun) {})
			if err != nil {
				return err
			}
			if err := corpusExit(results); err != nil && err != bugFound {
				return err
			}
			removed := 0
			for _, r := range results {
				if r.Status != statusFixed {
					continue
				}
				if dryRun {
					fmt.Fprintf(c.stdout, "would remove %s\n", r.Path)
					removed++
					continue
				}
				if err := os.Remove(r.Path); err != nil {
					return usageErr("removing %s: %v", r.Path, err)
				}
				fmt.Fprintf(c.stdout, "removed %s\n", r.Path)
				removed++
			}
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			fmt.Fprintf(c.stdout, "%d entries, %s %d fixed\n", len(results), verb, removed)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list the fixed entries instead of removing them")
	cmd.Flags().StringVar(&c.binary, "binary", "", binaryFlagUsage)
	addSettings(cmd, "transition-timeout", "start-timeout")
	return cmd
}
