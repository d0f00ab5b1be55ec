package experiment

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Header opens every experiment's report: when, what command, on what
// machine.
type Header struct {
	Date    time.Time `json:"date"`
	Command string    `json:"command"`
	Machine string    `json:"machine"`
	Cores   int       `json:"cores,omitempty"`
}

// NewHeader is the header of a report of command started now.
func NewHeader(command string) Header {
	return Header{Date: time.Now().UTC(), Command: command, Machine: Machine(), Cores: runtime.NumCPU()}
}

// BusySeconds returns the CPU seconds the machine has spent not idle since
// boot, summed over its cores (/proc/stat).
func BusySeconds() (float64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, fmt.Errorf("unexpected /proc/stat line %q", line)
	}
	var busy float64
	for i, v := range f[1:] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// idle and iowait are not busy; guest time is already in user.
		if i == 3 || i == 4 || i >= 8 {
			continue
		}
		busy += n
	}
	return busy / ClockTicks, nil
}

// Machine describes the machine's size.
func Machine() string {
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					mem = fmt.Sprintf(", %.0f GiB", kb/1024/1024)
				}
			}
		}
	}
	return fmt.Sprintf("%d cores%s, %s/%s", runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH)
}

// LoadAverage returns the machine's 1-minute load average (the kernel's,
// the same in every namespace).
func LoadAverage() (float64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty /proc/loadavg")
	}
	return strconv.ParseFloat(f[0], 64)
}
