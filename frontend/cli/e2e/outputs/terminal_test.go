package outputs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// Without a terminal (CI), a long search says how it goes in plain lines
// on stderr; --quiet silences them.
func TestProgressWithoutTerminal(t *testing.T) {
	defer func(d time.Duration) { cli.ProgressEvery = d }(cli.ProgressEvery)
	cli.ProgressEvery = 50 * time.Millisecond
	args := []string{"find", "--strategy", "random", "--seed", "1", "--budget", "1s", clirun.Example("correct-counter.c")}
	_, errs, code := clirun.Stdbg(t, args...)
	if code != cli.ExitClean || !strings.Contains(errs, "stdbg: ") || !strings.Contains(errs, " executions  ") ||
		!strings.Contains(errs, "exec/s") || strings.Contains(errs, "\r") || strings.Contains(errs, "Ctrl-C") {
		t.Fatalf("find without a terminal: exit %d, stderr %q", code, errs)
	}
	_, errs, code = clirun.Stdbg(t, append([]string{"find", "--quiet"}, args[1:]...)...)
	if code != cli.ExitClean || strings.Contains(errs, "executions") {
		t.Fatalf("find --quiet: exit %d, stderr %q", code, errs)
	}
}

// Colours on a terminal only, and never with NO_COLOR.
func TestColourOnlyOnTerminal(t *testing.T) {
	const red = "\x1b[1;31m*** DEADLOCK DETECTED ***\x1b[0m"
	onTerminal := func(noColor string) string {
		t.Setenv("NO_COLOR", noColor)
		t.Setenv("TERM", "xterm")
		master, slave := openPTY(t)
		defer master.Close()
		got := make(chan string, 1)
		go func() {
			var b bytes.Buffer
			io.Copy(&b, master) // ends when the slave side closes
			got <- b.String()
		}()
		var errb bytes.Buffer
		code := cli.Run([]string{"find", clirun.Example("deadly-embrace.c")}, nil, slave, &errb)
		slave.Close()
		if code != cli.ExitBug {
			t.Fatalf("find on a terminal: exit %d: %s", code, errb.String())
		}
		select {
		case s := <-got:
			return s
		case <-time.After(time.Minute):
			t.Fatal("the terminal's output did not end")
		}
		return ""
	}
	if out := onTerminal(""); !strings.Contains(out, red) {
		t.Errorf("on a terminal, the banner is not red:\n%q", out)
	}
	if out := onTerminal("1"); strings.Contains(out, "\x1b") || !strings.Contains(out, "*** DEADLOCK DETECTED ***") {
		t.Errorf("with NO_COLOR, escapes on a terminal:\n%q", out)
	}
	out, _, _ := clirun.Stdbg(t, "find", clirun.Example("deadly-embrace.c"))
	if strings.Contains(out, "\x1b") {
		t.Errorf("escapes without a terminal:\n%q", out)
	}
}

// Text from a corpus entry cannot drive the terminal: control characters
// in it are printed escaped by corpus list and corpus show.
func TestCorpusTextCleaned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", dir, clirun.Example("deadly-embrace.c")); code != cli.ExitBug {
		t.Fatalf("find: exit %d: %s", code, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(paths) != 1 {
		t.Fatalf("entries: %v", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"message": "no thread`), []byte(`"message": "\u001b[2J\rno thread`), -1)
	if err := os.WriteFile(paths[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"corpus", "list", dir}, {"corpus", "show", paths[0]}} {
		out, errs, code := clirun.Stdbg(t, args...)
		if code != cli.ExitClean || strings.ContainsAny(out, "\x1b\r") || !strings.Contains(out, `\x1b[2J\x0dno thread`) {
			t.Errorf("%v: exit %d %s\n%q", args, code, errs, out)
		}
	}
}

// A shard's summary says which part of the search it covered.
func TestShardSummary(t *testing.T) {
	t.Parallel()
	out, errs, code := clirun.Stdbg(t, "find", "-j", "1", "--shard", "1/2", clirun.Example("correct-counter.c"))
	if code != cli.ExitClean || !strings.Contains(out, "Search: part 2 of 2 (--shard 1/2) of an exhaustive search (DFS with DPOR)") {
		t.Fatalf("find --shard 1/2: exit %d %s\n%s", code, errs, out)
	}
}
