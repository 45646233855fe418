package search

import (
	"testing"
	"time"
)

// InProcess charges a portfolio shared in time the process's CPU time,
// whatever clock it was given, and leaves alone a portfolio shared in
// transitions and any other strategy.
func TestInProcess(t *testing.T) {
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		st    Strategy
		timed bool // want a portfolio on the CPU clock
	}{
		{"portfolio in time", NewPortfolio(Member{Strategy: NewDFS(), Decides: true}).Timed(func() time.Time { return wall }), true},
		{"portfolio in transitions", NewPortfolio(Member{Strategy: NewDFS(), Decides: true}), false},
		{"dpor", NewDPOR(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := InProcess(tt.st)
			if got != tt.st {
				t.Fatalf("InProcess returned another strategy")
			}
			p, ok := got.(*Portfolio)
			if !ok {
				return
			}
			if !tt.timed {
				if p.Now != nil || p.Lead != DefaultPortfolioLead {
					t.Errorf("a portfolio in transitions was made timed (lead %d)", p.Lead)
				}
				return
			}
			used, ok := processCPU()
			if !ok {
				t.Skip("the system does not tell the process's CPU time")
			}
			// The CPU clock reads the time the process used, from the
			// zero Unix time: far before the clock given.
			if now := p.Now(); now.Equal(wall) || now.Before(time.Unix(0, int64(used))) || now.After(time.Unix(0, 0).Add(time.Hour*24*365)) {
				t.Errorf("the portfolio's clock reads %v; want the process's CPU time (%v used)", now, used)
			}
			if p.Lead != int64(PortfolioLeadTime) {
				t.Errorf("lead %d; want PortfolioLeadTime", p.Lead)
			}
		})
	}
}
