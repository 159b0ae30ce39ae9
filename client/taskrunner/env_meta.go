package taskrunner

import (
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// combinedMeta is the meta task sees: the job's, group's and task's
// merged (structs.Job.CombinedTaskMeta), the task's own when the
// allocation carries no job.
func combinedMeta(alloc *structs.Allocation, task *structs.Task) map[string]string {
	if alloc.Job == nil {
		out := map[string]string{}
		for k, v := range task.Meta {
			out[k] = v
		}
		return out
	}
	return alloc.Job.CombinedTaskMeta(alloc.TaskGroup, task.Name)
}

// metaEnv adds NOMAD_META_<key> for every key of the merged meta, twice as
// Nomad does: with the key upper-cased and as written. A key character not
// valid in a variable name becomes "_" in env; raw, the ${...}
// interpolation source, also keeps the names as written (so
// ${NOMAD_META_my-key} works too).
func metaEnv(env, raw map[string]string, alloc *structs.Allocation, task *structs.Task) {
	for k, v := range combinedMeta(alloc, task) {
		for _, name := range []string{"NOMAD_META_" + strings.ToUpper(k), "NOMAD_META_" + k} {
			env[envLabel(name)] = v
			raw[name] = v
		}
	}
}

// jobEnv adds the variables Nomad sets only when they have a value:
// NOMAD_JOB_PARENT_ID (a periodic or dispatched child),
// NOMAD_MEMORY_MAX_LIMIT (memory_max set) and NOMAD_SHORT_ALLOC_ID.
func jobEnv(env map[string]string, alloc *structs.Allocation, memoryMaxMB int64) {
	parent := ""
	if alloc.Job != nil {
		parent = alloc.Job.ParentID
	}
	if parent != "" {
		env["NOMAD_JOB_PARENT_ID"] = parent
	}
	if memoryMaxMB > 0 {
		env["NOMAD_MEMORY_MAX_LIMIT"] = strconv.FormatInt(memoryMaxMB, 10)
	}
	if len(alloc.ID) >= 8 {
		env["NOMAD_SHORT_ALLOC_ID"] = alloc.ID[:8]
	}
}
