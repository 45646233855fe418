package corpus

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/mutate"
)

var entrySeeds = []string{
	`{"format":1,"target":{"kind":"c-source","source":"../../deadly-embrace.c"},"search":{"strategy":"dfs","max_depth":1000},` +
		`"failure":{"kind":"deadlock","message":"no thread can go on","where":"pthread_mutex_lock@deadly-embrace.c:15"},"schedule":"1;1;2","length":3}`,
	`{"format":1,"target":{"kind":"go-test","source":"..","test":"TestBank","env":["STDBG_RAND_SEED=2"]},` +
		`"failure":{"kind":"leak","where":"Chan.Send@bank_test.go:12"},"schedule":"1;1;2:1;3","cycle":"2;3"}`,
	`{"format":1,"target":{"kind":"binary","binary":"prog","args":["-n","3"]},"failure":{"kind":"crash"},"schedule":"1"}`,
	`{"format":2}`, `[]`, `null`, `{"format":1,"target":{"kind":"c-source"}}`,
}

// checkEntry parses data: it must not panic, and an entry it accepts
// written out again parses to the same entry.
func checkEntry(t *testing.T, data []byte) {
	e, err := Parse(data)
	if err != nil {
		return
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("%q: parsed, but does not marshal: %v", data, err)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("%q: parsed, written as %s, which does not parse: %v", data, out, err)
	}
	if out2, _ := json.Marshal(again); !bytes.Equal(out, out2) {
		t.Fatalf("%q: round trip changed the entry:\n%s\n%s", data, out, out2)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range entrySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkEntry)
}

// TestParseMutated runs FuzzParse's check on 20000 mutated entries, and
// checks that the valid seeds are accepted and the others refused.
func TestParseMutated(t *testing.T) {
	seeds := make([][]byte, len(entrySeeds))
	for i, s := range entrySeeds {
		seeds[i] = []byte(s)
		if _, err := Parse(seeds[i]); (err == nil) != (i < 3) {
			t.Errorf("seed %d: error %v", i, err)
		}
	}
	mutate.Inputs(seeds, 20000, func(b []byte) { checkEntry(t, b) })
}
