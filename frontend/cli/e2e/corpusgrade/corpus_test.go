package corpusgrade

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

const racyProgram = `#include <assert.h>
#include <pthread.h>
#include <sched.h>
static int x;
static void *writer(void *a) { sched_yield(); x = 1; return a; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, writer, 0);
	sched_yield();
	assert(CHECK);
	pthread_join(t, 0);
	return 0;
}
`

func TestCorpusStatuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "racy.c")
	write := func(check string, yield bool) {
		text := strings.Replace(racyProgram, "CHECK", check, 1)
		if !yield {
			// A program that no longer starts the writer thread.
			text = strings.Replace(text, "\tpthread_create(&t, 0, writer, 0);\n", "", 1)
			text = strings.Replace(text, "\tpthread_join(t, 0);\n", "", 1)
		}
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("x == 0", true)
	out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--no-save=false", src)
	if code != cli.ExitBug || !strings.Contains(out, "PROPERTY NOT VALID") {
		t.Fatalf("find: %d\n%s\n%s", code, out, errs)
	}
	corpusDir := filepath.Join(dir, "testdata", "stdbg", "racy")
	entries, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(entries) != 1 || !strings.Contains(out, "Saved "+entries[0]) {
		t.Fatalf("entries %v; output:\n%s", entries, out)
	}
	// Finding it again stores nothing new.
	out, _, _ = clirun.Stdbg(t, "find", "--memory=false", "--no-save=false", src)
	if !strings.Contains(out, "Already in the corpus: "+entries[0]) {
		t.Errorf("second find:\n%s", out)
	}
	steps := []struct {
		check  string
		yield  bool
		status string
		code   int
	}{
		{"x == 0", true, "REPRODUCES", cli.ExitBug},
		{"x == 0 || x == 1", true, "FIXED", cli.ExitClean},
		{"x == 0", false, "DIVERGED", cli.ExitClean},
	}
	for _, st := range steps {
		write(st.check, st.yield)
		junitFile := filepath.Join(dir, "junit.xml")
		out, errs, code := clirun.Stdbg(t, "corpus", "run", "--junit", junitFile, corpusDir)
		if code != st.code || !strings.Contains(out, st.status+" ") {
			t.Fatalf("%s: exit %d (want %d)\n%s\n%s", st.status, code, st.code, out, errs)
		}
		if st.status == "DIVERGED" && !strings.Contains(out, "thread 2 does not exist") {
			t.Errorf("divergence does not say why:\n%s", out)
		}
		var doc struct {
			Suites []struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
			} `xml:"testsuite"`
		}
		b, err := os.ReadFile(junitFile)
		if err != nil || xml.Unmarshal(b, &doc) != nil || len(doc.Suites) != 1 {
			t.Fatalf("junit: %v\n%s", err, b)
		}
		s := doc.Suites[0]
		wantFail := 0
		if st.status == "REPRODUCES" {
			wantFail = 1
		}
		if s.Tests != 1 || s.Failures != wantFail || s.Errors != 0 {
			t.Errorf("%s: junit %+v", st.status, s)
		}
	}

	// A corrupt entry beside them: it is reported, the others still run,
	// and the exit status says the corpus could not be judged.
	junk := filepath.Join(corpusDir, "junk.json")
	os.WriteFile(junk, []byte("{"), 0o644)
	write("x == 0 || x == 1", true)
	out, errs, code = clirun.Stdbg(t, "corpus", "run", corpusDir)
	if code != cli.ExitUsage || !strings.Contains(out, "CORRUPT") || !strings.Contains(out, "FIXED ") || !strings.Contains(errs, "could not be rerun") {
		t.Errorf("corrupt entry: exit %d (want %d)\n%s\n%s", code, cli.ExitUsage, out, errs)
	}
	// prune refuses while an entry is corrupt, and removes nothing.
	_, _, code = clirun.Stdbg(t, "corpus", "prune", corpusDir)
	if _, err := os.Stat(entries[0]); code != cli.ExitUsage || err != nil {
		t.Errorf("prune with a corrupt entry: exit %d, entry: %v", code, err)
	}
	os.Remove(junk)
	out, _, code = clirun.Stdbg(t, "corpus", "prune", "--dry-run", corpusDir)
	if _, err := os.Stat(entries[0]); code != cli.ExitClean || err != nil || !strings.Contains(out, "would remove "+entries[0]) {
		t.Errorf("prune --dry-run: exit %d, entry: %v\n%s", code, err, out)
	}
	write("x == 0", true)
	out, _, code = clirun.Stdbg(t, "corpus", "prune", corpusDir)
	if _, err := os.Stat(entries[0]); code != cli.ExitClean || err != nil || !strings.Contains(out, "removed 0 fixed") {
		t.Errorf("prune of a reproducing entry: exit %d, entry: %v\n%s", code, err, out)
	}
	// The empty directory is no clean result.
	empty := t.TempDir()
	_, errs, code = clirun.Stdbg(t, "corpus", "run", empty)
	if code != cli.ExitUsage || !strings.Contains(errs, "no entry") {
		t.Errorf("empty corpus: exit %d %q", code, errs)
	}

	// replay ENTRY and corpus show work on the entry.
	write("x == 0", true)
	out, _, code = clirun.Stdbg(t, "replay", entries[0])
	if code != cli.ExitBug || !strings.Contains(out, "PROPERTY NOT VALID") {
		t.Errorf("replay entry: %d\n%s", code, out)
	}
	out, _, code = clirun.Stdbg(t, "corpus", "show", entries[0])
	if code != 0 || !strings.Contains(out, "schedule:") || !strings.Contains(out, "racy.c") {
		t.Errorf("corpus show: %d\n%s", code, out)
	}
	out, _, code = clirun.Stdbg(t, "corpus", "list", corpusDir)
	if code != 0 || !strings.Contains(out, "assertion") {
		t.Errorf("corpus list: %d\n%s", code, out)
	}
	os.WriteFile(junk, []byte("{"), 0o644)
	out, _, code = clirun.Stdbg(t, "corpus", "list", corpusDir)
	if code != 0 || !strings.Contains(out, "UNREADABLE") {
		t.Errorf("corpus list with junk: %d\n%s", code, out)
	}
	_, errs, code = clirun.Stdbg(t, "corpus", "show", junk)
	if code != cli.ExitUsage || !strings.Contains(errs, "junk.json") {
		t.Errorf("show junk: %d %q", code, errs)
	}
	write("x == 0 || x == 1", true)
	os.Remove(junk)
	out, _, code = clirun.Stdbg(t, "corpus", "prune", corpusDir)
	if _, err := os.Stat(entries[0]); code != cli.ExitClean || !os.IsNotExist(err) || !strings.Contains(out, "removed "+entries[0]) {
		t.Errorf("prune of a fixed entry: exit %d, entry: %v\n%s", code, err, out)
	}
}

