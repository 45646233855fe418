package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// MergeResult says what Merge did.
type MergeResult struct {
	// Added are the files written into the destination.
	Added []string
	// Present counts the entries the destination already held (the same
	// bug: kind, place and schedule), from an earlier merge or another
	// source.
	Present int
	// Skipped are the source files that could not be read (corrupt or of
	// another format), or whose file name is taken in the destination by a
	// different entry; they are left out, never dropped silently.
	Skipped []Item
}

// Merge copies the entries of the source corpora (directories or entry
// files, as List takes them) into the corpus dst, as the shards of one
// search spread over machines produce them. An entry keeps its place
// relative to its source root (testdata/stdbg/<target>/ stays so), its
// source path is rewritten to stay valid from its new directory, and an
// entry already present (same identity, Entry.Key) is not written again.
// Writes are atomic, so merging into a corpus others write to is safe.
func Merge(dst string, srcs ...string) (*MergeResult, error) {
	res := &MergeResult{}
	for _, src := range srcs {
		items, err := List(src)
		if err != nil {
			return res, fmt.Errorf("merging %s: %w", src, err)
		}
		root := src
		if st, err := os.Stat(src); err == nil && !st.IsDir() {
			root = filepath.Dir(src)
		}
		for _, it := range items {
			if it.Err != nil {
				res.Skipped = append(res.Skipped, it)
				continue
			}
			rel, err := filepath.Rel(root, filepath.Dir(it.Path))
			if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
				rel = "."
			}
			dir := filepath.Join(dst, rel)
			e := *it.Entry
			if e.Target.Source != "" && !filepath.IsAbs(e.Target.Source) {
				e.Target.Source = RelSource(dir, SourcePath(it.Path, it.Entry))
			}
			target := filepath.Join(dir, e.FileName())
			if old, err := Load(target); err == nil {
				if old.Key() == e.Key() {
					res.Present++
				} else {
					res.Skipped = append(res.Skipped, Item{Path: it.Path, Entry: it.Entry,
						Err: fmt.Errorf("%s holds another entry with the same file name", target)})
				}
				continue
			}
			path, existed, err := Save(dir, &e)
			if err != nil {
				return res, fmt.Errorf("merging %s: %w", it.Path, err)
			}
			if existed {
				res.Present++
				continue
			}
			res.Added = append(res.Added, path)
		}
	}
	return res, nil
}
