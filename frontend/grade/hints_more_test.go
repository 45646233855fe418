package grade

import (
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints for the mistakes of the exercise set's newer wrong answers,
// on reports shaped as the checker writes them (the exercises test them
// on real failures too), with the near misses that must not get them.

func fstep(n, th int, call, file string, line int, fn string) report.Step {
	return report.Step{N: n, Thread: th, Call: call, Where: report.Location{File: file, Line: line, Func: fn}}
}

func lines(src string) []string { return strings.Split(src, "\n") }

const bufferSrc = `int buffer_take(struct buffer *b)
{
	pthread_mutex_lock(&b->lock);
	while (b->count == 0) {
		pthread_mutex_unlock(&b->lock);
		pthread_mutex_lock(&b->lock);
	}
	b->count--;
	pthread_mutex_unlock(&b->lock);
}
int buffer_peek(struct buffer *b)
{
	if (b->count == 0) {
		pthread_mutex_lock(&b->lock);
		while (b->count == 0)
			pthread_cond_wait(&b->not_empty, &b->lock);
	} else {
		pthread_mutex_lock(&b->lock);
	}
	stdbg_assert(b->count > 0, "empty");
}`

const counterSrc = `long counter_get(struct counter *c)
{
	pthread_mutex_lock(&c->lock);
	long v = c->value;
	pthread_mutex_unlock(&c->lock);
	return v;
}
void counter_add(struct counter *c, long n)
{
	if (pthread_mutex_trylock(&c->lock) != 0)
		return;
	c->value = counter_get(c) + n;
	pthread_mutex_unlock(&c->lock);
}`

const rwSrc = `void read_lock(struct rwlock *l)
{
	pthread_mutex_lock(&l->lock);
	while (l->writing || l->writers_waiting > 0)
		pthread_cond_wait(&l->readers_ok, &l->lock);
	l->readers++;
	pthread_mutex_unlock(&l->lock);
}`

func TestRecogniseMore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     report.Report
		files map[string][]string
		want  string // a pattern recognise must find
		not   string // a pattern it must not find
	}{
		{
			name: "a lock taken again and again in a loop",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(b.lock)", "buffer.c", 3, "buffer_take"),
				fstep(2, 2, "pthread_mutex_unlock(b.lock)", "buffer.c", 5, "buffer_take"),
				fstep(3, 2, "pthread_mutex_lock(b.lock)", "buffer.c", 6, "buffer_take"),
				fstep(4, 2, "pthread_mutex_unlock(b.lock)", "buffer.c", 5, "buffer_take"),
				fstep(5, 2, "pthread_mutex_lock(b.lock)", "buffer.c", 6, "buffer_take"),
			}},
			files: map[string][]string{"buffer.c": lines(bufferSrc)},
			want:  PatternBusyWait,
		},
		{
			name: "a lock taken twice by two calls is no busy-wait",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_trylock(c.lock) = EBUSY", "counter.c", 10, "counter_add"),
				fstep(2, 2, "pthread_mutex_trylock(c.lock) = EBUSY", "counter.c", 10, "counter_add"),
			}},
			files: map[string][]string{"counter.c": lines(counterSrc)},
			want:  PatternTryGivesUp, not: PatternBusyWait,
		},
		{
			name: "a back-off in step with each other for ever",
			r: report.Report{Kind: "livelock", Cycle: "2;3", CycleStart: 3, Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(forks[0])", "dining.c", 18, "dine"),
				fstep(2, 3, "pthread_mutex_lock(forks[1])", "dining.c", 18, "dine"),
				fstep(3, 3, "pthread_mutex_trylock(forks[0]) = EBUSY", "dining.c", 19, "dine"),
				fstep(4, 2, "pthread_mutex_trylock(forks[1]) = EBUSY", "dining.c", 19, "dine"),
			}},
			want: PatternRetryLivelock,
		},
		{
			name: "an update split over two critical sections",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(c.lock)", "counter.c", 3, "counter_get"),
				fstep(2, 2, "pthread_mutex_unlock(c.lock)", "counter.c", 5, "counter_get"),
				fstep(3, 3, "pthread_mutex_lock(c.lock)", "counter.c", 3, "counter_get"),
				fstep(4, 3, "pthread_mutex_unlock(c.lock)", "counter.c", 5, "counter_get"),
				fstep(5, 2, "pthread_mutex_lock(c.lock)", "counter.c", 12, "counter_add"),
			}},
			files: map[string][]string{"counter.c": lines(counterSrc)},
			want:  PatternSplitSection,
		},
		{
			name: "a lock taken again by a function its holder called",
			r: report.Report{Kind: "misuse", Message: "relock of non-recursive mutex c.lock (self-deadlock)", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(c.lock)", "counter.c", 10, "counter_add"),
				fstep(2, 2, "pthread_mutex_lock(c.lock)", "counter.c", 3, "counter_get"),
			}},
			files: map[string][]string{"counter.c": lines(strings.Replace(counterSrc,
				"\tif (pthread_mutex_trylock(&c->lock) != 0)\n\t\treturn;", "\tpthread_mutex_lock(&c->lock);", 1))},
			want: PatternHeldByCaller, not: PatternUnlockMissing,
		},
		{
			name: "neighbours with no fork in common",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(forks[0])", "dining.c", 15, "dine"),
				fstep(2, 3, "pthread_mutex_lock(forks[1])", "dining.c", 15, "dine"),
				fstep(3, 3, "stdbg_yield", "test_dining.c", 15, "meal"),
			}, Failure: &report.Where{Thread: 3, Where: report.Location{File: "test_dining.c", Line: 16, Func: "meal"}},
				Stack: []report.Frame{{Func: "meal", File: "test_dining.c", Line: 16, User: true}, {Func: "dine", File: "dining.c", Line: 16, User: true}}},
			files: map[string][]string{"dining.c": lines("void dine(int i)\n{\n}")},
			want:  PatternNoCommonLock,
		},
		{
			name: "a check of the main thread after the threads is not about locks held",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 1, "pthread_mutex_lock(c.lock)", "counter.c", 3, "counter_get"),
				fstep(2, 1, "pthread_mutex_unlock(c.lock)", "counter.c", 5, "counter_get"),
			}, Failure: &report.Where{Thread: 1, Where: report.Location{File: "test_counter.c", Line: 27, Func: "main"}},
				Stack: []report.Frame{{Func: "main", File: "test_counter.c", Line: 27, User: true}}},
			files: map[string][]string{"counter.c": lines(counterSrc)},
			not:   PatternNoCommonLock,
		},
		{
			name: "a decision taken before the lock",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 4, "thread starts", "test_buffer.c", 19, "consumer"),
				fstep(2, 2, "pthread_mutex_lock(b.lock)", "buffer.c", 18, "buffer_peek"),
				fstep(3, 2, "pthread_mutex_unlock(b.lock)", "buffer.c", 9, "buffer_peek"),
				fstep(4, 4, "pthread_mutex_lock(b.lock)", "buffer.c", 18, "buffer_peek"),
			}, Failure: &report.Where{Thread: 4, Where: report.Location{File: "buffer.c", Line: 20, Func: "buffer_peek"}}},
			files: map[string][]string{"buffer.c": lines(bufferSrc)},
			want:  PatternCheckOutside,
		},
		{
			name: "a barrier gone through while the woken have not come back",
			r: report.Report{Kind: "assertion", Steps: []report.Step{
				fstep(1, 2, "pthread_mutex_lock(b.lock)", "barrier.c", 23, "barrier_wait"),
				fstep(2, 2, "pthread_cond_wait(b.all_here, b.lock) releases b.lock", "barrier.c", 28, "barrier_wait"),
				fstep(3, 4, "pthread_mutex_lock(b.lock)", "barrier.c", 23, "barrier_wait"),
				fstep(4, 4, "pthread_cond_broadcast(b.all_here)", "barrier.c", 26, "barrier_wait"),
				fstep(5, 4, "pthread_mutex_unlock(b.lock)", "barrier.c", 31, "barrier_wait"),
				fstep(6, 4, "pthread_mutex_lock(b.lock)", "barrier.c", 23, "barrier_wait"),
				fstep(7, 4, "pthread_mutex_unlock(b.lock)", "barrier.c", 31, "barrier_wait"),
			}, Failure: &report.Where{Thread: 4, Where: report.Location{File: "test_barrier.c", Line: 23, Func: "worker"}}},
			want: PatternPassedWithout,
		},
		{
			name: "a waiter whose condition nobody makes false",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				fstep(1, 3, "pthread_mutex_lock(l.lock)", "rw.c", 3, "write_unlock"),
				fstep(2, 3, "pthread_cond_broadcast(l.readers_ok)", "rw.c", 3, "write_unlock"),
				fstep(3, 3, "thread returns", "test_rwlock.c", 27, "writer"),
				fstep(4, 4, "pthread_mutex_lock(l.lock)", "rw.c", 3, "read_lock"),
				fstep(5, 4, "pthread_cond_wait(l.readers_ok, l.lock) releases l.lock", "rw.c", 5, "read_lock"),
			}, Waits: []report.Wait{{Thread: 4, Text: "waits on l.readers_ok with l.lock released (never signalled)", Where: report.Location{File: "rw.c", Line: 5}}}},
			files: map[string][]string{"rw.c": lines(rwSrc)},
			want:  PatternNeverRestored,
		},
		{
			name: "every worker of a pool closes the results",
			r: report.Report{Kind: "misuse", Message: "close of closed channel results", Steps: []report.Step{
				fstep(1, 2, "Chan.Close(results)", "pool.go", 21, "Squares.func1"),
			}, Failure: &report.Where{Thread: 3, Where: report.Location{File: "pool.go", Line: 21}}},
			want: PatternCloseClosed,
		},
		{
			name: "a Wait before the results are received",
			r: report.Report{Kind: "deadlock", Waits: []report.Wait{
				{Thread: 1, Text: "waits in WaitGroup.Wait for wg (counter 2)", Where: report.Location{File: "pool.go", Line: 31}},
				{Thread: 2, Text: "waits in Chan.Send for results [chan#2] (no receiver)", Where: report.Location{File: "pool.go", Line: 27}},
			}},
			want: PatternWaitFirst, not: PatternNoCancel,
		},
		{
			name: "a send before any receiver started",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{fstep(1, 1, "Chan.Send(links[0] [chan#1]) blocks", "ring.go", 18, "Ring")},
				Waits: []report.Wait{{Thread: 1, Text: "waits in Chan.Send for links[0] [chan#1] (no receiver)", Where: report.Location{File: "ring.go", Line: 18}}}},
			want: PatternNoReceiver, not: PatternNoCancel,
		},
		{
			name: "a write lock asked for under its own read lock",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{fstep(1, 1, "RWMutex.RLock(mu)", "config.go", 14, "Config")},
				Waits: []report.Wait{{Thread: 1, Text: "waits in RWMutex.Lock for mu (read-locked by goroutine 1)", Holders: []int{1},
					Where: report.Location{File: "config.go", Line: 17}}}},
			want: PatternLockUpgrade, not: PatternUnlockMissing,
		},
		{
			name: "a Done at the start of the work",
			r: report.Report{Kind: "data-race", Message: "data race: a read at ring.go:35, and before it a write at ring.go:22", Steps: []report.Step{
				fstep(1, 1, "WaitGroup.Add(wg, 1)", "ring.go", 18, "Ring"),
				fstep(2, 1, "go -> thread 2", "ring.go", 19, "Ring"),
				fstep(3, 2, "WaitGroup.Done(wg)", "ring.go", 20, "Ring.func1"),
				fstep(4, 2, "range Chan.All(links[i] [chan#1]) from thread 1", "ring.go", 21, "Ring.func1"),
				fstep(5, 1, "WaitGroup.Wait(wg) returns", "ring.go", 34, "Ring"),
			}, Failure: &report.Where{Thread: 1, Where: report.Location{File: "ring.go", Line: 35}}},
			want: PatternDoneEarly,
		},
		{
			name: "a Done deferred, and a race elsewhere",
			r: report.Report{Kind: "data-race", Message: "data race: a read at pool.go:30, and before it a write at pool.go:12", Steps: []report.Step{
				fstep(1, 1, "WaitGroup.Add(wg, 1)", "pool.go", 18, "Squares"),
				fstep(2, 1, "go -> thread 2", "pool.go", 19, "Squares"),
				fstep(3, 2, "Chan.Recv(in [chan#1])", "pool.go", 21, "Squares.func1"),
				fstep(4, 2, "WaitGroup.Done(wg)", "pool.go", 20, "Squares.func1"),
				fstep(5, 1, "WaitGroup.Wait(wg) returns", "pool.go", 28, "Squares"),
			}, Failure: &report.Where{Thread: 1, Where: report.Location{File: "pool.go", Line: 30}}},
			not: PatternDoneEarly,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := patternsOf(&tc.r, tc.files)
			if tc.want != "" && !slices.Contains(got, tc.want) {
				t.Errorf("patterns %v, want %s", got, tc.want)
			}
			if tc.not != "" && slices.Contains(got, tc.not) {
				t.Errorf("patterns %v, want no %s", got, tc.not)
			}
		})
	}
}
