package fingerprint

import (
	"runtime"
	"strconv"
	"strings"
)

// defaultMHz is used when no frequency can be found (Nomad's fallback is
// similar: it needs some compute figure to schedule against).
const defaultMHz = 1000

// fingerprintCPU sets cpu.numcores, cpu.frequency (MHz), cpu.totalcompute,
// cpu.modelname and the node's CPU resources (shares = cores x MHz).
func fingerprintCPU(cfg *Config, r *Result) {
	cores, mhz, model := 0, 0.0, ""
	eachKeyValue(cfg.path("/proc/cpuinfo"), ":", func(k, v string) {
		switch k {
		case "processor":
			cores++
		case "cpu MHz":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > mhz {
				mhz = f
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
	if khz, err := strconv.ParseFloat(readTrim(cfg.path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")), 64); err == nil && khz > 0 {
		mhz = khz / 1000
	}
	if mhz <= 0 {
		mhz = modelGHz(model) * 1000
	}
	if mhz <= 0 {
		mhz = defaultMHz
	}
	freq := int64(mhz)
	total := int64(cores) * freq
	r.Attributes["cpu.numcores"] = itoa(int64(cores))
	r.Attributes["cpu.frequency"] = itoa(freq)
	r.Attributes["cpu.totalcompute"] = itoa(total)
	if model != "" {
		r.Attributes["cpu.modelname"] = model
	}
	r.Resources.Cpu.CpuShares = total
	r.Resources.Cpu.TotalCpuCores = uint16(cores)
	r.Resources.Cpu.ReservableCpuCores = make([]uint16, cores)
	for i := range r.Resources.Cpu.ReservableCpuCores {
		r.Resources.Cpu.ReservableCpuCores[i] = uint16(i)
	}
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
