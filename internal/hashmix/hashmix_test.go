package hashmix

import (
	"math/bits"
	"testing"
)

func TestMix(t *testing.T) {
	tests := []struct {
		in, want uint64
	}{
		// Reference values of splitmix64's finaliser.
		{0, 0},
		{1, 0x5692161d100b05e5},
		{0x9e3779b97f4a7c15, 0xe220a8397b1dcdaf},
	}
	for _, tt := range tests {
		if got := Mix(tt.in); got != tt.want {
			t.Errorf("Mix(%#x) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
	// Avalanche: flipping one input bit flips about half the output bits.
	for b := 0; b < 64; b++ {
		x := uint64(0x0123456789abcdef)
		if d := bits.OnesCount64(Mix(x) ^ Mix(x^1<<b)); d < 16 || d > 48 {
			t.Errorf("flipping bit %d changes %d output bits", b, d)
		}
	}
}
