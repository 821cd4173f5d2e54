package hockey_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bernamp/bernamp/hockey"
)

// A (1, 0.05)-DP mechanism releasing theta in [0.1, 0.9], followed by one
// Bernoulli(theta) sample, is (0.3, delta')-DP with delta' = 0.2847, and
// not for any smaller delta'. The worst pair puts the first two canonical
// points on theta = c and the other two on 1 - c.
func ExampleDelta() {
	r, err := hockey.Delta(context.Background(), hockey.Params{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.05, EpsOut: 0.3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("delta' in [%0.6g, %0.6g] (%s)\n", r.Lower, r.Upper, r.Method)
	fmt.Println("witness:", r.Support, r.Corners)
	// Output:
	// delta' in [0.284714, 0.284714] (canonical-pair)
	// witness: [0 1] [0 0 1 1]
}