// After this change thread 2 is a helper blocked on a mutex and the writer
// is thread 3: the stored schedule no longer fits, but the race survives.
const racyShifted = `#include <assert.h>
#include <pthread.h>
#include <sched.h>
static int x;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *helper(void *a) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return a; }
static void *writer(void *a) { sched_yield(); x = 1; return a; }
int main(void) {
	pthread_t h, t;
	pthread_mutex_lock(&m);
	pthread_create(&h, 0, helper, 0);
	pthread_create(&t, 0, writer, 0);
	sched_yield();
	assert(x == 0);
	pthread_mutex_unlock(&m);
	pthread_join(t, 0);
	pthread_join(h, 0);
	return 0;
}
`

func TestCorpusResearch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "racy.c")
	os.WriteFile(src, []byte(strings.Replace(racyProgram, "CHECK", "x == 0", 1)), 0o644)
	if _, _, code := clirun.Stdbg(t, "find", "--memory=false", "--no-save=false", src); code != cli.ExitBug {
		t.Fatalf("find: %d", code)
	}
	corpusDir := filepath.Join(dir, "testdata", "stdbg", "racy")
	entries, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("entries %v", entries)
	}
	before, _ := os.ReadFile(entries[0])
	os.WriteFile(src, []byte(racyShifted), 0o644)

	out, _, code := clirun.Stdbg(t, "corpus", "run", corpusDir)
	if code != cli.ExitClean || !strings.Contains(out, "DIVERGED") {
		t.Fatalf("without --research: %d\n%s", code, out)
	}
	out, errs, code := clirun.Stdbg(t, "corpus", "run", "--research", corpusDir)
	if code != cli.ExitBug || !strings.Contains(out, "REPRODUCES") || !strings.Contains(out, "the bug survives") {
		t.Fatalf("with --research: %d\n%s\n%s", code, out, errs)
	}
	after, _ := os.ReadFile(entries[0])
	if string(after) == string(before) {
		t.Fatal("the entry was not updated")
	}
	// The updated entry now reproduces as it is.
	out, _, code = clirun.Stdbg(t, "corpus", "run", corpusDir)
	if code != cli.ExitBug || !strings.Contains(out, "REPRODUCES") {
		t.Fatalf("updated entry: %d\n%s", code, out)
	}
}

