package hunt

import (
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
)

// Corpus says where and how a hunt saves its bugs.
type Corpus struct {
	// Dir is the corpus directory.
	Dir string
	// Target is the entries' target, its paths relative to Dir.
	Target corpus.Target
	// Search describes the search that found the bugs (its MaxDepth is
	// the hunt's).
	Search corpus.Search
	// Version is stdbg's version, recorded in each entry.
	Version string
	// BinarySHA256, if not empty, is the checksum of the binary searched,
	// which a rerun compares to warn of a rebuilt program.
	BinarySHA256 string
	// NoLassos leaves lassos (livelocks, LTL violations) unsaved, for a
	// front end whose reruns only replay plain schedules.
	NoLassos bool
	// ReplaySaved, if not nil, is the command that replays a saved entry:
	// it becomes the report's Replay once the bug is saved.
	ReplaySaved func(path string) string
}

// Entry is the corpus entry of a finding.
func (c *Corpus) Entry(f *Finding, maxDepth int) *corpus.Entry {
	bug := f.Bug
	e := &corpus.Entry{
		Format:       corpus.Format,
		StdbgVersion: c.Version,
		Created:      time.Now().UTC().Truncate(time.Second),
		Target:       c.Target,
		Search:       c.Search,
		Failure:      corpus.Failure{Kind: bug.Outcome.Kind.String(), Message: bug.Outcome.Message, Where: bug.Outcome.Where},
		Schedule:     bug.Schedule.String(),
		Length:       len(bug.Schedule),
	}
	e.Search.MaxDepth = maxDepth
	e.Target.Args = append([]string(nil), c.Target.Args...)
	e.Target.Env = append([]string(nil), c.Target.Env...)
	if c.BinarySHA256 != "" {
		e.Target.BinarySHA256 = c.BinarySHA256
	}
	if f.Found != nil && !f.Found.Equal(bug.Schedule) {
		e.Original = f.Found.String()
	}
	if bug.Cycle != nil {
		e.Cycle = bug.Cycle.String()
	}
	if f.Report != nil {
		r := *f.Report
		e.Report, e.Preemptions = &r, r.Preemptions
	}
	return e
}

// save stores the finding in the corpus and notes where in its report, or
// why it was not saved.
func (c *Corpus) save(f *Finding, maxDepth int) {
	if c.NoLassos && f.Bug.Cycle != nil {
		return
	}
	path, existed, err := corpus.Save(c.Dir, c.Entry(f, maxDepth))
	c.saved(f, path, existed, err)
}

// replace stores the minimised finding f in place of the entry of first,
// the bug as found (corpus.Replace): the one the hunt saved, or one that
// was in the corpus before the hunt and was never minimised (a search
// stopped before minimisation, or --no-minimise). An older entry that was
// minimised stays, and f is saved beside it.
func (c *Corpus) replace(f, first *Finding, maxDepth int) {
	if first.Saved == "" || first.SaveErr != nil || first.AlreadySaved && !unminimised(first.Saved) {
		c.save(f, maxDepth)
		return
	}
	path, existed, err := corpus.Replace(c.Dir, first.Saved, c.Entry(f, maxDepth))
	if err == nil && path != first.Saved {
		f.Replaced = first.Saved
	}
	c.saved(f, path, existed, err)
}

// unminimised reports whether the entry at path holds a bug as found, never
// minimised.
func unminimised(path string) bool {
	e, err := corpus.Load(path)
	return err == nil && e.Original == "" && (e.Report == nil || e.Report.Minimised == nil)
}

// saved notes in the finding and its report where it was saved, or why
// it was not.
func (c *Corpus) saved(f *Finding, path string, existed bool, err error) {
	f.Saved, f.AlreadySaved, f.SaveErr = path, existed, err
	r := f.Report
	if r == nil {
		return
	}
	if err != nil {
		r.Notes = append(r.Notes, "not saved: "+err.Error())
		return
	}
	r.Saved, r.AlreadySaved = path, existed
	if c.ReplaySaved != nil {
		r.Replay = c.ReplaySaved(path)
	}
}
