// Package hashmix provides the 64-bit finaliser stdbg's state fingerprints
// are built with.
package hashmix

// Mix is splitmix64's finaliser: every input bit affects every output
// bit, so hashes combined as Mix(h ^ x) stay well spread.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
