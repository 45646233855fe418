package oracle

import (
	"context"
	"os"
	"strconv"
	"testing"
)

func TestTry(t *testing.T) {
	from, _ := strconv.Atoi(os.Getenv("FROM"))
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		n = 40
	}
	for seed := uint64(from); seed < uint64(from+n); seed++ {
		p := Generate(Go, seed, DefaultGen)
		res, err := Compare(context.Background(), p, DefaultLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: skipped %q %s", seed, res.Skipped, res.summary())
		if len(res.Disagree) > 0 {
			t.Logf("seed %d:\n%s", seed, p)
			if os.Getenv("V") != "" {
				for k, c := range res.Reference.Traces {
					t.Logf("ref trace x%d %s", c, k)
				}
				for _, v := range res.Verdicts {
					if v.Strategy == "dpor" {
						for k, c := range v.Traces {
							t.Logf("dpor trace x%d %s", c, k)
						}
					}
				}
			}
		}
		for _, d := range res.Disagree {
			t.Logf("   %s", d)
		}
	}
}
