// Command k8scheck checks the Kubernetes Indexed Job of docs/grids.md
// (deploy/sweep-job.yaml) without a cluster: the manifest decodes strictly
// into a batch/v1 Job of k8s.io/api, as the API server's strict field
// validation decodes it (an unknown or misspelled field is an error, case
// included, as are duplicate fields), and it runs the shards as the Slurm
// array does, through the entry script deploy/bernamp-shard.sh.
//
//	go run . ../../deploy/sweep-job.yaml ../../deploy/bernamp-shard.sh
package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck JOB.yaml ENTRY.sh")
		os.Exit(2)
	}
	manifest, err := os.ReadFile(os.Args[1])
	if err == nil {
		var script []byte
		if script, err = os.ReadFile(os.Args[2]); err == nil {
			err = check(manifest, script)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8scheck: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("k8scheck: %s: batch/v1 Job, Indexed, runs %s\n", os.Args[1], path.Base(os.Args[2]))
}

// envName matches the variables the entry script reads.
var envName = regexp.MustCompile(`\bBERNAMP_[A-Z_]+\b`)

// check returns an error if manifest is not an Indexed batch/v1 Job whose
// one container runs the entry script (named by its base name, from a
// ConfigMap volume) with BERNAMP_SHARDS equal to completions and
// BERNAMP_WORKERS equal to the CPUs requested, and sets no BERNAMP_
// variable the script does not read.
func check(manifest, script []byte) error {
	// As the API server's strict field validation: field names are case
	// sensitive, unknown and duplicate fields are errors.
	data, err := yaml.YAMLToJSONStrict(manifest)
	if err != nil {
		return err
	}
	var job batchv1.Job
	strict, err := json.UnmarshalStrict(data, &job)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return errors.Join(strict...)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		return fmt.Errorf("apiVersion %q, kind %q: want batch/v1 Job", job.APIVersion, job.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return errors.New("spec.completionMode is not Indexed: pods would get no JOB_COMPLETION_INDEX")
	}
	if s.Completions == nil || *s.Completions < 1 {
		return errors.New("spec.completions: give the number of shards")
	}
	n := int(*s.Completions)
	if s.Parallelism != nil && (*s.Parallelism < 1 || int(*s.Parallelism) > n) {
		return fmt.Errorf("spec.parallelism %d: want 1 to completions (%d)", *s.Parallelism, n)
	}
	if s.BackoffLimitPerIndex != nil && s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		return errors.New("spec.backoffLimitPerIndex needs restartPolicy Never")
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		return fmt.Errorf("restartPolicy %q: a Job needs Never or OnFailure", p)
	}
	cs := s.Template.Spec.Containers
	if len(cs) != 1 {
		return fmt.Errorf("%d containers: want one", len(cs))
	}
	c := cs[0]

	// The entry script, from a ConfigMap mount, is what the container runs last.
	name := "bernamp-shard.sh"
	cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	runs := regexp.MustCompile(`(^|&&|;)\s*(exec\s+)?sh\s+(\S*/` + regexp.QuoteMeta(name) + `)\s*$`).FindStringSubmatch(cmd)
	if runs == nil {
		return fmt.Errorf("the container's command %q does not end by running %s", cmd, name)
	}
	if v := volumeAt(s.Template.Spec, c, path.Dir(runs[3])); v == nil || v.ConfigMap == nil {
		return fmt.Errorf("%s is not in a ConfigMap volume", runs[3])
	}

	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			return fmt.Errorf("env %s: give a value", e.Name)
		}
		env[e.Name] = e.Value
	}
	read := envName.FindAllString(string(script), -1)
	for k := range env {
		if strings.HasPrefix(k, "BERNAMP_") && !slices.Contains(read, k) {
			return fmt.Errorf("env %s: %s does not read it (it reads %s)", k, name, strings.Join(slices.Compact(slices.Sorted(slices.Values(read))), ", "))
		}
	}
	if got := env["BERNAMP_SHARDS"]; got != strconv.Itoa(n) {
		return fmt.Errorf("env BERNAMP_SHARDS %q, completions %d: they must be equal", got, n)
	}
	if w, ok := env["BERNAMP_WORKERS"]; ok {
		cpu := c.Resources.Requests[corev1.ResourceCPU]
		if cpu.IsZero() || strconv.FormatInt(cpu.MilliValue()/1000, 10) != w || cpu.MilliValue()%1000 != 0 {
			return fmt.Errorf("env BERNAMP_WORKERS %q, cpu requested %s: they must be equal", w, cpu.String())
		}
	}
	for _, k := range []string{"BERNAMP_GRID", "BERNAMP_RESULTS"} {
		p, ok := env[k]
		if !ok || !path.IsAbs(p) {
			return fmt.Errorf("env %s %q: give an absolute path", k, p)
		}
		dir := p
		if k == "BERNAMP_GRID" {
			dir = path.Dir(p)
		}
		v := volumeAt(s.Template.Spec, c, dir)
		switch {
		case v == nil:
			return fmt.Errorf("env %s %q is on no volume", k, p)
		case k == "BERNAMP_RESULTS" && v.PersistentVolumeClaim == nil:
			return fmt.Errorf("env %s %q: the shard files need a persistent volume, shared by the pods", k, p)
		}
	}
	return nil
}

// volumeAt returns the volume mounted at dir in container c, or nil.
func volumeAt(spec corev1.PodSpec, c corev1.Container, dir string) *corev1.Volume {
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) != path.Clean(dir) {
			continue
		}
		for i := range spec.Volumes {
			if spec.Volumes[i].Name == m.Name {
				return &spec.Volumes[i]
			}
		}
	}
	return nil
}
