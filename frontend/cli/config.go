package cli

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
)

// configCmd is stdbg config and stdbg version.
type configCmd struct{ *app }

func (c *configCmd) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "print the effective settings and where each comes from",
		Long: `Print every setting with its effective value and its source: a flag given to
this command, an STDBG_* environment variable, the stdbg.yaml file found (or
given with --config), or the built-in default. --json prints the same as
one JSON object.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			keys := knownKeys()
			sort.Strings(keys)
			w := 0
			for _, k := range keys {
				if len(k) > w {
					w = len(k)
				}
			}
			if c.s.JSON {
				return c.printJSON(cmd, keys)
			}
			if c.configFile != "" {
				fmt.Fprintf(c.stdout, "# config file: %s\n", c.configFile)
			} else {
				fmt.Fprintln(c.stdout, "# config file: none (no stdbg.yaml here or above)")
			}
			for _, k := range keys {
				fmt.Fprintf(c.stdout, "%-*s = %-8v  # %s\n", w, k, c.s.value(k), c.source(cmd, k))
			}
			return nil
		},
	}
	addSettings(cmd, knownKeys()...)
	return cmd
}

// versionCommand is stdbg version.
func (c *configCmd) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print stdbg's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(c.stdout, "stdbg "+version)
			return nil
		},
	}
}

// configSetting is one setting of stdbg config --json.
type configSetting struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// printJSON prints the settings as {"config_file": ..., "settings":
// {key: {"value": ..., "source": ...}}}.
func (c *configCmd) printJSON(cmd *cobra.Command, keys []string) error {
	out := struct {
		ConfigFile string                   `json:"config_file"`
		Settings   map[string]configSetting `json:"settings"`
	}{ConfigFile: c.configFile, Settings: map[string]configSetting{}}
	for _, k := range keys {
		out.Settings[k] = configSetting{Value: c.s.value(k), Source: c.source(cmd, k)}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return usageErr("encoding the settings: %v", err)
	}
	fmt.Fprintln(c.stdout, string(b))
	return nil
}
