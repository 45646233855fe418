package outputs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/internal/testkit/sarifschema"
	"github.com/stdbg/stdbg/output/sarif"
)

// readSARIF reads a log stdbg wrote, checks it against the official
// schema and returns it.
func readSARIF(t *testing.T, path string) *sarif.Log {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no SARIF log: %v", err)
	}
	if err := sarifschema.Validate(b); err != nil {
		t.Fatalf("%s is not valid SARIF 2.1.0: %v", path, err)
	}
	var l sarif.Log
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return &l
}

// find --sarif and corpus run --sarif write valid SARIF 2.1.0: one result
// per bug at its line, its schedule as thread flows; what could not be
// judged as notifications.
func TestSARIF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpusDir := filepath.Join(dir, "corpus")
	found := filepath.Join(dir, "found.sarif")
	out, errs, code := clirun.Stdbg(t, "find", "--no-save=false", "--corpus", corpusDir, "--sarif", found, clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
		t.Fatalf("find --sarif: exit %d\n%s\n%s", code, out, errs)
	}
	l := readSARIF(t, found)
	res := l.Runs[0].Results
	if len(res) != 1 || res[0].RuleID != "deadlock" || !strings.Contains(res[0].Message.Text, "Path = 1;1;2") {
		t.Fatalf("results %+v", res)
	}
	at := res[0].Locations[0].Physical
	if at.Artifact.URI != filepath.ToSlash(clirun.Example("deadly-embrace.c")) && !strings.HasSuffix(at.Artifact.URI, "/examples/c/deadly-embrace.c") || at.Region.StartLine != 29 {
		t.Errorf("the deadlock is at %+v %+v, want deadly-embrace.c:29", at.Artifact, at.Region)
	}
	if flows := res[0].CodeFlows[0].ThreadFlows; len(flows) != 2 || len(flows[0].Locations) != 3 || len(flows[1].Locations) != 3 {
		t.Errorf("thread flows %+v", flows)
	}

	// A corrupt entry beside the real one.
	if err := os.WriteFile(filepath.Join(corpusDir, "broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	rerun := filepath.Join(dir, "rerun.sarif")
	out, errs, code = clirun.Stdbg(t, "corpus", "run", "--sarif", rerun, corpusDir)
	if code != cli.ExitUsage {
		t.Fatalf("corpus run --sarif: exit %d\n%s\n%s", code, out, errs)
	}
	l = readSARIF(t, rerun)
	run := l.Runs[0]
	if len(run.Results) != 1 || run.Results[0].RuleID != "deadlock" || len(run.Results[0].CodeFlows) != 1 ||
		len(run.Invocations[0].Notifications) != 1 || run.Invocations[0].Successful ||
		!strings.Contains(run.Invocations[0].Notifications[0].Message.Text, "broken.json: corrupt") {
		t.Fatalf("corpus run log: %+v", run)
	}

	// An output that cannot be written is refused before the search.
	_, errs, code = clirun.Stdbg(t, "find", "--sarif", filepath.Join(dir, "missing", "x.sarif"), clirun.Example("deadly-embrace.c"))
	if code != cli.ExitUsage || !strings.Contains(errs, "does not exist") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("--sarif into a missing directory: exit %d %q", code, errs)
	}
}
