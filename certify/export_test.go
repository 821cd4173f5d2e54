package certify

// SetDiagOff turns the diagonal band off (true) or on, for the external
// benchmarks' before/after (diagOff).
func SetDiagOff(off bool) { diagOff = off }

// CPUSeconds and CPUCap are cpuSeconds and cpuCap (bench_test.go), for
// the external benchmarks.
var CPUSeconds, CPUCap = cpuSeconds, cpuCap
