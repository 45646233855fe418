package targetsearch

import "time"

// SetClock makes the deadlines of Serve read clock, until restore.
func SetClock(clock func() time.Time) (restore func()) {
	old := now
	now = clock
	return func() { now = old }
}
