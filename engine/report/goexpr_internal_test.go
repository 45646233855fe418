package report

import (
	"testing"

	"github.com/stdbg/stdbg/model/syncmodel"
)

func TestCallExpr(t *testing.T) {
	op := func(k syncmodel.Kind, api syncmodel.API) syncmodel.Op { return syncmodel.Op{Kind: k, API: api, Obj: 1} }
	for _, tc := range []struct {
		op   syncmodel.Op
		src  string
		want string
	}{
		{op(syncmodel.GoMutexLock, syncmodel.APIGoMutexLock), "from.mu.Lock()", "from.mu"},
		{op(syncmodel.GoMutexUnlock, syncmodel.APIGoMutexUnlock), "defer c.locks[i].Unlock()", "c.locks[i]"},
		{op(syncmodel.WGAdd, syncmodel.APIWaitGroupDone), "defer wg.Done()", "wg"},
		{op(syncmodel.ChanSend, syncmodel.APIChanSend), "results <- id * 10", "results"},
		{op(syncmodel.ChanWake, syncmodel.APIChanSend), "s.out <- v", "s.out"},
		{op(syncmodel.ChanRecv, syncmodel.APIChanRecv), "v := <-jobs", "jobs"},
		{op(syncmodel.ChanRecv, syncmodel.APIChanRecv), "for j := range jobs {", "jobs"},
		{op(syncmodel.ChanClose, syncmodel.APIChanClose), "go close(cancel)", "cancel"},
		{op(syncmodel.ChanClose, syncmodel.APIChanClose), "close(make(chan int))", ""},
		{op(syncmodel.ChanMake, syncmodel.APIMakeChan), "done := make(chan struct{})", "done"},
		{op(syncmodel.ChanMake, syncmodel.APIMakeChan), "a, b := make(chan int), make(chan int)", ""},
		{op(syncmodel.ChanSend, syncmodel.APIChanSend), "ch.Send(1)", "ch"},
		{op(syncmodel.GoMutexLock, syncmodel.APIGoMutexLock), "lock()", ""},
		{op(syncmodel.GoMutexLock, syncmodel.APIGoMutexLock), "", ""},
		{op(syncmodel.MutexLock, syncmodel.APIMutexLock), "m.Lock()", ""}, // not a Go operation
		{op(syncmodel.ChanRecv, syncmodel.APIChanRecv), "<-3", ""},
	} {
		if got := callExpr(tc.op, tc.src); got != tc.want {
			t.Errorf("callExpr(%v, %q) = %q, want %q", tc.op.API, tc.src, got, tc.want)
		}
	}
}
