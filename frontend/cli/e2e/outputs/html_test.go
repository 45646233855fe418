package outputs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// chromium returns the path of the headless browser the HTML tests use.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH: the HTML tests render pages in a real browser; install it (.ci/run does: apt-get install chromium)")
	return ""
}

// renderDOM loads page in headless Chromium and returns the DOM once its
// script has run.
func renderDOM(t *testing.T, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+abs)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v", page, err)
	}
	return string(out)
}

// TestHTMLInBrowser renders the pages of find, replay and corpus show in
// headless Chromium and checks what a reader sees: the banner, one lane
// per thread, one row per step, the end state with its waits-for graph,
// the source beside each step, the replay commands, the script run; and
// that the page loads nothing from elsewhere.
func TestHTMLInBrowser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpusDir := filepath.Join(dir, "corpus")
	found := filepath.Join(dir, "found.html")
	if out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, "--html", found, clirun.Example("deadly-embrace.c")); code != cli.ExitBug {
		t.Fatalf("find --html: exit %d\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(found)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"[a-z]+:|@import|url\(\s*['"]?(https?|file):`).Find(raw); m != nil {
		t.Errorf("the page loads %s from elsewhere", m)
	}
	entries, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("corpus: %v", entries)
	}
	replayed := filepath.Join(dir, "replay.html")
	if _, errs, code := clirun.Stdbg(t, "replay", "--html", replayed, entries[0]); code != cli.ExitBug {
		t.Fatalf("replay --html: exit %d %s", code, errs)
	}
	shown := filepath.Join(dir, "show.html")
	if _, errs, code := clirun.Stdbg(t, "corpus", "show", "--html", shown, entries[0]); code != cli.ExitClean {
		t.Fatalf("corpus show --html: exit %d %s", code, errs)
	}
	for _, page := range []string{found, replayed, shown} {
		dom := renderDOM(t, page)
		checks := []struct {
			what string
			re   string
			n    int
		}{
			{"the bug banner", `<p class="banner bug">\*\*\* DEADLOCK DETECTED \*\*\*</p>`, 1},
			{"a lane per thread", `<th class="lane" data-thread="\d+">`, 2},
			{"a row per step", `<tr class="step"[^>]* data-step="\d+">`, 4},
			{"a row per waiting thread", `<tr class="wait( selected)?">`, 2},
			{"the source of each step and wait", `<div class="src" data-file="[^"]*deadly-embrace.c">`, 6},
			{"the failing line marked", `<span class="ln cur"><span class="no">29</span>`, 1},
			{"the waits-for graph's threads", `<g class="node" data-thread="\d">`, 2},
			{"the waits-for graph's edges", `<path class="edge" data-from="1" data-to="2"|<path class="edge" data-from="2" data-to="1"`, 2},
			{"the replay commands", `stdbg replay --gdb `, 1},
			{"the script ran", `<body data-rendered="6">`, 1},
			{"the source pinned beside the lanes", `<div class="panel source-panel"><div class="src"`, 1},
		}
		for _, c := range checks {
			if got := len(regexp.MustCompile(c.re).FindAllString(dom, -1)); got < c.n {
				t.Errorf("%s: %s: found %d of %q, want %d", filepath.Base(page), c.what, got, c.re, c.n)
			}
		}
		if t.Failed() {
			t.Fatalf("DOM of %s:\n%s", page, dom)
		}
	}
}

// A lasso's page marks its cycle as repeating.
func TestHTMLLasso(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "lasso.html")
	if out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--livelock", "--html", page, clirun.Example(filepath.Join("liveness", "priority-inversion.c"))); code != cli.ExitBug {
		t.Fatalf("find --livelock --html: exit %d\n%s\n%s", code, out, errs)
	}
	dom := renderDOM(t, page)
	if !strings.Contains(dom, `<tr class="cycle-start"><td colspan="`) || !strings.Contains(dom, "cycle, repeated forever:") ||
		!strings.Contains(dom, `in-cycle" data-step=`) || !strings.Contains(dom, "LIVELOCK") {
		t.Fatalf("the cycle is not marked:\n%s", dom)
	}
}
