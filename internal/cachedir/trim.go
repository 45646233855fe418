package cachedir

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What Trim keeps and how often it looks. Every entry of the cache is
// named by what it was made from (a target's path and build settings, a
// source tree's content, a debug file's content), so nothing ever replaces
// an entry that is no longer wanted: a program built in a temporary
// directory, a stdbg upgraded, a C library updated each leave one behind.
// As Go's build cache does, an entry not used for Unused is removed.
const (
	// Unused is how long an entry may go unused before Trim removes it.
	Unused = 5 * 24 * time.Hour
	// trimEvery is how often Trim looks at the cache at all.
	trimEvery = 24 * time.Hour
	// usedEvery is how stale an entry's time of use may be before Used
	// writes it again (a write at every use would cost every command).
	usedEvery = time.Hour
)

// trimmed are the cache's directories whose entries Trim removes when
// unused (libkeys: the source hash of the C library kept for each stdbg
// binary); the C interposition libraries (lib-*) are entries of the cache
// directory itself.
var trimmed = []string{"targets", "goinstr", "gosrc", "dwarf", "libkeys"}

// stampName is the file whose modification time says when Trim last
// looked; trashPrefix names an entry Trim took out and has not finished
// removing.
const (
	stampName   = "trimmed"
	trashPrefix = ".trash-"
)

// Used marks the cache entry at path (a file or directory) as used now, so
// that Trim keeps it; it writes at most once an hour. Errors are ignored:
// an entry whose use is not recorded is built again once trimmed.
func Used(path string) {
	fi, err := os.Stat(path)
	if err != nil || time.Since(fi.ModTime()) < usedEvery {
		return
	}
	now := time.Now()
	os.Chtimes(path, now, now)
}

// Trim removes, at most once a day, the entries of the cache at base that
// have not been used (Used, or made) for Unused, and returns how many it
// took out. An entry is first renamed out of the way, so that no command
// ever sees half of one, then removed; what a process that ended meanwhile
// left is removed by the next Trim.
func Trim(base string) int {
	stamp := filepath.Join(base, stampName)
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < trimEvery {
		return 0
	} else if os.IsNotExist(err) {
		// A new cache: start counting from now.
		if f, err := os.Create(stamp); err == nil {
			f.Close()
		}
		return 0
	}
	now := time.Now()
	if err := os.Chtimes(stamp, now, now); err != nil {
		return 0
	}
	return trimAt(base, now.Add(-Unused))
}

// trimAt takes out the entries of the cache at base last used before
// cutoff and removes them, with any trash an earlier Trim left.
func trimAt(base string, cutoff time.Time) int {
	var trash []string
	n := 0
	take := func(dir string, e os.DirEntry) {
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), trashPrefix) {
			trash = append(trash, path)
			return
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.ModTime().Before(cutoff) {
			return
		}
		out := filepath.Join(dir, trashPrefix+e.Name())
		if os.Rename(path, out) == nil {
			trash = append(trash, out)
			n++
		}
	}
	for _, sub := range trimmed {
		dir := filepath.Join(base, sub)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			take(dir, e)
		}
	}
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "lib-") || strings.HasPrefix(e.Name(), trashPrefix) {
			take(base, e)
		}
	}
	for _, p := range trash {
		os.RemoveAll(p)
	}
	return n
}
