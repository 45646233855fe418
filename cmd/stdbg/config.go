package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
)

func (a *app) configCmd() *cobra.Command {
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
			if a.v.GetBool("json") {
				return a.printConfigJSON(cmd, keys)
			}
			if a.configFile != "" {
				fmt.Fprintf(a.stdout, "# config file: %s\n", a.configFile)
			} else {
				fmt.Fprintln(a.stdout, "# config file: none (no stdbg.yaml here or above)")
			}
			for _, k := range keys {
				fmt.Fprintf(a.stdout, "%-*s = %-8v  # %s\n", w, k, a.v.Get(k), a.source(cmd, k))
			}
			return nil
		},
	}
	addSettings(cmd, knownKeys()...)
	return cmd
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print stdbg's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(a.stdout, "stdbg "+version)
			return nil
		},
	}
}

// configSetting is one setting of stdbg config --json.
type configSetting struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// printConfigJSON prints the settings as {"config_file": ..., "settings":
// {key: {"value": ..., "source": ...}}}.
func (a *app) printConfigJSON(cmd *cobra.Command, keys []string) error {
	out := struct {
		ConfigFile string                   `json:"config_file"`
		Settings   map[string]configSetting `json:"settings"`
	}{ConfigFile: a.configFile, Settings: map[string]configSetting{}}
	for _, k := range keys {
		out.Settings[k] = configSetting{Value: a.v.Get(k), Source: a.source(cmd, k)}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return usageErr("encoding the settings: %v", err)
	}
	fmt.Fprintln(a.stdout, string(b))
	return nil
}
