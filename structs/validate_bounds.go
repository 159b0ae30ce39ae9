package structs

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ceilings on what a job or a node may state (website/jobspec.md, "Limits").
// Each is far above what any real machine has, so no honest job or node
// meets them, and low enough that sums of many of them stay far from
// int64's range; the fit arithmetic saturates besides (saturate.go).
const (
	MaxCPU          = 1 << 26 // MHz: 67,108,864, i.e. 8,192 cores at 8 GHz
	MaxCores        = 8192    // Linux's largest NR_CPUS
	MaxMemoryMB     = 1 << 27 // 128 TiB
	MaxDiskMB       = 1 << 30 // 1 PiB
	MaxNetworkMBits = 1 << 20 // about 1 Tbit/s

	MaxTaskGroups    = 1000 // groups per job
	MaxTasksPerGroup = 1000 // tasks per group

	MaxJobIDLength     = 256      // bytes, job ID and name
	MaxNameLength      = 128      // bytes: group, task, namespace, region, datacenter, node pool, meta key
	MaxMetaValueLength = 64 << 10 // bytes

	// DefaultJobMaxCount is server { job_max_count }'s default: the most
	// allocations one job may ask for, summed over its groups.
	DefaultJobMaxCount = 10000
	// MaxJobMaxCount is the highest job_max_count an operator may set.
	MaxJobMaxCount = 1000000
)

// namespaceRE is Nomad's rule for namespace names; nodePoolRE Nomad's for
// node pools.
var (
	namespaceRE = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)
	nodePoolRE  = regexp.MustCompile(`^[a-zA-Z0-9-_.]{1,128}$`)
)

// nameRule says what a name may hold beyond printable UTF-8 of at most max
// bytes.
type nameRule struct {
	max     int
	noSpace bool // no ' ' (other whitespace is never printable here)
	noSlash bool // no '/' or '\\', and not "." or "..": the name is a path element
	segs    bool // '/'-separated segments, none empty, "." or ".."
}

var (
	jobIDRule   = nameRule{max: MaxJobIDLength, noSpace: true, segs: true}
	jobNameRule = nameRule{max: MaxJobIDLength}
	pathRule    = nameRule{max: MaxNameLength, noSlash: true}
	labelRule   = nameRule{max: MaxNameLength, noSpace: true}
	metaKeyRule = nameRule{max: MaxNameLength, noSpace: true}
)

// checkName returns why s breaks rule, or "" when it does not. An empty s
// passes: callers that require a name say so themselves.
func checkName(s string, rule nameRule) string {
	switch {
	case s == "":
		return ""
	case len(s) > rule.max:
		return fmt.Sprintf("is %d bytes long, over the limit of %d", len(s), rule.max)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "contains a null character"
	}
	for _, r := range s {
		if r == ' ' && rule.noSpace {
			return "contains a space"
		}
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("contains the non-printable character %U", r)
		}
		if rule.noSlash && (r == '/' || r == '\\') {
			return "contains a slash"
		}
	}
	if rule.noSlash && (s == "." || s == "..") {
		return fmt.Sprintf("can't be %q", s)
	}
	if rule.segs {
		for _, seg := range strings.Split(s, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return fmt.Sprintf("has an empty, %q or %q path segment", ".", "..")
			}
		}
	}
	return ""
}

// addName adds an error to errs when name breaks rule: "<place> <what> <why>".
func addName(errs *MultiError, place, what, name string, rule nameRule) {
	if why := checkName(name, rule); why != "" {
		errs.Add(fmt.Errorf("%s%s %s", place, what, why))
	}
}

// validateMeta checks a meta map's keys and values.
func validateMeta(errs *MultiError, place string, meta map[string]string) {
	for _, k := range sortedKeys(meta) {
		if k == "" {
			errs.Add(fmt.Errorf("%smeta key can't be empty", place))
			continue
		}
		addName(errs, place, fmt.Sprintf("meta key %.40q", k), k, metaKeyRule)
		if v := meta[k]; len(v) > MaxMetaValueLength {
			errs.Add(fmt.Errorf("%smeta %.40q: value is %d bytes long, over the limit of %d", place, k, len(v), MaxMetaValueLength))
		} else if strings.IndexByte(v, 0) >= 0 {
			errs.Add(fmt.Errorf("%smeta %.40q: value contains a null character", place, k))
		}
	}
}

