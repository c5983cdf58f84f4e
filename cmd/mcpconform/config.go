package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/internal/config"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/policy"
)

// The target config file (--config FILE, CONFIG.md) and the call policy
// (--call-tools): flags on the command line override the file.

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// applyConfig merges a config file under the flags (set names the flags
// given on the command line) and returns the stdio command to run: the
// command-line one when given, else the file's.
func (tf *targetFlags) applyConfig(f *config.File, set map[string]bool, command []string) []string {
	if f == nil {
		return command
	}
	// A target on the command line replaces the file's target.
	if len(command) == 0 && !set["url"] {
		command, tf.url = f.Command, f.URL
	}
	if !set["cwd"] {
		tf.cwd = f.Cwd
	}
	if !set["bearer-env"] && !set["bearer-file"] {
		tf.bearerEnv, tf.bearerFile = f.BearerEnv, f.BearerFile
	}
	if !set["second-bearer-env"] && !set["second-bearer-file"] {
		tf.secondBearerEnv, tf.secondBearerFile = f.SecondBearerEnv, f.SecondBearerFile
	}
	for _, x := range []struct {
		flag        string
		env, file   *string
		fenv, ffile string
	}{
		{"weak-bearer", &tf.weakBearerEnv, &tf.weakBearerFile, f.WeakBearerEnv, f.WeakBearerFile},
		{"expired-bearer", &tf.expiredBearerEnv, &tf.expiredBearerFile, f.ExpiredBearerEnv, f.ExpiredBearerFile},
		{"foreign-bearer", &tf.foreignBearerEnv, &tf.foreignBearerFile, f.ForeignBearerEnv, f.ForeignBearerFile},
	} {
		if !set[x.flag+"-env"] && !set[x.flag+"-file"] {
			*x.env, *x.file = x.fenv, x.ffile
		}
	}
	if !set["timeout"] && f.Timeout > 0 {
		tf.timeout = f.Timeout
	}
	if !set["call-tools"] && f.CallTools != "" {
		tf.callTools = string(f.CallTools)
	}
	// --env NAME=… after the file's entries: the last value of a name wins.
	tf.envs = append(append(multiFlag{}, f.Env...), tf.envs...)
	// --header Name: … replaces the file's headers of that name.
	flagged := map[string]bool{}
	for _, h := range tf.headers {
		k, _, _ := strings.Cut(h, ":")
		flagged[strings.ToLower(strings.TrimSpace(k))] = true
	}
	var headers multiFlag
	for _, h := range f.Headers {
		k, _, _ := strings.Cut(h, ":")
		if !flagged[strings.ToLower(strings.TrimSpace(k))] {
			headers = append(headers, h)
		}
	}
	tf.headers = append(headers, tf.headers...)
	tf.samples = f.SampleArgs
	tf.catalogChange = f.CatalogChange
	return command
}

// catalogTrigger converts the config's catalog_change for the checks.
func catalogTrigger(t *config.Trigger) *conform.Trigger {
	if t == nil {
		return nil
	}
	return &conform.Trigger{Tool: t.Tool, Arguments: t.Arguments, Command: t.Command, Restore: catalogTrigger(t.Restore)}
}

// loadConfig reads --config (when given), merges it, and parses the call
// policy; it returns the command to run.
func (tf *targetFlags) loadConfig(fs *flag.FlagSet, command []string) ([]string, error) {
	set := flagsSet(fs)
	if tf.configFile != "" {
		f, err := config.Load(tf.configFile)
		if err != nil {
			return nil, fmt.Errorf("--config: %v", err)
		}
		command = tf.applyConfig(f, set, command)
	}
	p, err := policy.Parse(tf.callTools)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", policy.Flag, err)
	}
	tf.policy = p
	return command, nil
}
