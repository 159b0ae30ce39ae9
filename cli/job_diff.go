package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// The job diff printer of `job plan` and `job history -p`: Nomad's layout
// (command/job_plan.go), without the colours. Added lines start with "+ ",
// deleted with "- ", edited with "+/- "; names and values are aligned per
// block.

// diffMarker is the marker of a diff type and its width.
func diffMarker(typ string) (string, int) {
	switch typ {
	case structs.DiffTypeAdded:
		return "+ ", 2
	case structs.DiffTypeDeleted:
		return "- ", 2
	case structs.DiffTypeEdited:
		return "+/- ", 4
	}
	return "", 0
}

// formatJobDiff renders a job diff; verbose also shows the fields of added
// and deleted tasks and of unchanged jobs.
func formatJobDiff(d *structs.JobDiff, verbose bool) string {
	marker, _ := diffMarker(d.Type)
	out := fmt.Sprintf("%sJob: %q\n", marker, d.ID)
	longestField, longestMarker := longestPrefixes(d.Fields, d.Objects)
	for _, tg := range d.TaskGroups {
		if _, l := diffMarker(tg.Type); l > longestMarker {
			longestMarker = l
		}
	}
	if d.Type == structs.DiffTypeEdited || verbose {
		fo := alignedFieldsAndObjects(d.Fields, d.Objects, 0, longestField, longestMarker)
		out += fo
		if len(fo) > 0 {
			out += "\n"
		}
	}
	for _, tg := range d.TaskGroups {
		if tg.Type == structs.DiffTypeNone && len(tg.Updates) == 0 && !verbose {
			continue
		}
		_, l := diffMarker(tg.Type)
		out += formatGroupDiff(tg, longestMarker-l, verbose) + "\n"
	}
	return out
}

func formatGroupDiff(tg *structs.TaskGroupDiff, prefix int, verbose bool) string {
	marker, _ := diffMarker(tg.Type)
	out := fmt.Sprintf("%s%sTask Group: %q", marker, strings.Repeat(" ", prefix), tg.Name)
	if len(tg.Updates) > 0 {
		order := make([]string, 0, len(tg.Updates))
		for k := range tg.Updates {
			order = append(order, k)
		}
		sort.Strings(order)
		parts := make([]string, 0, len(order))
		for _, k := range order {
			parts = append(parts, fmt.Sprintf("%d %s", tg.Updates[k], k))
		}
		out += fmt.Sprintf(" (%s)", strings.Join(parts, ", "))
	}
	out += "\n"
	longestField, longestMarker := longestPrefixes(tg.Fields, tg.Objects)
	for _, t := range tg.Tasks {
		if _, l := diffMarker(t.Type); l > longestMarker {
			longestMarker = l
		}
	}
	sub := prefix + 2
	if tg.Type == structs.DiffTypeEdited || verbose {
		fo := alignedFieldsAndObjects(tg.Fields, tg.Objects, sub, longestField, longestMarker)
		out += fo
		if len(fo) > 0 {
			out += "\n"
		}
	}
	for _, t := range tg.Tasks {
		if t.Type == structs.DiffTypeNone && !verbose {
			continue
		}
		_, l := diffMarker(t.Type)
		out += formatTaskDiff(t, sub, longestMarker-l, verbose) + "\n"
	}
	return strings.TrimRight(out, "\n")
}

func formatTaskDiff(t *structs.TaskDiff, start, prefix int, verbose bool) string {
	marker, _ := diffMarker(t.Type)
	out := fmt.Sprintf("%s%s%sTask: %q", strings.Repeat(" ", start), marker, strings.Repeat(" ", prefix), t.Name)
	if len(t.Annotations) > 0 {
		out += fmt.Sprintf(" (%s)", strings.Join(t.Annotations, ", "))
	}
	if t.Type == structs.DiffTypeNone || ((t.Type == structs.DiffTypeAdded || t.Type == structs.DiffTypeDeleted) && !verbose) {
		return out
	}
	out += "\n"
	longestField, longestMarker := longestPrefixes(t.Fields, t.Objects)
	return out + alignedFieldsAndObjects(t.Fields, t.Objects, start+2, longestField, longestMarker)
}

func alignedFieldsAndObjects(fields []*structs.FieldDiff, objects []*structs.ObjectDiff, start, longestField, longestMarker int) string {
	var out string
	for i, f := range fields {
		_, l := diffMarker(f.Type)
		out += formatFieldDiff(f, start, longestMarker-l, longestField-len(f.Name))
		if i+1 != len(fields) || len(objects) > 0 {
			out += "\n"
		}
	}
	for i, o := range objects {
		_, l := diffMarker(o.Type)
		out += formatObjectDiff(o, start, longestMarker-l)
		if i+1 != len(objects) {
			out += "\n"
		}
	}
	return out
}

func formatFieldDiff(f *structs.FieldDiff, start, keyPrefix, valuePrefix int) string {
	marker, _ := diffMarker(f.Type)
	out := fmt.Sprintf("%s%s%s%s: %s", strings.Repeat(" ", start), marker, strings.Repeat(" ", keyPrefix), f.Name, strings.Repeat(" ", valuePrefix))
	switch f.Type {
	case structs.DiffTypeAdded:
		out += fmt.Sprintf("%q", f.New)
	case structs.DiffTypeDeleted:
		out += fmt.Sprintf("%q", f.Old)
	case structs.DiffTypeEdited:
		out += fmt.Sprintf("%q => %q", f.Old, f.New)
	default:
		out += fmt.Sprintf("%q", f.New)
	}
	if len(f.Annotations) > 0 {
		out += fmt.Sprintf(" (%s)", strings.Join(f.Annotations, ", "))
	}
	return out
}

func formatObjectDiff(o *structs.ObjectDiff, start, keyPrefix int) string {
	marker, markerLen := diffMarker(o.Type)
	out := fmt.Sprintf("%s%s%s%s {\n", strings.Repeat(" ", start), marker, strings.Repeat(" ", keyPrefix), o.Name)
	longestField, longestMarker := longestPrefixes(o.Fields, o.Objects)
	out += alignedFieldsAndObjects(o.Fields, o.Objects, start+keyPrefix+2, longestField, longestMarker)
	return fmt.Sprintf("%s\n%s}", out, strings.Repeat(" ", start+markerLen+keyPrefix))
}

func longestPrefixes(fields []*structs.FieldDiff, objects []*structs.ObjectDiff) (longestField, longestMarker int) {
	for _, f := range fields {
		longestField = max(longestField, len(f.Name))
		_, l := diffMarker(f.Type)
		longestMarker = max(longestMarker, l)
	}
	for _, o := range objects {
		_, l := diffMarker(o.Type)
		longestMarker = max(longestMarker, l)
	}
	return longestField, longestMarker
}

// planChangesFromDiff reports whether a plan's diff and updates change
// anything (create, destroy, update, migrate).
func planChangesFromDiff(d *structs.JobDiff) bool {
	for _, tg := range d.TaskGroups {
		for k, n := range tg.Updates {
			if k != "ignore" && n > 0 {
				return true
			}
		}
	}
	return false
}
