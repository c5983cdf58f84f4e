package scenario

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// RelayMain is `mcpconform scenario-relay --connect ADDR --token T`: the
// process a stdio client starts as its server. It connects to the judging
// process on 127.0.0.1, sends the token, and relays its stdin to the
// scenario server and the scenario server's output to its stdout, until
// either side ends. It returns the exit status.
func RelayMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenario-relay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("connect", "", "the judging process's address (127.0.0.1:PORT)")
	token := fs.String("token", "", "the run's token")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || host != "127.0.0.1" || *token == "" || strings.ContainsAny(*token, "\r\n") {
		fmt.Fprintln(stderr, "scenario-relay: --connect 127.0.0.1:PORT and --token are required (this command is started by mcpconform client)")
		return 2
	}
	conn, err := net.DialTimeout("tcp", *addr, 10*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "scenario-relay: %v\n", err)
		return 1
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, *token+"\n"); err != nil {
		return 1
	}
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(conn, stdin)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // the client closed our stdin: the server sees EOF
		}
		done <- err
	}()
	go func() {
		_, err := io.Copy(stdout, conn)
		done <- err
	}()
	// the server side ending ends the relay; stdin's EOF waits for it
	err = <-done
	if err == nil {
		err = <-done
	}
	if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrClosed) {
		return 1
	}
	return 0
}
