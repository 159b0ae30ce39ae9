package cli

// Nomad's `job restart`: restart a job's running allocations in batches,
// in place or by rescheduling them (website/cli-jobs.md).

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// promptStdin answers the prompts (job restart, eval delete);
// restartSleep waits between batches (tests replace both).
var (
	promptStdin  io.Reader = os.Stdin
	restartSleep           = time.Sleep
)

// replacementWait is how long one blocking query for a rescheduled
// allocation's replacement lasts before it is asked again.
const replacementWait = 30 * time.Second

// jobRestart is one run of `job restart`.
type jobRestart struct {
	m          *Meta
	c          *apiClient
	in         *bufio.Reader
	jobID      string
	size       func(total int) int // the batch size for total allocations
	wait       time.Duration
	askWait    bool
	groups     []string
	tasks      []string
	allTasks   bool
	reschedule bool
	onError    string // "ask" or "fail"
	yes        bool
	verbose    bool
}

// jobRestartCommand is `job restart [-batch-size N|N%] [-batch-wait D|ask]
// [-group G]... [-task T]... [-all-tasks] [-reschedule] [-on-error
// ask|fail] [-yes] [-verbose] JOB`.
func jobRestartCommand(m *Meta, args []string) int {
	f := m.newFlags("job restart", "[options] JOB")
	batchSize := f.String("batch-size", "1", "allocations restarted at once: a number or a percentage (25%)")
	batchWait := f.String("batch-wait", "0s", "time between batches, or \"ask\" to prompt")
	var groups, tasks stringList
	f.Var(&groups, "group", "only the allocations of this group (repeatable)")
	f.Var(&tasks, "task", "only restart this task (repeatable)")
	allTasks := f.Bool("all-tasks", false, "restart every task, not only the running ones")
	reschedule := f.Bool("reschedule", false, "stop the allocations and wait for their replacements instead of restarting in place")
	onError := f.String("on-error", "ask", "on a batch error: ask, or fail")
	yes := f.Bool("yes", false, "answer yes to every prompt (continue past errors, no batch-wait prompt)")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the job ID")
	}
	r := &jobRestart{m: m, groups: groups, tasks: tasks, allTasks: *allTasks, reschedule: *reschedule,
		onError: *onError, yes: *yes, verbose: *verbose, in: bufio.NewReader(promptStdin)}
	if err := r.parseOptions(*batchSize, *batchWait); err != nil {
		return m.errorf("parsing flags: %v", err)
	}
	r.c = m.client(f)
	id, ok := resolveID(m, jobMatcher(r.c), pos[0])
	if !ok {
		return exitError
	}
	r.jobID = id
	return r.run()
}

func (r *jobRestart) parseOptions(size, wait string) error {
	if pct, ok := strings.CutSuffix(size, "%"); ok {
		p, err := strconv.Atoi(pct)
		if err != nil || p < 1 || p > 100 {
			return fmt.Errorf("-batch-size %q: want a percentage from 1%% to 100%%", size)
		}
		r.size = func(total int) int { return max(1, total*p/100) }
	} else {
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 {
			return fmt.Errorf("-batch-size %q: want a positive number or a percentage", size)
		}
		r.size = func(int) int { return n }
	}
	if wait == "ask" {
		r.askWait = true
	} else {
		d, err := time.ParseDuration(wait)
		if err != nil || d < 0 {
			return fmt.Errorf("-batch-wait %q: want a duration or \"ask\"", wait)
		}
		r.wait = d
	}
	switch {
	case r.onError != "ask" && r.onError != "fail":
		return fmt.Errorf("-on-error %q: want ask or fail", r.onError)
	case r.allTasks && len(r.tasks) > 0:
		return fmt.Errorf("-all-tasks and -task exclude each other")
	case r.reschedule && (r.allTasks || len(r.tasks) > 0):
		return fmt.Errorf("-reschedule restarts whole allocations: no -task or -all-tasks")
	}
	return nil
}

func (r *jobRestart) say(format string, args ...any) {
	fmt.Fprintf(r.m.Out, "==> %s: %s\n", formatTime(r.m.Now()), fmt.Sprintf(format, args...))
}

