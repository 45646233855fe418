package cli

//go:generate go test -run TestSettingsPage -args -update-settings-page

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// updateSettingsPage rewrites the generated part of docs/settings.md
// instead of comparing it (go generate ./cmd/stdbg).
var updateSettingsPage = flag.Bool("update-settings-page", false, "rewrite the generated part of docs/settings.md from the settings table and the commands' flags")

const (
	settingsPage  = "../../docs/settings.md"
	settingsBegin = "<!-- Generated from frontend/cli/settings.go and the commands' flags by go generate ./cmd/stdbg; do not edit between these lines. -->\n"
	settingsEnd   = "<!-- End of the generated part. -->\n"
)

// renderSettings writes the reference of every setting and of every
// command's own flags, from the settings table and root's command tree.
func renderSettings(root *cobra.Command) string {
	var b strings.Builder
	cmds := commandsOf(root)
	b.WriteString("## Every setting\n\n")
	b.WriteString("Each is a flag of the commands listed, an `STDBG_*` environment variable\n")
	b.WriteString("and a key of `stdbg.yaml`; `stdbg config` takes every one.\n\n")
	b.WriteString("| setting | default | environment | commands | meaning |\n|---|---|---|---|---|\n")
	config := root.Commands()
	var cfg *cobra.Command
	for _, c := range config {
		if c.Name() == "config" {
			cfg = c
		}
	}
	for _, s := range settings {
		flagName := "`--" + s.key + "`"
		def := ""
		if cfg != nil {
			if f := cfg.Flags().Lookup(s.key); f != nil {
				if f.Shorthand != "" {
					flagName += ", `-" + f.Shorthand + "`"
				}
				def = f.DefValue
			}
		}
		var users []string
		for _, c := range cmds {
			if c.Name() == "config" {
				continue
			}
			if c.LocalFlags().Lookup(s.key) != nil {
				users = append(users, strings.TrimPrefix(c.CommandPath(), "stdbg "))
			}
		}
		env := "`STDBG_" + strings.ToUpper(strings.ReplaceAll(s.key, "-", "_")) + "`"
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", flagName, cell(code(def)), env, cell(strings.Join(users, ", ")), cell(s.usage))
	}
	b.WriteString("\n## The flags of each command\n\n")
	b.WriteString("Every command also takes `--config FILE` (read the settings from FILE instead\n")
	b.WriteString("of searching for `stdbg.yaml`) and `--help`.\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n### `%s`\n\n", c.CommandPath())
		fmt.Fprintf(&b, "`%s`: %s.\n", c.UseLine(), c.Short)
		var own, set []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			switch {
			case f.Hidden || f.Name == "help":
			case knownKey(f.Name):
				set = append(set, "`--"+f.Name+"`")
			default:
				own = append(own, f.Name)
			}
		})
		if len(set) > 0 {
			if c.Name() == "config" {
				fmt.Fprintf(&b, "\nSettings: every one.\n")
			} else {
				fmt.Fprintf(&b, "\nSettings: %s.\n", strings.Join(set, ", "))
			}
		}
		if len(own) == 0 {
			continue
		}
		b.WriteString("\n| flag | default | meaning |\n|---|---|---|\n")
		for _, name := range own {
			f := c.LocalFlags().Lookup(name)
			flagName := "`--" + f.Name + "`"
			if f.Shorthand != "" {
				flagName += ", `-" + f.Shorthand + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", flagName, cell(code(f.DefValue)), cell(f.Usage))
		}
	}
	return b.String()
}

// commandsOf returns the runnable commands under root, depth first in
// cobra's order, without help and completion.
func commandsOf(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Runnable() {
				out = append(out, sub)
			}
			walk(sub)
		}
	}
	walk(root)
	return out
}

// code shows a default value as code, and an empty one as nothing.
func code(v string) string {
	if v == "" || v == "[]" {
		return ""
	}
	return "`" + v + "`"
}

// cell makes s safe in a cell of a Markdown table: a bar would end the
// cell, and <word> would be taken for an HTML tag outside code.
func cell(s string) string {
	if strings.HasPrefix(s, "`") {
		return strings.ReplaceAll(s, "|", `\|`)
	}
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace(s)
}

// TestSettingsPage checks that docs/settings.md holds the reference that
// renderSettings makes from the settings table and the commands' flags, so
// that a setting or a flag added, removed or reworded without the page
// fails here. go generate ./cmd/stdbg rewrites it.
func TestSettingsPage(t *testing.T) {
	page, err := os.ReadFile(settingsPage)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(page), settingsBegin)
	if !ok {
		t.Fatalf("%s has no line %q", settingsPage, strings.TrimSpace(settingsBegin))
	}
	got, after, ok := strings.Cut(rest, settingsEnd)
	if !ok {
		t.Fatalf("%s has no line %q", settingsPage, strings.TrimSpace(settingsEnd))
	}
	want := "\n" + renderSettings(newRoot(nil, io.Discard, io.Discard)) + "\n"
	if *updateSettingsPage {
		if err := os.WriteFile(settingsPage, []byte(before+settingsBegin+want+settingsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end)"
		}
		t.Errorf("docs/settings.md is out of date (run go generate ./cmd/stdbg); first difference, line %d of the generated part:\n page: %s\n want: %s", i+1, line(gl), line(wl))
	}
}

// TestRenderSettings checks the reference against the sources it is made
// from: a row for every setting with its environment variable, and every
// command with each of its own flags.
func TestRenderSettings(t *testing.T) {
	root := newRoot(nil, io.Discard, io.Discard)
	page := renderSettings(root)
	for _, s := range settings {
		row := "| `--" + s.key + "`"
		env := "`STDBG_" + strings.ToUpper(strings.ReplaceAll(s.key, "-", "_")) + "`"
		if !strings.Contains(page, row) || !strings.Contains(page, env) {
			t.Errorf("setting %s: no row with %s and %s", s.key, row, env)
		}
	}
	cmds := commandsOf(root)
	names := map[string]bool{}
	for _, c := range cmds {
		names[c.CommandPath()] = true
		if !strings.Contains(page, "### `"+c.CommandPath()+"`") {
			t.Errorf("no section for %s", c.CommandPath())
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" && !strings.Contains(page, "`--"+f.Name+"`") {
				t.Errorf("%s: flag --%s missing", c.CommandPath(), f.Name)
			}
		})
	}
	for _, want := range []string{"stdbg find", "stdbg replay", "stdbg corpus run", "stdbg corpus merge", "stdbg cc", "stdbg config"} {
		if !names[want] {
			t.Errorf("commandsOf missed %s (found %v)", want, names)
		}
	}
	if !strings.Contains(page, "| `--jobs`, `-j` | `0` | `STDBG_JOBS` | find, test |") {
		t.Errorf("the row of --jobs is not as expected:\n%s", page)
	}
}
