package oracle

import (
	"context"
	"os"
	"strconv"
	"testing"
)

func TestCTry(t *testing.T) {
	from, _ := strconv.Atoi(os.Getenv("FROM"))
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		n = 10
	}
	for seed := uint64(from); seed < uint64(from+n); seed++ {
		p := Generate(C, seed, DefaultGen)
		res, err := Compare(context.Background(), p, DefaultLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: skipped %q %s", seed, res.Skipped, res.summary())
		if len(res.Disagree) > 0 || os.Getenv("P") != "" {
			t.Logf("seed %d:\n%s", seed, p)
		}
		for _, d := range res.Disagree {
			t.Logf("   %s", d)
		}
	}
}
