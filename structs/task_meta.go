package structs

// CombinedTaskMeta returns the job's, the group's and the task's meta
// merged, the task's winning over the group's over the job's (Nomad's
// Job.CombinedTaskMeta): what the task sees as NOMAD_META_<key>. The
// caller owns the map; unknown group or task names contribute nothing.
func (j *Job) CombinedTaskMeta(group, task string) map[string]string {
	out := map[string]string{}
	if j == nil {
		return out
	}
	for k, v := range j.Meta {
		out[k] = v
	}
	tg := j.LookupTaskGroup(group)
	if tg == nil {
		return out
	}
	for k, v := range tg.Meta {
		out[k] = v
	}
	if t := tg.LookupTask(task); t != nil {
		for k, v := range t.Meta {
			out[k] = v
		}
	}
	return out
}
