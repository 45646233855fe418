// Package traces holds tests whose testify assertions fail, in the test's
// goroutine, in a goroutine it starts, in a helper, and in subtests, for
// the comparison of testify's "Error Trace" under go test and under stdbg
// (gotest's TestTestifyTraces). Each fails in every run.
package traces

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInTest(t *testing.T) {
	assert.Equal(t, 1, 2, "in the test")
}

func TestInGoroutine(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.Equal(t, 1, 2, "in a goroutine")
	}()
	wg.Wait()
}

func check(t *testing.T, v int) {
	t.Helper()
	assert.Equal(t, 1, v, "in a helper")
}

func TestInHelper(t *testing.T) {
	check(t, 3)
}

func TestInSubtest(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		require.Equal(t, 1, 4, "in a subtest")
	})
}

func TestInSubtestGoroutine(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Equal(t, 1, 5, "in a subtest's goroutine")
		}()
		wg.Wait()
	})
}
