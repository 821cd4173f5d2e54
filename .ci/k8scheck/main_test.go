package main

import (
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestManifest: the manifest of docs/grids.md passes, and each mistake
// below, made once in it, fails with an error naming it.
func TestManifest(t *testing.T) {
	manifest, script := read(t, "sweep-job.yaml"), read(t, "bernamp-shard.sh")
	if err := check([]byte(manifest), []byte(script)); err != nil {
		t.Fatalf("deploy/sweep-job.yaml: %v", err)
	}
	for _, tc := range []struct{ old, new, msg string }{
		{"completionMode: Indexed", "completionsMode: Indexed", `unknown field "spec.completionsMode"`},
		{"restartPolicy: Never", "restartpolicy: Never", `unknown field "spec.template.spec.restartpolicy"`},
		{"mountPath: /sweep}", "mountpath: /sweep}", `unknown field`},
		{"parallelism: 8", "parallelism: 8\n  parallelism: 4", "already set"},
		{"completions: 16", "completions: sixteen", "cannot unmarshal"},
		{"memory: 1Gi", "memory: 1Gb", "quantities must match"},
		{"apiVersion: batch/v1", "apiVersion: batch/v1beta1", "batch/v1 Job"},
		{"completionMode: Indexed", "completionMode: NonIndexed", "not Indexed"},
		{"completions: 16", "completions: 12", "BERNAMP_SHARDS"},
		{"parallelism: 8", "parallelism: 17", "parallelism 17"},
		{"restartPolicy: Never", "restartPolicy: OnFailure", "backoffLimitPerIndex"},
		{"exec sh /sweep/bernamp-shard.sh", "exec sh /sweep/bernamp-shard.sh --no-timing; true", "does not end by running"},
		{"exec sh /sweep/bernamp-shard.sh", "exec sh /results/bernamp-shard.sh", "not in a ConfigMap"},
		{"BERNAMP_WORKERS, value: \"2\"", "BERNAMP_WORKER, value: \"2\"", "BERNAMP_WORKER: bernamp-shard.sh does not read it"},
		{"BERNAMP_WORKERS, value: \"2\"", "BERNAMP_WORKERS, value: \"4\"", "BERNAMP_WORKERS"},
		{"/sweep/sweep.json", "/grid/sweep.json", "on no volume"},
		{"persistentVolumeClaim: {claimName: bernamp-results}", "emptyDir: {}", "persistent volume"},
	} {
		if strings.Count(manifest, tc.old) != 1 {
			t.Fatalf("%q is not once in the manifest", tc.old)
		}
		err := check([]byte(strings.Replace(manifest, tc.old, tc.new, 1)), []byte(script))
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q -> %q: error %v, want one with %q", tc.old, tc.new, err, tc.msg)
		}
	}
}
