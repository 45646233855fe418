package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Corpora lists the corpus directories under root, as go's ./... finds
// the packages under it: every Root (testdata/stdbg) below root, root's own
// included, where find, stdbg test and sthread.Check keep the bugs of the
// programs and tests beside it. Like ./..., it does not enter directories
// whose names begin with . or _, nor vendor, nor the rest of a testdata
// directory (fixtures). When root is itself in a corpus (under a
// testdata/stdbg), it is the one corpus. The directories are named from
// root (root joined with their relative path), in walking order.
func Corpora(root string) ([]string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if inCorpus(abs) {
		return []string{root}, nil
	}
	var dirs []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable directory holds nothing to list
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "vendor") {
			return filepath.SkipDir
		}
		if name != "testdata" {
			return nil
		}
		c := filepath.Join(p, filepath.Base(Root))
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			dirs = append(dirs, c)
		}
		return filepath.SkipDir
	})
	return dirs, err
}

// inCorpus reports whether the absolute directory dir is a corpus or in
// one: dir or a directory above it is testdata/stdbg.
func inCorpus(dir string) bool {
	for {
		if filepath.Base(dir) == filepath.Base(Root) && filepath.Base(filepath.Dir(dir)) == filepath.Dir(Root) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
