package fingerprint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPUID is the highest logical CPU ID a cpuset may name (IDs are uint16).
const maxCPUID = 1<<16 - 1

// ParseCPUSet parses a Linux cpuset list ("0-3,8,10-11", the format of
// sysfs cpulist files and of the client's reserved.cores) into sorted,
// unique CPU IDs. Space around items is ignored; "" is the empty set. An
// item that is not N or N-M with N <= M <= 65535 is an error naming it.
func ParseCPUSet(s string) ([]uint16, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []uint16
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		loS, hiS, isRange := strings.Cut(item, "-")
		lo, err := parseCPUID(loS)
		if err != nil {
			return nil, fmt.Errorf("invalid cpuset item %q: %w", item, err)
		}
		hi := lo
		if isRange {
			if hi, err = parseCPUID(hiS); err != nil {
				return nil, fmt.Errorf("invalid cpuset item %q: %w", item, err)
			}
			if hi < lo {
				return nil, fmt.Errorf("invalid cpuset item %q: range end is below its start", item)
			}
		}
		for id := lo; id <= hi; id++ {
			out = append(out, uint16(id))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseCPUID(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("missing CPU number")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxCPUID {
		return 0, fmt.Errorf("%q is not a CPU number (0-%d)", s, maxCPUID)
	}
	return n, nil
}

// FormatCPUSet renders sorted CPU IDs as a cpuset list, collapsing runs:
// [0 1 2 3 8 10 11] is "0-3,8,10-11". It is the inverse of ParseCPUSet.
func FormatCPUSet(ids []uint16) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(ids[i])))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(int(ids[j])))
		}
		i = j + 1
	}
	return b.String()
}
