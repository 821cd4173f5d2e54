module github.com/bernamp/bernamp

go 1.26.0

require (
	golang.org/x/sync v0.24.0
	gonum.org/v1/gonum v0.17.0
)
