package syncmodel

import "testing"

func TestOnce(t *testing.T) {
	begin := o(OnceBegin, onc, 0)
	end := o(OnceEnd, onc, 0)
	runScenarios(t, []scenario{
		{
			name: "first caller runs the initialiser",
			steps: cat(threads(3), []step{
				{tid: 2, op: begin, code: 1},
				{tid: 1, op: begin, blocked: true},
				{tid: 3, op: begin, blocked: true},
				{tid: 2, op: end},
				{tid: 1, code: 0},
				{tid: 3, code: 0},
				{tid: 2, op: begin, code: 0},
			}),
		},
		{
			name: "recursive once",
			steps: []step{
				{tid: 1, op: begin, code: 1},
				{tid: 1, op: Op{Kind: OnceBegin, API: APIPthreadOnce, Obj: onc},
					misuse: "recursive once 0x606000: its initialiser calls pthread_once on it again (self-deadlock)"},
			},
		},
		{
			name: "separate controls",
			steps: cat(threads(2), []step{
				{tid: 1, op: begin, code: 1},
				{tid: 2, op: o(OnceBegin, onc+8, 0), code: 1},
			}),
		},
		{
			name: "end without begin",
			steps: []step{
				{tid: 1, op: end},
				{tid: 1, op: begin, code: 0},
			},
		},
	})
}
