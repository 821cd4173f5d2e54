package parallel_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bernamp/bernamp/parallel"
)

// Squares are computed on four goroutines but printed in index order.
func ExampleMap() {
	err := parallel.Map(context.Background(), 5, 4,
		func(ctx context.Context, i int) (int, error) {
			return i * i, nil
		},
		func(i, v int) error {
			fmt.Println(i, v)
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// 0 0
	// 1 1
	// 2 4
	// 3 9
	// 4 16
}
