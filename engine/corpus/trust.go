package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RecordedEnv are the environment variables an entry may hold: those stdbg
// itself records (the seed of a Go program's random numbers and the stall
// bound of its virtual time; that an instrumented C program logs its
// memory accesses). Anything else (loader or shell variables) could
// change what runs.
var RecordedEnv = []string{"STDBG_RAND_SEED", "STDBG_MAX_STALL", "STDBG_MEM_LOG"}

// RefusedError says why an entry is refused before anything of it runs:
// an entry is data, and may only name a program inside its own project.
type RefusedError struct {
	Entry  string // the entry's path
	Field  string // target.binary, target.source, target.env
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: refused: %s %s", e.Entry, e.Field, e.Reason)
}

// Roots are the directories an entry's paths must stay within: the root of
// the project holding the entry (the nearest directory above it with .git,
// else with go.mod). An entry in no project may name what lies in its own
// tree (the directory holding its testdata directory, as stdbg find lays
// a corpus out next to its target, else the entry's directory) or in the
// project of the current directory (a corpus written to a scratch
// directory, naming the programs of the project stdbg runs in), or, when
// the current directory is in no project either, in the current directory
// (stdbg find --corpus DIR run there wrote it so).
func Roots(entryPath string) []string {
	dir, err := filepath.Abs(filepath.Dir(entryPath))
	if err != nil {
		return []string{filepath.Dir(entryPath)}
	}
	if r := projectRoot(dir); r != "" {
		return []string{r}
	}
	own := dir
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "testdata" {
			own = filepath.Dir(d)
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	roots := []string{own}
	if wd, err := os.Getwd(); err == nil {
		if r := projectRoot(wd); r != "" {
			roots = append(roots, r)
		} else if wd != "/" {
			roots = append(roots, wd)
		}
	}
	return roots
}

// projectRoot is the nearest directory at or above dir holding .git, else
// go.mod; "" when there is none.
func projectRoot(dir string) string {
	for _, marker := range []string{".git", "go.mod"} {
		for d := dir; ; {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return ""
}

// Resolve turns one of an entry's paths (field names it in errors) into
// the path of a file inside the entry's project: it must be relative to the
// entry's directory, and neither it nor a symbolic link on its way may
// lead out of Root.
func Resolve(entryPath, field, p string) (string, error) {
	refuse := func(reason string) error { return &RefusedError{Entry: entryPath, Field: field, Reason: reason} }
	switch {
	case p == "":
		return "", refuse("is empty")
	case filepath.IsAbs(p):
		return "", refuse(fmt.Sprintf("%q is an absolute path: an entry may name only a program inside its project, relative to the entry", p))
	}
	roots := Roots(entryPath)
	joined := filepath.Join(filepath.Dir(entryPath), p)
	abs, err := filepath.Abs(joined)
	if err != nil {
		return "", refuse(fmt.Sprintf("cannot be checked: %v", err))
	}
	real := canonical(abs)
	for _, root := range roots {
		if within(canonical(root), real) {
			return joined, nil
		}
	}
	return "", refuse(fmt.Sprintf("%q leads out of the project %s (to %s): an entry may name only a program inside its project; "+
		"name an outside program on the command line (--binary)", p, strings.Join(roots, " or "), real))
}

// canonical resolves the symbolic links of p, as far as it exists: a
// missing file is the program's business (reported when building or
// running it), as long as its path stays inside.
func canonical(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		up := filepath.Dir(p)
		if up == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = up
	}
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// CheckEnv refuses an environment holding anything but RecordedEnv.
func CheckEnv(entryPath string, env []string) error {
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		allowed := false
		for _, r := range RecordedEnv {
			allowed = allowed || ok && name == r
		}
		if !allowed {
			return &RefusedError{Entry: entryPath, Field: "target.env",
				Reason: fmt.Sprintf("holds %q: an entry may hold only the variables stdbg records (%s), never loader or shell variables",
					name, strings.Join(RecordedEnv, ", "))}
		}
	}
	return nil
}
