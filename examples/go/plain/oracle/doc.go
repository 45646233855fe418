// Package oracle holds plain Go tests whose verdict real Go settles, to
// judge stdbg by: correct_test.go's tests order every access they share
// (channels, locks, wait groups, Once, atomics) and hold in every
// schedule, so go test -race passes them and stdbg test may report
// nothing in them; planted_test.go's each hold one bug that go test -race
// -count=N shows too, which stdbg test must report. The planted ones skip
// themselves unless STDBG_ZOO is set (frontend/cli/e2e/gofind's
// TestOracleExamples runs both sets).
package oracle
