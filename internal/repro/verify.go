package repro

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
)

// Verification statuses.
const (
	// Reproduced: the script exits 1 against the target.
	Reproduced = "reproduced"
	// Unreproduced: no replay tried exited 1 (a timing-dependent fault,
	// or state the run's transcript does not hold): the script says so
	// and never says OK.
	Unreproduced = "unreproduced"
	// Unjudged: the requirement's script has no rule (it replays and
	// exits 2 by design); nothing to verify.
	Unjudged = "unjudged"
)

// VerifyOptions bound a verification.
type VerifyOptions struct {
	Options
	// Wait is each script's MCPCONFORM_WAIT (seconds per answer; default
	// 10 s); Budget bounds the whole verification (default 90 s) and
	// MaxTries the scripts run (default 16).
	Wait     time.Duration
	Budget   time.Duration
	MaxTries int
	// Env is added to each script's environment (MCP_TOKEN for the
	// target's bearer token, MCPCONFORM_TARGET_CMD or _URL for another
	// target than the report's).
	Env []string
	// MaxEarlier caps the earlier messages of the connection searched
	// (the last ones before the exchange; default 200).
	MaxEarlier int
}

// Verification is what Verify found.
type Verification struct {
	Status string
	// Exit is what the printed script exited against the target when
	// last run (1, or 2; an unreproduced script's OK is a 2).
	Exit int
	// Tries counts the scripts run.
	Tries int
	// Prefix are the Seqs of the earlier messages the script sends (the
	// violation needs them).
	Prefix []int64
	// Why says what was found, in words (the script's header holds it).
	Why string
	// Output is the last script run's output.
	Output string
}

