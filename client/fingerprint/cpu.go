package fingerprint

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// defaultMHz is used when no frequency can be found (Nomad's fallback is
// similar: it needs some compute figure to schedule against).
const defaultMHz = 1000

// fingerprintCPU sets cpu.frequency (MHz) and cpu.modelname from
// /proc/cpuinfo and cpu0's cpufreq, and returns that frequency and the
// processor count (runtime.NumCPU when cpuinfo has none).
// fingerprintTopology then sets the CPU resources and core counts.
func fingerprintCPU(cfg *Config, r *Result) (mhz uint64, cores int) {
	fmhz, model := 0.0, ""
	eachKeyValue(cfg.path("/proc/cpuinfo"), ":", func(k, v string) {
		switch k {
		case "processor":
			cores++
		case "cpu MHz":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > fmhz {
				fmhz = f
			}
		case "model name":
			if model == "" {
				model = v
			}
		}
	})
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	// The max frequency from cpufreq (kHz) is steadier than the current
	// "cpu MHz", which changes with power saving.
	if khz, err := strconv.ParseFloat(readTrim(filepath.Join(cfg.sysfs(), "devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")), 64); err == nil && khz > 0 {
		fmhz = khz / 1000
	}
	if fmhz <= 0 {
		fmhz = modelGHz(model) * 1000
	}
	if fmhz <= 0 {
		fmhz = defaultMHz
	}
	r.Attributes["cpu.frequency"] = itoa(int64(fmhz))
	if model != "" {
		r.Attributes["cpu.modelname"] = model
	}
	return uint64(fmhz), cores
}

// modelGHz parses "... @ 2.40GHz" from a CPU model name (0 if absent).
func modelGHz(model string) float64 {
	_, after, ok := strings.Cut(model, "@")
	if !ok {
		return 0
	}
	s := strings.TrimSuffix(strings.TrimSpace(after), "GHz")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f
}
