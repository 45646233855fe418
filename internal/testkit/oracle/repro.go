package oracle

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Finding is a disagreement found on a generated program, with the
// program shrunk while it lasts.
type Finding struct {
	Lang     Lang
	Seed     uint64
	Original *Program
	// Program is the shrunk program: no single change of it that Shrink
	// tries keeps the disagreement.
	Program *Program
	// Disagreement is the one the shrinking kept; Result is the
	// comparison on Program.
	Disagreement Disagreement
	Result       *Result
}

// Name is the finding's file name stem: go-1234-dpor-missed-3f2a, the
// last part a hash of the disagreement's detail.
func (f *Finding) Name() string {
	h := fnv.New32a()
	h.Write([]byte(f.Disagreement.Detail))
	return fmt.Sprintf("%s-%d-%s-%s-%04x", f.Lang, f.Seed, f.Disagreement.Strategy, f.Disagreement.What, h.Sum32()&0xffff)
}

// Report is the finding in words: the disagreement, what each search
// reported, the program.
func (f *Finding) Report() string {
	var b strings.Builder
	if f.Seed != 0 {
		fmt.Fprintf(&b, "%s program, seed %d (shrunk from %d to %d operations)\n", f.Lang, f.Seed, f.Original.Size(), f.Program.Size())
	}
	if f.Disagreement.Strategy != "" {
		fmt.Fprintf(&b, "disagreement: %s\n", f.Disagreement)
	}
	if r := f.Result; r != nil {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "not compared: %s\n", r.Skipped)
		}
		if r.Reference != nil {
			fmt.Fprintf(&b, "every schedule (DFS, no reduction): %d executions, %d traces, bugs %s\n",
				r.Reference.Stats.Executions, len(r.Reference.Traces), keyList(r.Reference))
			for _, k := range r.Reference.Keys() {
				fmt.Fprintf(&b, "  %s: schedule %v\n", k, r.Reference.Bugs[k].Schedule)
			}
		}
		for _, v := range r.Verdicts {
			fmt.Fprintf(&b, "%s: %d executions, complete %v, bugs %s\n", v.Strategy, v.Stats.Executions, v.Complete, keyList(v))
		}
		if r.Memory != nil {
			fmt.Fprintf(&b, "%s\n", r.Memory.summary())
		}
		for _, d := range r.Disagree {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return b.String()
}

func keyList(v *Verdict) string {
	ks := v.Keys()
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// Write writes the finding's reproducers into dir: NAME.prog (the program's
// text, which TestOracleReplay runs again, with the report as comments)
// and a standalone NAME_test.go (Go) or NAME.c (C) that stdbg checks as it
// would any program. It returns the files written.
func (f *Finding) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := f.Name()
	comment := f.Report()
	var files []string
	prog := filepath.Join(dir, name+".prog")
	text := commentLines(comment, "// ") + f.Program.String()
	if err := os.WriteFile(prog, []byte(text), 0o644); err != nil {
		return nil, err
	}
	files = append(files, prog)
	switch f.Lang {
	case Go:
		fn := fmt.Sprintf("TestOracle%s%d", strings.ToUpper(string(f.Lang[:1])), f.Seed)
		src, err := GoTest(f.Program, "repro", fn, comment+"\n"+f.Program.String())
		if err != nil {
			return files, err
		}
		path := filepath.Join(dir, strings.ReplaceAll(name, "-", "_")+"_test.go")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return files, err
		}
		files = append(files, path)
	case C:
		src, err := CSource(f.Program, commentLines(comment+"\n"+f.Program.String(), " * "))
		if err != nil {
			return files, err
		}
		path := filepath.Join(dir, name+".c")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

func commentLines(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
	}
	return b.String()
}

// Markdown is the finding as a section of a findings file.
func (f *Finding) Markdown(files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s: %s (%s)\n\n", f.Name(), f.Disagreement.What, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	b.WriteString("```\n" + f.Report() + "```\n\nProgram:\n\n```\n" + f.Program.String() + "```\n")
	if len(files) > 0 {
		fmt.Fprintf(&b, "\nReproducers: %s\n", strings.Join(files, ", "))
	}
	return b.String()
}

// AppendFile appends text to the file at path, creating it if needed.
func AppendFile(path, text string) error {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fh.WriteString(text); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
