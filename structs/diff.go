package structs

import (
	"reflect"
	"sort"
)

// Diff types (Nomad's strings).
const (
	DiffTypeNone    = "None"
	DiffTypeAdded   = "Added"
	DiffTypeDeleted = "Deleted"
	DiffTypeEdited  = "Edited"
)

// JobDiff is the field-level difference between two versions of a job
// (Nomad's shape: GET /v1/job/:id/versions?diffs=true and job plan).
type JobDiff struct {
	Type       string // DiffTypeNone, Added, Deleted or Edited
	ID         string
	Fields     []*FieldDiff
	Objects    []*ObjectDiff
	TaskGroups []*TaskGroupDiff
}

// FieldDiff is one field: its old and new value as strings.
type FieldDiff struct {
	Type        string
	Name        string
	Old, New    string
	Annotations []string
}

// ObjectDiff is a nested object (a policy, a constraint, a task's config).
type ObjectDiff struct {
	Type    string
	Name    string
	Fields  []*FieldDiff
	Objects []*ObjectDiff
}

// TaskGroupDiff is one group; Updates counts what the plan does to it
// ("create", "destroy", "in-place update", ...), set by Job.Plan.
type TaskGroupDiff struct {
	Type    string
	Name    string
	Fields  []*FieldDiff
	Objects []*ObjectDiff
	Tasks   []*TaskDiff
	Updates map[string]uint64
}

// TaskDiff is one task; Annotations say what its change forces
// ("forces create/destroy update", ...), set by Job.Plan.
type TaskDiff struct {
	Type        string
	Name        string
	Fields      []*FieldDiff
	Objects     []*ObjectDiff
	Annotations []string
}

// Fields left out of a diff: identity, status and bookkeeping, and the
// children diffed on their own (groups, tasks).
var (
	diffSkipJob   = names("ID", "Status", "StatusDescription", "Stable", "Version", "SubmitTime", "CreateIndex", "ModifyIndex", "JobModifyIndex", "TaskGroups")
	diffSkipGroup = names("Name", "Tasks")
	diffSkipTask  = names("Name")
)

func names(ns ...string) map[string]bool {
	m := make(map[string]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// Diff returns the field-level diff turning old into cur. Either may be nil
// (Added or Deleted). Only changes are listed; the type is None when the
// specs are equal (status, version and indexes are ignored).
func (old *Job) Diff(cur *Job) *JobDiff {
	d := &JobDiff{Type: DiffTypeNone}
	var ov, nv reflect.Value
	switch {
	case old == nil && cur == nil:
		return d
	case old == nil:
		d.Type, d.ID, nv = DiffTypeAdded, cur.ID, reflect.ValueOf(cur).Elem()
	case cur == nil:
		d.Type, d.ID, ov = DiffTypeDeleted, old.ID, reflect.ValueOf(old).Elem()
	default:
		d.ID, ov, nv = cur.ID, reflect.ValueOf(old).Elem(), reflect.ValueOf(cur).Elem()
	}
	d.Fields, d.Objects = diffStruct(ov, nv, diffSkipJob)
	var oldGroups, newGroups []*TaskGroup
	if old != nil {
		oldGroups = old.TaskGroups
	}
	if cur != nil {
		newGroups = cur.TaskGroups
	}
	d.TaskGroups = diffGroups(oldGroups, newGroups)
	if d.Type == DiffTypeNone && (len(d.Fields) > 0 || len(d.Objects) > 0) {
		d.Type = DiffTypeEdited
	}
	for _, tg := range d.TaskGroups {
		if d.Type == DiffTypeNone && tg.Type != DiffTypeNone {
			d.Type = DiffTypeEdited
		}
	}
	return d
}

// diffGroups pairs groups by name: every group of either side gets a diff
// (None when unchanged), sorted by name.
func diffGroups(old, cur []*TaskGroup) []*TaskGroupDiff {
	byName := map[string][2]*TaskGroup{}
	for _, tg := range old {
		p := byName[tg.Name]
		p[0] = tg
		byName[tg.Name] = p
	}
	for _, tg := range cur {
		p := byName[tg.Name]
		p[1] = tg
		byName[tg.Name] = p
	}
	out := make([]*TaskGroupDiff, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		p := byName[name]
		d := &TaskGroupDiff{Name: name, Type: pairType(p[0] != nil, p[1] != nil)}
		d.Fields, d.Objects = diffStruct(valueOf(p[0]), valueOf(p[1]), diffSkipGroup)
		var ot, nt []*Task
		if p[0] != nil {
			ot = p[0].Tasks
		}
		if p[1] != nil {
			nt = p[1].Tasks
		}
		d.Tasks = diffTasks(ot, nt)
		if d.Type == DiffTypeNone && (len(d.Fields) > 0 || len(d.Objects) > 0) {
			d.Type = DiffTypeEdited
		}
		for _, t := range d.Tasks {
			if d.Type == DiffTypeNone && t.Type != DiffTypeNone {
				d.Type = DiffTypeEdited
			}
		}
		out = append(out, d)
	}
	return out
}

func diffTasks(old, cur []*Task) []*TaskDiff {
	byName := map[string][2]*Task{}
	for _, t := range old {
		p := byName[t.Name]
		p[0] = t
		byName[t.Name] = p
	}
	for _, t := range cur {
		p := byName[t.Name]
		p[1] = t
		byName[t.Name] = p
	}
	out := make([]*TaskDiff, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		p := byName[name]
		d := &TaskDiff{Name: name, Type: pairType(p[0] != nil, p[1] != nil)}
		d.Fields, d.Objects = diffStruct(valueOf(p[0]), valueOf(p[1]), diffSkipTask)
		if d.Type == DiffTypeNone && (len(d.Fields) > 0 || len(d.Objects) > 0) {
			d.Type = DiffTypeEdited
		}
		out = append(out, d)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// valueOf is the struct a pointer points to, or the invalid Value for nil.
func valueOf[T any](p *T) reflect.Value {
	if p == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(p).Elem()
}

// pairType is Added, Deleted or None (to be raised to Edited by changes).
func pairType(hasOld, hasNew bool) string {
	switch {
	case hasOld && !hasNew:
		return DiffTypeDeleted
	case !hasOld && hasNew:
		return DiffTypeAdded
	}
	return DiffTypeNone
}
