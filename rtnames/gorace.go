package rtnames

import "strings"

// WithQuickRaceExit returns env with GORACE set so that a program built
// with -race exits as soon as it is done: the race runtime otherwise
// sleeps a second at exit (atexit_sleep_ms=1000), which every execution
// in a fresh process, every replay and every test binary would pay. The
// user's own GORACE options are kept, and so is an atexit_sleep_ms they
// chose.
func WithQuickRaceExit(env []string) []string {
	old := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			old = v
		}
	}
	if strings.Contains(old, "atexit_sleep_ms") {
		return env
	}
	return append(env, "GORACE="+strings.TrimSpace(old+" atexit_sleep_ms=0"))
}
