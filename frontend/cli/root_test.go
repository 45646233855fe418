package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestOneCommandBuilt checks that a command line naming a command, which
// Run builds alone under the root, gets the same help, flags and errors
// as from the whole tree, and that a line naming none still gets the
// whole tree's help and suggestions.
func TestOneCommandBuilt(t *testing.T) {
	var lines [][]string
	for _, c := range commandBuilders {
		lines = append(lines, []string{c.name, "--help"})
	}
	lines = append(lines,
		[]string{"corpus", "list", "--help"},
		[]string{"find", "--max-depth", "x", "prog.c"},
		[]string{"find", "--no-such-flag", "prog.c"},
		[]string{"version", "extra"},
		[]string{"config", "--json", "--max-depth", "7"},
	)
	for _, line := range lines {
		t.Run(strings.Join(line, " "), func(t *testing.T) {
			if got := commandNamed(line); got != line[0] {
				t.Fatalf("commandNamed(%q) = %q, want %q", line, got, line[0])
			}
			var wantOut, wantErr bytes.Buffer
			whole := newRoot(nil, &wantOut, &wantErr)
			whole.SetArgs(line)
			werr := whole.Execute()
			out, errs, code := stdbg(t, line...)
			if out != wantOut.String() {
				t.Errorf("stdout:\n%s\nwant (the whole tree's):\n%s", out, wantOut.String())
			}
			if (werr != nil) != (code != exitClean) {
				t.Errorf("exit status %d, the whole tree's error %v (stderr %q)", code, werr, errs)
			}
			if werr != nil && !strings.Contains(errs, werr.Error()) {
				t.Errorf("stderr %q does not say the whole tree's error %q", errs, werr.Error())
			}
		})
	}
	for _, line := range [][]string{{"--help"}, {"help"}, {"fnd", "x"}, {"--config", "stdbg.yaml", "version"}, {}} {
		if got := commandNamed(line); got != "" {
			t.Errorf("commandNamed(%q) = %q, want the whole tree", line, got)
		}
	}
	out, _, _ := stdbg(t, "--help")
	for _, c := range commandBuilders {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("stdbg --help does not list %s:\n%s", c.name, out)
		}
	}
	if _, errs, code := stdbg(t, "fnd", "x"); code != exitUsage || !strings.Contains(errs, "Did you mean this?\n\tfind") {
		t.Errorf("stdbg fnd x: exit status %d, stderr %q; want a usage error suggesting find", code, errs)
	}
}
