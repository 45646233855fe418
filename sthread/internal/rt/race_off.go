//go:build !race

package rt

import "unsafe"

// raceOn reports a build with the race detector: see race.go.
const raceOn = false

func raceDisable()                    {}
func raceEnable()                     {}
func raceAcquire(unsafe.Pointer)      {}
func raceReleaseMerge(unsafe.Pointer) {}
func raceErrors() int                 { return 0 }
func raceRead(unsafe.Pointer)         {}
func raceWrite(unsafe.Pointer)        {}
