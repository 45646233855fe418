package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/frontend/session"
)

// This file replays one corpus entry: the target it names, the rerun,
// its report and the exit status of a run.

// entry reruns one entry and classifies the result.
func (c *rerunner) entry(it corpus.Item) rerun {
	r := rerun{Path: it.Path}
	if it.Err != nil {
		r.Status, r.Detail = statusCorrupt, it.Err.Error()
		return r
	}
	rr := session.Rerun{Path: it.Path, Entry: it.Entry, Binary: c.binary, Options: c.sessionOptions(session.Options{}), Report: c.reports}
	if c.research {
		rr.Research = c.researchExecs
	}
	v, err := session.RerunEntry(context.Background(), rr)
	var refused *corpus.RefusedError
	switch {
	case errors.As(err, &refused):
		// The path is already the line's.
		r.Status, r.Detail = statusError, "refused: "+refused.Field+" "+refused.Reason
	case err != nil:
		r.Status, r.Detail = statusError, oneLine(err.Error())
	default:
		r.Status, r.Detail = string(v.Status), v.Detail
		if v.Status.Failing() {
			r.report = v.Replayed.Report
		}
	}
	return r
}

// corpusExit is the exit status of a corpus run: 2 when an entry could
// not be judged (corrupt, refused, an error) or there was none, else 1
// when an entry reproduces or fails differently, else 0.
func corpusExit(results []rerun) error {
	if len(results) == 0 {
		return usageErr("the corpus holds no entry")
	}
	bad, failing := 0, 0
	for _, r := range results {
		switch {
		case r.Status == statusCorrupt || r.Status == statusError:
			bad++
		case r.failing():
			failing++
		}
	}
	switch {
	case bad > 0:
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d entries could not be rerun (corrupt or errors)", bad, len(results))}
	case failing > 0:
		return bugFound
	}
	return nil
}
