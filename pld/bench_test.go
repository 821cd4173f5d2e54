package pld

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCompose times the claim of compose at T = 1000 (Gaussian sigma
// 2, c 0.1, delta 1e-5, discretization 1e-4): the upper side alone
// (NewAccount and EpsUpper) and with the lower side (EpsLower's search).
func BenchmarkCompose(b *testing.B) {
	g, _ := Gaussian(1, 2)
	ctx := context.Background()
	for _, n := range []int{1, 4, 100, 10_000, 1_000_000} {
		b.Run(fmt.Sprintf("upper/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				opt := DefaultOptions()
				opt.H = 0 // automatic, as compose
				a, err := NewAccount(ctx, []Step{{Mechanism: g, N: n, C: 0.1, Steps: 1000}}, opt)
				if err != nil {
					b.Fatal(err)
				}
				a.EpsUpper(1e-5)
			}
		})
		b.Run(fmt.Sprintf("lower/n=%d", n), func(b *testing.B) {
			opt := DefaultOptions()
			opt.H = 0 // automatic, as compose
			a, err := NewAccount(ctx, []Step{{Mechanism: g, N: n, C: 0.1, Steps: 1000}}, opt)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.EpsLower(ctx, 1e-5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
