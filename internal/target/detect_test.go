package target

import (
	"strings"
	"testing"
)

// The legacy probe runs on the process started with the modern probe's
// while it still runs; its start is recorded when the probe takes it.
func TestLegacyProbeTakesTheEarlyProcess(t *testing.T) {
	tg := poolTarget("cat")
	early, err := tg.startStdio(true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tg.legacyProbeSession(early, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Conn() != early {
		t.Fatalf("the legacy probe opened %s instead of the process started with the modern probe's (%s)", s.Conn().Name(), early.Name())
	}
	notes := tg.Recorder.OnConn(0, early.Name())
	if len(notes) != 1 || !strings.Contains(notes[0].Note, "ahead of need") {
		t.Fatalf("the early process's start is not recorded when the probe takes it: %+v", notes)
	}
}

// A process that ended before anything was sent to it (a server that
// allows one instance at a time) is closed, and the probe gets a new one.
func TestLegacyProbeReplacesAnEndedProcess(t *testing.T) {
	tg := poolTarget("true")
	early, err := tg.startStdio(true)
	if err != nil {
		t.Fatal(err)
	}
	<-early.Exited()
	s, err := tg.legacyProbeSession(early, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Conn() == early {
		t.Fatal("the legacy probe took a process that had already ended")
	}
}