func (r *jobRestart) detail(format string, args ...any) {
	fmt.Fprintf(r.m.Out, "    %s: %s\n", formatTime(r.m.Now()), fmt.Sprintf(format, args...))
}

// targets are the job's running allocations of the chosen groups that run
// one of the chosen tasks, oldest first.
func (r *jobRestart) targets() ([]*structs.AllocListStub, error) {
	allocs, _, err := r.c.jobAllocations(r.jobID, 0, 0)
	if err != nil {
		return nil, err
	}
	var out []*structs.AllocListStub
	for _, a := range allocs {
		if a.ClientStatus != structs.AllocClientStatusRunning || a.DesiredStatus != structs.AllocDesiredStatusRun {
			continue
		}
		if len(r.groups) > 0 && !slices.Contains(r.groups, a.TaskGroup) {
			continue
		}
		if len(r.tasks) > 0 && !slices.ContainsFunc(r.tasks, func(t string) bool { _, ok := a.TaskStates[t]; return ok }) {
			continue
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreateIndex < out[j].CreateIndex })
	return out, nil
}

func (r *jobRestart) run() int {
	allocs, err := r.targets()
	if err != nil {
		return r.m.errorf("retrieving allocations of job %q: %v", r.jobID, err)
	}
	if len(allocs) == 0 {
		r.say("No allocations to restart")
		return exitOK
	}
	size := r.size(len(allocs))
	r.say("Restarting %d allocation%s", len(allocs), plural(len(allocs)))
	failed := false
	for n, start := 1, 0; start < len(allocs); n, start = n+1, start+size {
		batch := allocs[start:min(start+size, len(allocs))]
		if start > 0 {
			if !r.betweenBatches() {
				r.say("Job restart canceled")
				return exitError
			}
		}
		r.say("Restarting %s batch of %d allocation%s", ordinal(n), len(batch), plural(len(batch)))
		if errs := r.restartBatch(batch); len(errs) > 0 {
			failed = true
			for _, e := range errs {
				fmt.Fprintf(r.m.Err, "Error: %v\n", e)
			}
			if start+size < len(allocs) && !r.continueAfterError() {
				r.say("Job restart canceled")
				return exitError
			}
		}
	}
	r.say("Finished job restart")
	if failed {
		fmt.Fprintln(r.m.Out, "\nSome allocations could not be restarted")
		return exitError
	}
	fmt.Fprintln(r.m.Out, "\nAll allocations restarted successfully!")
	return exitOK
}

// betweenBatches waits -batch-wait, or asks; false: the user said no.
func (r *jobRestart) betweenBatches() bool {
	if r.askWait && !r.yes {
		ans := r.ask("Proceed with the next batch? [Y/n/<duration>]: ")
		switch strings.ToLower(ans) {
		case "", "y", "yes":
			return true
		case "n", "no":
			return false
		}
		d, err := time.ParseDuration(ans)
		if err != nil || d < 0 {
			fmt.Fprintf(r.m.Err, "Error: %q is not yes, no or a duration\n", ans)
			return false
		}
		r.askWait, r.wait = false, d // a duration answers every later prompt too, as Nomad
	}
	if r.wait > 0 {
		r.say("Waiting %s before restarting the next batch", r.wait)
		restartSleep(r.wait)
	}
	return true
}

// continueAfterError applies -on-error after a batch with errors.
func (r *jobRestart) continueAfterError() bool {
	if r.yes {
		return true
	}
	if r.onError == "fail" {
		return false
	}
	ans := strings.ToLower(r.ask("Continue with the next batch? [y/N]: "))
	return ans == "y" || ans == "yes"
}

// ask prints the prompt and reads one line ("" at the end of the input).
func (r *jobRestart) ask(prompt string) string {
	fmt.Fprint(r.m.Out, prompt)
	line, _ := r.in.ReadString('\n')
	fmt.Fprintln(r.m.Out)
	return strings.TrimSpace(line)
}

// restartBatch restarts (or reschedules) the batch's allocations one after
// the other and returns the errors.
func (r *jobRestart) restartBatch(batch []*structs.AllocListStub) []error {
	var errs []error
	for _, a := range batch {
		var err error
		if r.reschedule {
			err = r.rescheduleAlloc(a)
		} else {
			err = r.restartAlloc(a)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("allocation %q: %w", shortID(a.ID, r.verbose), err))
		}
	}
	return errs
}