// An entry is data: one that would run an outside program, or give the
// program loader or shell variables, is refused before anything runs.
func TestCorpusEntryRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sum, err := corpus.FileSHA256("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "touched")
	hostile := map[string]string{
		"outside-binary.json": `{"format":1,"target":{"kind":"binary","binary":"/bin/sh","binary_sha256":"` + sum +
			`","args":["-c","touch ` + marker + `"]},"failure":{"kind":"deadlock","where":"x"},"schedule":"1"}`,
		"loader-env.json": `{"format":1,"target":{"kind":"c-source","source":"` + filepath.Join(clirun.Root(), "..", "..", "..", "..", "..", "..", "..", "..", "tmp", "x.c") +
			`","env":["LD_PRELOAD=/tmp/evil.so"]},"failure":{"kind":"deadlock","where":"x"},"schedule":"1"}`,
	}
	for name, text := range hostile {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := clirun.Stdbg(t, "corpus", "run", dir)
	if code != cli.ExitUsage || strings.Count(out, "ERROR") != 2 || !strings.Contains(out, "refused: target.binary") ||
		!strings.Contains(out, "refused: target.env") || !strings.Contains(out, "0 reproduce") {
		t.Errorf("corpus run on hostile entries: exit %d\n%s\n%s", code, out, errs)
	}
	for name := range hostile {
		_, errs, code := clirun.Stdbg(t, "replay", filepath.Join(dir, name))
		if code != cli.ExitUsage || !strings.Contains(errs, "refused") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("replay %s: exit %d %q", name, code, errs)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hostile entry ran its command")
	}
}

// Entries hold only relative paths, so that a corpus moves with its
// repository.
func TestCorpusEntryPathsRelative(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", dir, clirun.Example("deadly-embrace.c")); code != cli.ExitBug {
		t.Fatalf("find: exit %d %s", code, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(paths) != 1 {
		t.Fatalf("entries %v", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Target map[string]any `json:"target"`
		Report struct {
			Steps []struct {
				Where struct{ File string } `json:"where"`
			} `json:"steps"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if src, _ := raw.Target["source"].(string); src == "" || filepath.IsAbs(src) || raw.Target["binary"] != nil {
		t.Errorf("target %v", raw.Target)
	}
	for _, s := range raw.Report.Steps {
		if s.Where.File == "" || filepath.IsAbs(s.Where.File) {
			t.Errorf("a step's file is %q", s.Where.File)
		}
	}
	// Loaded, the paths are whole again: show finds the source lines.
	out, errs, code := clirun.Stdbg(t, "corpus", "show", paths[0])
	if code != cli.ExitClean || !strings.Contains(out, "deadly-embrace.c:28  pthread_mutex_lock(&first);") {
		t.Errorf("corpus show: exit %d %s\n%s", code, errs, out)
	}
	if out, _, code := clirun.Stdbg(t, "corpus", "run", dir); code != cli.ExitBug || !strings.Contains(out, "REPRODUCES") {
		t.Errorf("corpus run: exit %d\n%s", code, out)
	}
}