// validateBounds checks the job's names and sizes against the limits above:
// IDs and names (job, namespace, region, datacenters, node pool, groups,
// tasks, meta keys), the number of groups and tasks, and each group's
// ephemeral disk and network asks. Resources are bounded by
// Resources.Validate. Called by Validate.
func (j *Job) validateBounds(errs *MultiError) {
	if !containsSpace(j.ID) { // Validate reports spaces itself
		addName(errs, "", "job ID", j.ID, jobIDRule)
	}
	addName(errs, "", "job name", j.Name, jobNameRule)
	if j.Namespace != "" && !namespaceRE.MatchString(j.Namespace) { // Canonicalize fills it
		errs.Add(fmt.Errorf("namespace %.140q must be 1-%d letters, digits or dashes", j.Namespace, MaxNameLength))
	}
	addName(errs, "", "region", j.Region, labelRule)
	for _, dc := range j.Datacenters {
		if dc == "" {
			errs.Add(fmt.Errorf("datacenter names can't be empty"))
		}
		addName(errs, "", fmt.Sprintf("datacenter %.40q", dc), dc, labelRule)
	}
	if j.NodePool != "" && !nodePoolRE.MatchString(j.NodePool) {
		errs.Add(fmt.Errorf("node pool %.140q must be 1-%d letters, digits, '-', '_' or '.'", j.NodePool, MaxNameLength))
	}
	validateMeta(errs, "", j.Meta)
	if len(j.TaskGroups) > MaxTaskGroups {
		errs.Add(fmt.Errorf("job has %d task groups, over the limit of %d", len(j.TaskGroups), MaxTaskGroups))
	}
	for _, tg := range j.TaskGroups {
		if tg != nil {
			tg.validateBounds(errs)
		}
	}
}

func (tg *TaskGroup) validateBounds(errs *MultiError) {
	place := fmt.Sprintf("group %.140q: ", tg.Name)
	addName(errs, "", fmt.Sprintf("group %.40q: name", tg.Name), tg.Name, pathRule)
	validateMeta(errs, place, tg.Meta)
	if len(tg.Tasks) > MaxTasksPerGroup {
		errs.Add(fmt.Errorf("%shas %d tasks, over the limit of %d", place, len(tg.Tasks), MaxTasksPerGroup))
	}
	if d := tg.EphemeralDisk; d != nil && (d.SizeMB < 0 || d.SizeMB > MaxDiskMB) {
		errs.Add(fmt.Errorf("%sephemeral_disk size %d MB out of range [0, %d]", place, d.SizeMB, MaxDiskMB))
	}
	for _, n := range tg.Networks {
		if n == nil {
			continue
		}
		if n.MBits < 0 || n.MBits > MaxNetworkMBits {
			errs.Add(fmt.Errorf("%snetwork mbits %d out of range [0, %d]", place, n.MBits, MaxNetworkMBits))
		}
		for _, p := range n.DynamicPorts {
			if p.Value < 0 || p.Value > MaxValidPort {
				errs.Add(fmt.Errorf("%sport %.40q: value %d out of range [0, %d]", place, p.Label, p.Value, MaxValidPort))
			}
		}
	}
	for _, t := range tg.Tasks {
		if t == nil {
			continue
		}
		tplace := fmt.Sprintf("%stask %.140q: ", place, t.Name)
		addName(errs, place, fmt.Sprintf("task %.40q: name", t.Name), t.Name, pathRule)
		validateMeta(errs, tplace, t.Meta)
	}
}

// ValidateCount checks the job against server { job_max_count }: the
// counts of its groups, summed, may not exceed limit (limit <= 0 means
// DefaultJobMaxCount). The error names the limit and every group's count.
func (j *Job) ValidateCount(limit int) error {
	if limit <= 0 {
		limit = DefaultJobMaxCount
	}
	var total int64
	var parts []string
	for _, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		total = SatAdd(total, int64(tg.Count))
		parts = append(parts, fmt.Sprintf("group %.40q: %d", tg.Name, tg.Count))
	}
	if total <= int64(limit) {
		return nil
	}
	if len(parts) > 5 {
		parts = append(parts[:5], "...")
	}
	return fmt.Errorf("job %.40q asks for %d allocations (%s), over the server's job_max_count of %d",
		j.ID, total, strings.Join(parts, ", "), limit)
}
