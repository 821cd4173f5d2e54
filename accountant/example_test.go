package accountant_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/rdp"
)

// A curve exported by an accountant, one order per line; the order with no
// guarantee (inf) proves nothing in the conversion and is left out of it.
func ExampleRead() {
	in := "alpha,eps\n2,0.25\n4,0.5\n8,1\n16,inf\n"
	c, warnings, err := accountant.Read(strings.NewReader(in))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(warnings), "warnings")
	f, ok := c.Finite()
	if !ok {
		log.Fatal("no finite order")
	}
	a, err := rdp.ToApprox(f, 1e-5, rdp.Balle2020)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("eps = %.4f at alpha = %g\n", a.Eps, a.Order)
	fmt.Println(a.Warning)
	// Output:
	// 0 warnings
	// eps = 2.2141 at alpha = 8
	// the minimum over orders is at the largest order alpha = 8: larger orders might give a smaller eps
}
