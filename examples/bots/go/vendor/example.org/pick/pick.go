// Package pick chooses a move: the vendored module of the example (what `go mod vendor` copied).
package pick

// Rng is a xorshift generator.
type Rng struct{ state uint64 }

// New seeds a generator.
func New(seed uint64) *Rng { return &Rng{state: seed*0x9E3779B97F4A7C15 | 1} }

// Below returns a number below n (n > 0).
func (r *Rng) Below(n int) int {
	r.state ^= r.state << 13
	r.state ^= r.state >> 7
	r.state ^= r.state << 17
	return int(r.state % uint64(n))
}
