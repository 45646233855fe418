package cfind

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// The atomic steps of a C program are shown at the program's lines, with
// the text of the call, not in stdbg's entry points of the instrumentation
// (stdbg_tsan.c); a store or read-modify-write shows the value it stores
// or combines (a compare-and-swap, the value it expects and the one it
// stores), a load how much memory it reads.
func TestCAtomicStepLines(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "flag.c")
	prog := `#include <assert.h>
#include <pthread.h>

static int value;
static _Bool busy = 1;

static void *worker(void *arg)
{
	(void)arg;
	__atomic_clear(&busy, __ATOMIC_RELEASE);
	__atomic_store_n(&value, 42, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&value, 3, __ATOMIC_SEQ_CST);
	int want = 45;
	__atomic_compare_exchange_n(&value, &want, -5, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	__atomic_store_n(&value, 1, __ATOMIC_SEQ_CST);
	int v = __atomic_load_n(&value, __ATOMIC_SEQ_CST);
	assert(v != -5);
	pthread_join(t, NULL);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := clirun.Stdbg(t, "find", src)
	if code != cli.ExitBug {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitBug, out, errs)
	}
	for _, re := range []string{
		`thread 2  __atomic_store\(&busy, 0\) +flag\.c:10  __atomic_clear\(&busy, __ATOMIC_RELEASE\);`,
		`thread 2  __atomic_store\(&value, 42\) +flag\.c:11  __atomic_store_n\(&value, 42, __ATOMIC_SEQ_CST\);`,
		`thread 2  __atomic_fetch_add\(&value, 3\) +flag\.c:12  __atomic_fetch_add\(&value, 3, __ATOMIC_SEQ_CST\);`,
		`thread 2  __atomic_compare_exchange\(&value, 45, -5\) +flag\.c:14  __atomic_compare_exchange_n\(&value, &want, -5,`,
		`thread 1  __atomic_store\(&value, 1\) +flag\.c:22  __atomic_store_n\(&value, 1, __ATOMIC_SEQ_CST\);`,
		`thread 1  __atomic_load\(&value\) \(4 bytes\) +flag\.c:23  int v = __atomic_load_n\(&value, __ATOMIC_SEQ_CST\);`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no step matching %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "stdbg_tsan.c") {
		t.Errorf("a step is shown in stdbg's entry points:\n%s", out)
	}
}
