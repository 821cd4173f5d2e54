package bernamp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bernamp/bernamp"
)

// A mechanism that is (5, 1)-RDP releases its parameter theta in
// [0.1, 0.9] as two Bernoulli samples: the samples are (5, Post)-RDP.
func ExamplePost() {
	r, err := bernamp.Post(context.Background(), bernamp.Params{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("status %s: %.6f <= Post <= %.6f\n", r.Status, r.Post, r.PostUpper)
	fmt.Printf("closed form: %.6f <= Post <= %.6f\n", r.LB, r.UB)
	fmt.Println("conjecture Post = LB:", r.Conjecture)
	// Output:
	// status certified: 0.918253 <= Post <= 0.918253
	// closed form: 0.918253 <= Post <= 1.000000
	// conjecture Post = LB: proved
}

// Bounds needs no solve and works for any d and k.
func ExampleBounds() {
	r, err := bernamp.Bounds(bernamp.Params{D: 15, K: 4, C: 0.3, Alpha: 50, Eps: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.6f <= Post <= %.6f (%s)\n", r.LB, r.UB, r.Status)
	// Output:
	// 1.999707 <= Post <= 2.000000 (bounds)
}