func (r *jobRestart) restartAlloc(a *structs.AllocListStub) error {
	r.detail("Restarting %s tasks in allocation %q for group %q", r.which(), shortID(a.ID, r.verbose), a.TaskGroup)
	path := "/v1/client/allocation/" + esc(a.ID) + "/restart"
	if len(r.tasks) == 0 {
		_, err := r.c.do(http.MethodPut, path, nil, structs.AllocRestartRequest{AllTasks: r.allTasks}, nil)
		return err
	}
	for _, t := range r.tasks {
		if _, ok := a.TaskStates[t]; !ok {
			continue
		}
		if _, err := r.c.do(http.MethodPut, path, nil, structs.AllocRestartRequest{TaskName: t}, nil); err != nil {
			return fmt.Errorf("task %q: %w", t, err)
		}
	}
	return nil
}

func (r *jobRestart) which() string {
	switch {
	case r.allTasks:
		return "all"
	case len(r.tasks) > 0:
		return strings.Join(r.tasks, ", ")
	}
	return "running"
}

// rescheduleAlloc stops the allocation and waits for its replacement (the
// job's new allocation whose PreviousAllocation it is) to run.
func (r *jobRestart) rescheduleAlloc(a *structs.AllocListStub) error {
	r.detail("Rescheduling allocation %q for group %q", shortID(a.ID, r.verbose), a.TaskGroup)
	before, index, err := r.c.jobAllocations(r.jobID, 0, 0)
	if err != nil {
		return err
	}
	checked := map[string]bool{}
	for _, x := range before {
		checked[x.ID] = true
	}
	var resp structs.AllocStopResponse
	if _, err := r.c.do(http.MethodPut, "/v1/allocation/"+esc(a.ID)+"/stop", nil, nil, &resp); err != nil {
		return err
	}
	next, err := r.findReplacement(a.ID, checked, index)
	if err != nil {
		return fmt.Errorf("waiting for a replacement: %w", err)
	}
	r.detail("Allocation %q replaced by %q, waiting for it to run", shortID(a.ID, r.verbose), shortID(next, r.verbose))
	_, err = r.waitAlloc(next, func(x *structs.Allocation) (bool, error) {
		switch x.ClientStatus {
		case structs.AllocClientStatusRunning:
			return true, nil
		case structs.AllocClientStatusFailed, structs.AllocClientStatusLost, structs.AllocClientStatusComplete:
			return false, fmt.Errorf("replacement %q is %s", shortID(x.ID, r.verbose), x.ClientStatus)
		}
		return false, nil
	})
	return err
}

// findReplacement follows the job's allocations (blocking queries past
// index) until a new one names old as its PreviousAllocation; checked holds
// the IDs already looked at.
func (r *jobRestart) findReplacement(old string, checked map[string]bool, index uint64) (string, error) {
	for {
		allocs, idx, err := r.c.jobAllocations(r.jobID, index, replacementWait)
		if err != nil {
			return "", err
		}
		for _, s := range allocs {
			if checked[s.ID] {
				continue
			}
			full, err := r.c.allocation(s.ID)
			if err != nil {
				return "", err
			}
			checked[s.ID] = true
			if full.PreviousAllocation == old {
				return s.ID, nil
			}
		}
		if idx <= index { // an answer without a newer index: ask past the next one anyway
			idx = index + 1
		}
		index = idx
	}
}

// waitAlloc follows the allocation with blocking queries until done says so.
func (r *jobRestart) waitAlloc(id string, done func(*structs.Allocation) (bool, error)) (*structs.Allocation, error) {
	var index uint64
	for {
		var a structs.Allocation
		idx, err := r.c.get("/v1/allocation/"+esc(id), blocking(index, replacementWait), &a)
		if err != nil {
			return nil, err
		}
		ok, err := done(&a)
		if err != nil || ok {
			return &a, err
		}
		if idx <= index { // an answer without a newer index: wait out the next one anyway
			idx = index + 1
		}
		index = idx
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ordinal is "1st", "2nd", "3rd", "4th", ... "11th", "21st".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
