package trace

import (
	"fmt"
	"time"
)

// Validate checks every job (see Job.Validate) and that IDs are unique.
// Errors name the job by index and ID.
func (t *Trace) Validate() error {
	seen := make(map[string]int, len(t.Jobs))
	for i := range t.Jobs {
		j := &t.Jobs[i]
		if err := j.Validate(); err != nil {
			return fmt.Errorf("job %d (%q): %w", i, j.ID, err)
		}
		if prev, ok := seen[j.ID]; ok {
			return fmt.Errorf("job %d: duplicate id %q (first at job %d)", i, j.ID, prev)
		}
		seen[j.ID] = i
	}
	return nil
}

// Validate checks one job: a non-empty ID, type service or batch,
// priority 1-100, count >= 1, memory > 0, cpu and cores >= 0, a known
// NUMA value (prefer/require only with cores), non-negative arrival and
// duration, constraints with an operator and spreads with an attribute.
// The error names the field.
func (j *Job) Validate() error {
	switch {
	case j.ID == "":
		return fieldErr("id", "", "is empty")
	case j.Type != "service" && j.Type != "batch":
		return fieldErr("type", j.Type, "is not service or batch")
	case j.Priority < 1 || j.Priority > 100:
		return fieldErr("priority", j.Priority, "is not in 1-100")
	case j.Count < 1:
		return fieldErr("count", j.Count, "is less than 1")
	case j.CPU < 0:
		return fieldErr("cpu", j.CPU, "is negative")
	case j.MemoryMB <= 0:
		return fieldErr("memory_mb", j.MemoryMB, "is not positive")
	case j.Cores < 0:
		return fieldErr("cores", j.Cores, "is negative")
	case j.Arrival < 0:
		return fieldErr("arrival", j.Arrival, "is negative")
	case j.Duration < 0:
		return fieldErr("duration", j.Duration, "is negative")
	}
	switch j.NUMA {
	case "", "none":
	case "prefer", "require":
		if j.Cores == 0 {
			return fieldErr("numa", j.NUMA, "needs cores > 0")
		}
	default:
		return fieldErr("numa", j.NUMA, "is not none, prefer or require")
	}
	for i, c := range j.Constraints {
		if c.Operator == "" {
			return fieldErr(fmt.Sprintf("constraints[%d]", i), c.Attribute, "has no operator")
		}
		if c.Attribute == "" && c.Operator != "distinct_hosts" {
			return fieldErr(fmt.Sprintf("constraints[%d]", i), c.Operator, "has no attribute")
		}
	}
	for i, s := range j.Spread {
		if s.Attribute == "" {
			return fieldErr(fmt.Sprintf("spread[%d]", i), "", "has no attribute")
		}
		if s.Weight < 0 || s.Weight > 100 {
			return fieldErr(fmt.Sprintf("spread[%d].weight", i), s.Weight, "is not in 0-100")
		}
	}
	return nil
}

// normalize fills defaults a reader applies: a constraint's missing
// operator is "=", as in a job file.
func (j *Job) normalize() {
	for i := range j.Constraints {
		if j.Constraints[i].Operator == "" {
			j.Constraints[i].Operator = "="
		}
	}
}

func fieldErr(field string, v any, what string) error {
	switch v := v.(type) {
	case string:
		return fmt.Errorf("field %q: %q %s", field, v, what)
	case time.Duration:
		return fmt.Errorf("field %q: %s %s", field, v, what)
	}
	return fmt.Errorf("field %q: %v %s", field, v, what)
}