// Verify returns the script of res verified against the target: it runs
// the script of the exchange alone; when that does not show the
// violation (exit 1), it replays the connection's earlier messages of the
// run (the report's transcripts) before it and shrinks them to the
// smallest set that does (the shortest suffix by bisection, then single
// messages and chunks dropped), bounded in tries and time. A script that
// never reproduced says so and exits 2 where it would have said OK.
func Verify(ctx context.Context, rep *result.Report, res result.Result, vo VerifyOptions) (string, Verification, error) {
	if vo.Wait <= 0 {
		vo.Wait = 10 * time.Second
	}
	if vo.Budget <= 0 {
		vo.Budget = 90 * time.Second
	}
	if vo.MaxTries <= 0 {
		vo.MaxTries = 16
	}
	if vo.MaxEarlier <= 0 {
		vo.MaxEarlier = 200
	}
	ctx, cancel := context.WithTimeout(ctx, vo.Budget)
	defer cancel()
	var v Verification
	if ok, why := Judged(rep, res); !ok {
		s, err := Generate(rep, res, vo.Options)
		v.Status, v.Exit, v.Why = Unjudged, ExitUnknown, "not verified: the script has no rule and replays the exchange (exit 2): "+why
		return s, v, err
	}
	dir, err := os.MkdirTemp("", "mcpconform-verify-")
	if err != nil {
		return "", v, err
	}
	defer os.RemoveAll(dir)
	try := func(prefix []int64) (int, string, error) {
		o := vo.Options
		o.Prefix, o.Verified, o.Unreproduced = prefix, "", ""
		s, err := Generate(rep, res, o)
		if err != nil {
			return 0, "", err
		}
		v.Tries++
		path := filepath.Join(dir, fmt.Sprintf("try%d.sh", v.Tries))
		if err := os.WriteFile(path, []byte(s), 0o700); err != nil {
			return 0, "", err
		}
		code, out := RunScript(ctx, path, vo.Wait, vo.Env)
		v.Exit, v.Output = code, out
		return code, out, nil
	}
	final := func(prefix []int64, why, unrepro string) (string, Verification, error) {
		o := vo.Options
		o.Prefix, o.Verified, o.Unreproduced = prefix, why, unrepro
		v.Prefix = prefix
		if unrepro != "" {
			if ctx.Err() != nil {
				unrepro = fmt.Sprintf("the verification's budget (%s) ran out: %s", vo.Budget, unrepro)
			}
			if v.Exit == ExitUnknown {
				// why the last script could not tell (the server did not
				// start, or answer the handshake)
				unrepro += "; the last run said: " + clip(lastVerdict(v.Output), 300)
			}
			v.Status, v.Why = Unreproduced, unrepro
			if v.Exit == ExitOK {
				v.Exit = ExitUnknown // the printed script never says OK
			}
		} else {
			v.Status, v.Why = Reproduced, why
		}
		s, err := Generate(rep, res, o)
		return s, v, err
	}
	when := time.Now().UTC().Format("2006-01-02 15:04 MST")
	// confirmed: a script found to show the violation is run again
	// (confirmRuns in all): one that shows it only sometimes never says
	// OK either, and its header gives the rate.
	confirmed := func(prefix []int64, why string) (string, Verification, error) {
		shown := 1
		for n := 1; n < confirmRuns; n++ {
			c, _, err := try(prefix)
			if err != nil {
				return "", v, err
			}
			if c == ExitViolation {
				shown++
			}
		}
		if shown < confirmRuns {
			return final(prefix, "", fmt.Sprintf("the script showed the violation in %d of %d runs (a fault that shows only sometimes): %s", shown, confirmRuns, why))
		}
		return final(prefix, fmt.Sprintf("%s; confirmed in %d of %d runs", why, shown, confirmRuns), "")
	}
	code, _, err := try(nil)
	if err != nil {
		return "", v, err
	}
	if code == ExitViolation {
		return confirmed(nil, fmt.Sprintf("the exchange below showed the violation against the run's target (exit 1, %s)", when))
	}
	in := resultInput(rep, res, vo.Options)
	earlier := in.earlier()
	if len(earlier) > vo.MaxEarlier {
		earlier = earlier[len(earlier)-vo.MaxEarlier:]
	}
	alone := fmt.Sprintf("the exchange alone got exit %d", code)
	if len(earlier) == 0 {
		return final(nil, "", alone+", and the run's transcript holds no earlier message of the connection to replay before it (a timing-dependent fault, or state the report does not record)")
	}
	if c, _, err := try(earlier); err != nil {
		return "", v, err
	} else if c != ExitViolation {
		return final(nil, "", fmt.Sprintf("%s, and %d with the connection's %d earlier message(s) of the run before it (a timing-dependent fault, or state the report does not record)", alone, c, len(earlier)))
	}
	// The shortest suffix of earlier that reproduces (bisection: lo
	// messages do not, hi do).
	lo, hi := 0, len(earlier)
	for hi-lo > 1 && v.Tries < vo.MaxTries && ctx.Err() == nil {
		mid := (lo + hi) / 2
		c, _, err := try(earlier[len(earlier)-mid:])
		if err != nil {
			return "", v, err
		}
		if c == ExitViolation {
			hi = mid
		} else {
			lo = mid
		}
	}
	best := earlier[len(earlier)-hi:]
	// Its first message is needed; drop chunks of the others (halves,
	// then smaller), keeping each removal that still reproduces.
	for size := len(best) / 2; size >= 1 && len(best) > 1; size /= 2 {
		for start := 1; start < len(best) && v.Tries < vo.MaxTries && ctx.Err() == nil; {
			end := min(start+size, len(best))
			cand := append(append([]int64{}, best[:start]...), best[end:]...)
			c, _, err := try(cand)
			if err != nil {
				return "", v, err
			}
			if c == ExitViolation {
				best = cand
				continue
			}
			start = end
		}
		if size == 1 {
			break
		}
	}
	// the final script, run once more as it is printed
	if c, _, err := try(best); err != nil {
		return "", v, err
	} else if c != ExitViolation {
		return final(nil, "", fmt.Sprintf("%s; with earlier messages of the connection it reproduced, but not again with the %d kept (a fault that shows only sometimes)", alone, len(best)))
	}
	var names []string
	for _, m := range in.withPrefix(best) {
		names = append(names, m.method)
	}
	return confirmed(best, fmt.Sprintf("the exchange alone did not show the violation (exit %d); after %d earlier message(s) of the run's connection (%s) it did (exit 1, %s, %d scripts run)", code, len(best), strings.Join(names, ", "), when, v.Tries))
}

// confirmRuns: how many runs of the final script must all show the
// violation before the script may say OK against a fixed server.
const confirmRuns = 3

// withPrefix: the messages of the Seqs prefix.
func (in input) withPrefix(prefix []int64) []msg {
	in.prefix = prefix
	return in.prefixMsgs()
}

// RunScript runs a script with sh (MCPCONFORM_WAIT set to wait) in its own
// process group, killed with everything it started when ctx ends; it
// returns the exit status (-1 when it did not run to an end) and the
// output.
func RunScript(ctx context.Context, path string, wait time.Duration, env []string) (int, string) {
	cmd := exec.Command("sh", path)
	cmd.Env = append(os.Environ(), fmt.Sprintf("MCPCONFORM_WAIT=%d", max(1, int((wait+time.Second-1)/time.Second))))
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return -1, err.Error()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return -1, out.String() + "\n(stopped: the verification's budget ran out)"
	}
	// the script reaps its server; anything left in its group goes too
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		return -1, err.Error() + "\n" + out.String()
	}
	return 0, out.String()
}

// lastVerdict: the verdict line a script printed last.
func lastVerdict(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "CANNOT TELL") || strings.HasPrefix(l, "OK:") || strings.HasPrefix(l, "VIOLATION") {
			return l
		}
	}
	return "(no verdict line)"
}
