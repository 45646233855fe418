// Package layers holds no code: its test checks that the folders of the
// module are layers, each package importing only from its own folder and
// the folders below it, that the Go runtime (the packages under sthread)
// imports nothing above the engine nor the pipeline, and that the packages
// under internal/testkit are imported by tests only.
package layers
