package repro

import (
	"fmt"
	"strconv"
	"strings"
)

// write emits the judgement: the sh code run after the plan's messages
// were sent; it ends the script with verdict STATUS.
func (j judge) write(w func(string, ...any), in input, p plan) {
	last := msg{}
	if len(p.msgs) > 0 {
		last = p.msgs[len(p.msgs)-1]
	}
	stdio := in.transport == "stdio"
	if in.claim != nil && in.claim.Undeclared != "" && j.kind != judgeNone {
		in.writeUndeclared(w, p, in.claim.Undeclared)
	}
	noAnswer := func(what string) {
		if stdio {
			w("if [ -n \"$gone\" ]; then verdict 2 \"$EXPECTED\" %s; fi\n", sq("the process ended without answering "+what+" (a crash: see RPC-014)"))
			w("verdict 2 \"$EXPECTED\" \"no answer to %s within $WAIT s\"\n", what)
		} else {
			w("verdict 2 \"$EXPECTED\" \"no JSON-RPC answer to %s (HTTP $status)\"\n", what)
		}
	}
	// answered waits for the answer to the last message (ans); false
	// when the script ends there
	answered := func() bool {
		if last.id == "" {
			w("verdict 2 \"$EXPECTED\" 'the request has no id to match its answer'\n")
			return false
		}
		w("answer %s || {\n", sq(ereQuote(last.id)))
		noAnswer("the request")
		w("}\n")
		return true
	}
	switch j.kind {
	case judgeCrash:
		if stdio && last.id != "" {
			// as the suite does: a probe written with the input could be
			// lost in the read the server fails on, without a crash
			w("# The input's own answer first (or the process's end).\n")
			w("answer %s || :\n", sq(ereQuote(last.id)))
		}
		w("# Is the server still there? The era's liveness request.\n")
		probe := in.probe()
		in.writeMsg(w, probe, len(p.msgs)+2)
		w("if answer %s; then verdict 0 \"$EXPECTED\" 'it still answers after the input'; fi\n", sq(ereQuote(probe.id)))
		if stdio {
			w("if [ -n \"$gone\" ]; then verdict 1 \"$EXPECTED\" 'the process ended after the input, without answering the request that followed it'; fi\n")
			w("verdict 1 \"$EXPECTED\" \"no answer to the request that followed the input within $WAIT s (the server hangs or dropped its output)\"\n")
		} else {
			w("if [ \"$status\" = 000 ]; then verdict 1 \"$EXPECTED\" 'no HTTP response to the request that followed the input (the server is gone or hangs)'; fi\n")
			w("verdict 2 \"$EXPECTED\" \"the request that followed the input got HTTP $status without an answer\"\n")
		}
	case judgeCode:
		if !answered() {
			return
		}
		w("c=$(codeof \"$ans\")\n")
		if codes := j.codeList(); len(codes) > 0 {
			w("case $c in %s) verdict 0 \"$EXPECTED\" \"error $c\" ;; esac\n", strings.Join(codes, "|"))
			w("if [ -n \"$c\" ]; then verdict 1 \"$EXPECTED\" \"error $c instead\"; fi\n")
		} else {
			w("if [ -n \"$c\" ]; then verdict 0 \"$EXPECTED\" \"error $c\"; fi\n")
		}
		if j.orResult {
			w("verdict 0 \"$EXPECTED\" 'a result (as good an answer)'\n")
			return
		}
		w("verdict 1 \"$EXPECTED\" \"a result instead of an error: $ans\"\n")
	case judgeBurst:
		var ids []string
		for _, m := range p.msgs {
			if m.id != "" {
				ids = append(ids, sq(m.id))
			}
		}
		probe := in.probe()
		in.writeMsg(w, probe, len(p.msgs)+2)
		w("answer %s || verdict 2 \"$EXPECTED\" 'the server did not answer the request that followed them (see RPC-014)'\n", sq(ereQuote(probe.id)))
		w("printf '%%s\\n' %s >\"$tmp/ids\"\n", strings.Join(ids, " "))
		prog := `FNR == NR { want[$0] = 1; next }
{ for (k in want) if (index($0, "\"id\":" k ",") || index($0, "\"id\":" k "}")) got[k] = 1 }
END { for (k in want) if (!(k in got)) { n++; if (n <= 5) s = s " " k } if (n) print n ":" s }`
		w("i=0 limit=$((WAIT * 10))\n")
		w("while :; do\n\tnorm <\"$tmp/out\" | grep -E '\"(result|error)\":' | grep -v '\"method\":' >\"$tmp/resp\"\n")
		w("\tmissing=$(LC_ALL=C awk %s \"$tmp/ids\" \"$tmp/resp\")\n", sq(prog))
		w("\t[ -z \"$missing\" ] && verdict 0 \"$EXPECTED\" 'every request got a response with its id'\n")
		w("\t{ [ \"$i\" -ge \"$limit\" ] || ! kill -0 \"$pid\" 2>/dev/null; } && break\n\tnap; i=$((i+1))\ndone\n")
		w("verdict 1 \"$EXPECTED\" \"${missing%%%%:*} of %d requests got no response with their id within $WAIT s (e.g.${missing#*:}), while the request that followed them was answered\"\n", len(ids))
	case judgeProgress:
		tok := progressToken(last.body, "params", "_meta")
		if last.id == "" || tok == "" {
			w("verdict 2 \"$EXPECTED\" 'the request has no id or progressToken to match'\n")
			return
		}
		w("answer %s || {\n", sq(ereQuote(last.id)))
		noAnswer("the request")
		w("}\n")
		if stdio {
			probe := in.probe()
			in.writeMsg(w, probe, len(p.msgs)+2)
			w("answer %s || :\n", sq(ereQuote(probe.id)))
			w("out=$(norm <\"$tmp/out\")\n")
		} else {
			w("out=$(cat \"$tmp/j$n\")\n")
		}
		prog := `BEGIN { prev = ""; done = 0; bad = "" }
bad == "" && $0 ~ /"method":"notifications\/progress"/ && index($0, tok) > 0 {
	if (done) { bad = "progress after the answer: " $0; next }
	v = $0; sub(/.*"progress":/, "", v); sub(/[,}].*/, "", v)
	if (prev != "" && v + 0 <= prev + 0) bad = "progress did not increase: " v " after " prev
	prev = v
}
$0 ~ resp && $0 !~ /"method":/ { done = 1 }
END { print bad }`
		w("bad=$(printf '%%s\\n' \"$out\" | LC_ALL=C awk -v tok=%s -v resp=%s %s)\n", sq(`"progressToken":`+tok), sq(`"id":`+ereQuote(last.id)+`[,}].*"(result|error)":`), sq(prog))
		w("[ -n \"$bad\" ] && verdict 1 \"$EXPECTED\" \"$bad\"\n")
		w("verdict 0 \"$EXPECTED\" 'its progress increased and stopped at the answer'\n")
	case judgeAnswered:
		if last.id == "" {
			w("verdict 2 \"$EXPECTED\" 'the request has no id to match its answer'\n")
			return
		}
		w("if answer %s; then verdict 0 \"$EXPECTED\" \"it answered: $(printf '%%s' \"$ans\" | cut -c1-300)\"; fi\n", sq(ereQuote(last.id)))
		if stdio {
			w("[ -n \"$gone\" ] && verdict 2 \"$EXPECTED\" 'the process ended without answering (a crash: see RPC-014)'\n")
		} else {
			w("[ \"$status\" = 000 ] || verdict 2 \"$EXPECTED\" \"HTTP $status without an answer\"\n")
		}
		probe := in.probe()
		in.writeMsg(w, probe, len(p.msgs)+2)
		w("if answer %s; then verdict 1 \"$EXPECTED\" \"no answer within $WAIT s, while it answered the request that followed\"; fi\n", sq(ereQuote(probe.id)))
		w("verdict 2 \"$EXPECTED\" 'no answer, and none to the request that followed either (the server is gone or hangs: see RPC-014)'\n")
	case judgeModel:
		if len(p.msgs) == 0 && p.handshake {
			// the answer judged is initialize's: the handshake's own
			last = msg{id: `"mcpconform-repro-init"`}
			if !stdio {
				w("n=1\n")
			}
		}
		if !answered() {
			return
		}
		j.model.write(w)
	case judgeResult:
		if !answered() {
			return
		}
		w("c=$(codeof \"$ans\")\n")
		w("if [ -n \"$c\" ]; then verdict 1 \"$EXPECTED\" \"error $c instead of a result: $ans\"; fi\n")
		w("verdict 0 \"$EXPECTED\" \"a result\"\n")
	case judgeExecuted:
		probe := in.probe()
		in.writeMsg(w, probe, len(p.msgs)+2)
		if stdio {
			w("answer %s || {\n", sq(ereQuote(probe.id)))
			noAnswer("the request that followed the invalid one")
			w("}\n")
			w("out=$(norm <\"$tmp/out\")\n")
		} else {
			w("out=$(cat \"$tmp/j$((n-1))\")\n")
		}
		w("ran=$(printf '%%s\\n' \"$out\" | grep '\"result\":' | grep -v '\"id\":\"mcpconform-repro-' | sed -n 1p)\n")
		w("[ -n \"$ran\" ] && verdict 1 \"$EXPECTED\" \"it executed the invalid request: $ran\"\n")
		w("rej=$(printf '%%s\\n' \"$out\" | grep '\"error\":' | sed -n 1p)\n")
		w("verdict 0 \"$EXPECTED\" \"it did not execute it${rej:+ (answer: $rej)}\"\n")
	case judgeMember:
		if !answered() {
			return
		}
		if j.want != "" {
			w("printf '%%s\\n' \"$ans\" | grep -qE %s || verdict 1 \"$EXPECTED\" %s\n", sq(j.want), sq(j.wantSays+": ")+`"$ans"`)
		}
		if j.bad != "" {
			w("printf '%%s\\n' \"$ans\" | grep -qE %s && verdict 1 \"$EXPECTED\" %s\n", sq(j.bad), sq(j.badSays+": ")+`"$ans"`)
		}
		w("verdict 0 \"$EXPECTED\" \"its answer: $ans\"\n")
	case judgeUnsolicited, judgeSilent, judgeEcho:
		j.writeObserved(w, in, p, last, noAnswer)
	case judgeAccepted:
		if len(p.msgs) == 0 {
			w("st=${ini_status:-000} bn=${ini_n:-0}\n")
		} else {
			w("st=$status bn=$n\n")
		}
		w("[ \"$st\" = 000 ] && verdict 2 \"$EXPECTED\" 'no HTTP response'\n")
		w("case $st in 4??) verdict 0 \"$EXPECTED\" \"HTTP $st (not accepted)\" ;; esac\n")
		w("size=$(wc -c <\"$tmp/b$bn\" | tr -d ' ')\n")
		w("if [ \"$st\" = 202 ] && [ \"$size\" = 0 ]; then verdict 0 \"$EXPECTED\" 'HTTP 202 with an empty body'; fi\n")
		w("verdict 1 \"$EXPECTED\" \"HTTP $st with a body of $size bytes\"\n")
	case judgeStatus:
		w("if [ \"$status\" = 000 ]; then verdict 2 \"$EXPECTED\" 'no HTTP response'; fi\n")
		if j.deleted >= 0 && j.deleted < len(p.msgs)-1 {
			w("case $status_%d in 2*) ;; *) verdict 2 \"$EXPECTED\" \"the server did not accept the DELETE (HTTP $status_%d): the session may not have ended\" ;; esac\n", j.deleted, j.deleted)
		}
		w("case $status in %s) verdict 0 \"$EXPECTED\" \"HTTP $status\" ;; esac\n", strings.Join(j.statusList(), "|"))
		w("verdict 1 \"$EXPECTED\" \"HTTP $status\"\n")
	case judgeBatch:
		ids := batchIDs(last.body)
		if stdio {
			probe := in.probe()
			in.writeMsg(w, probe, len(p.msgs)+2)
			w("answer %s; ok=$?\n", sq(ereQuote(probe.id)))
			w("out=$(norm <\"$tmp/out\")\n")
		} else {
			w("[ \"$status\" = 000 ] && verdict 2 \"$EXPECTED\" 'no HTTP response to the batch'\n")
			w("ok=0; out=$(cat \"$tmp/j$n\")\n")
		}
		for _, id := range ids {
			w("if printf '%%s\\n' \"$out\" | grep -E %s | grep -qE '\"(result|error)\":'; then\n", sq(`"id":`+ereQuote(id)+`[,}]`))
			w("\tif printf '%%s\\n' \"$out\" | grep -E %s | grep -qE '\"result\":'; then verdict 1 \"$EXPECTED\" %s; fi\n", sq(`"id":`+ereQuote(id)+`[,}]`), sq("it executed the batch element "+id))
			w("fi\n")
		}
		w("[ \"$ok\" = 0 ] && verdict 0 \"$EXPECTED\" 'no element of the batch was executed'\n")
		noAnswer("the request that followed the batch")
	case judgeParse:
		if stdio {
			probe := in.probe()
			in.writeMsg(w, probe, len(p.msgs)+2)
			w("answer %s || {\n", sq(ereQuote(probe.id)))
			noAnswer("the request that followed the input")
			w("}\n")
			w("errs=$(norm <\"$tmp/out\" | grep '\"error\":' | grep -vE '\"id\":[^n]')\n")
		} else {
			w("errs=$(grep '\"error\":' \"$tmp/j$n\" | grep -vE '\"id\":[^n]')\n")
		}
		w("[ -n \"$errs\" ] || verdict 2 \"$EXPECTED\" 'no error without an id answered the input'\n")
		w("if printf '%%s\\n' \"$errs\" | grep -qE '\"code\":-32700[,}]'; then verdict 0 \"$EXPECTED\" 'error -32700'; fi\n")
		w("verdict 1 \"$EXPECTED\" \"error $(codeof \"$(printf '%%s\\n' \"$errs\" | sed -n 1p)\") instead\"\n")
	default:
		if stdio && last.id != "" {
			w("answer %s\n", sq(ereQuote(last.id)))
		}
		if stdio {
			w("nap; flush\n")
		}
		why := j.why
		if why == "" {
			why = "no rule judges this requirement automatically: compare the answers above with the expected"
		}
		w("verdict 2 \"$EXPECTED\" %s\n", sq(strings.TrimSpace(why)))
	}
	_ = fmt.Sprint
}

// codeList: the accepted error codes as text (none: any error).
func (j judge) codeList() []string {
	var out []string
	for _, c := range j.codes {
		out = append(out, fmt.Sprint(c))
	}
	if len(out) == 0 && j.code != 0 {
		out = append(out, fmt.Sprint(j.code))
	}
	return out
}

// statusList: the accepted HTTP statuses as text.
func (j judge) statusList() []string {
	var out []string
	for _, s := range j.statuses {
		out = append(out, fmt.Sprint(s))
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprint(j.status))
	}
	return out
}

// writeObserved judges what the server sent after the last message:
// over stdio everything it wrote until it answered the probe that
// follows, over HTTP the body of the last request.
func (j judge) writeObserved(w func(string, ...any), in input, p plan, last msg, noAnswer func(string)) {
	if in.transport == "stdio" {
		if j.kind == judgeUnsolicited && last.id != "" {
			// the input's answer (or what the requirement forbids) first:
			// the server may write before the answer, after the probe's
			wait := `"id":` + ereQuote(last.id) + `[,}].*"(result|error)":`
			if j.bad != "" {
				wait += "|" + j.bad
			}
			w("await %s || :\n", sq(wait))
		}
		probe := in.probe()
		in.writeMsg(w, probe, len(p.msgs)+2)
		w("answer %s || {\n", sq(ereQuote(probe.id)))
		noAnswer("the request that followed")
		w("}\n")
		w("out=$(norm <\"$tmp/out\")\n")
	} else {
		w("[ \"$status\" = 000 ] && verdict 2 \"$EXPECTED\" 'no HTTP response'\n")
		if j.kind != judgeEcho {
			// what the server sends may come with the next reply
			probe := in.probe()
			in.writeMsg(w, probe, len(p.msgs)+2)
		}
		w("out=$(cat \"$tmp\"/j*)\n")
	}
	switch j.kind {
	case judgeUnsolicited:
		if j.listChanged {
			// the lists whose listChanged initialize's answer declares
			prog := "BEGIN { ABSENT = \"\\001\" }\n" + jsonAwk + `
{ for (i = 1; i <= 3; i++) { k = substr("tools    prompts  resources", i * 9 - 8, 9); gsub(/ /, "", k); if (jget($0, "/result/capabilities/" k "/listChanged") == "true") printf "%s|", k } }`
			w("declared=$(printf '%%s\\n' \"$init_ans\" | LC_ALL=C awk %s)\n", sq(prog))
			w("bad=$(printf '%%s\\n' \"$out\" | grep -E %s | grep -vE \"\\\"method\\\":\\\"notifications/(${declared}mcpconform-none)/list_changed\\\"\" | sed -n 1p)\n", sq(j.bad))
		} else if j.nonRPC {
			w("bad=$(printf '%%s\\n' \"$out\" | grep -v '^$' | grep -v '\"jsonrpc\":\"2\\.0\"' | sed -n 1p)\n")
		} else {
			if j.unless != "" {
				w("bad=$(printf '%%s\\n' \"$out\" | grep -E %s | grep -vE %s | sed -n 1p)\n", sq(j.bad), sq(j.unless))
			} else {
				w("bad=$(printf '%%s\\n' \"$out\" | grep -E %s | sed -n 1p)\n", sq(j.bad))
			}
		}
		w("[ -n \"$bad\" ] && verdict 1 \"$EXPECTED\" %s\n", sq(j.badSays+": ")+`"$bad"`)
		w("verdict 0 \"$EXPECTED\" 'nothing of the kind came'\n")
	case judgeSilent:
		// the responses that answer none of the script's own requests
		ids := []string{`"mcpconform-repro-[a-z]*"`}
		for _, m := range append(append([]msg{}, p.prefix...), p.msgs...) {
			if m.id != "" {
				ids = append(ids, ereQuote(m.id))
			}
		}
		w("bad=$(printf '%%s\\n' \"$out\" | grep -E '\"(result|error)\":' | grep -v '\"method\":' | grep -vE %s | sed -n 1p)\n", sq(`"id":(`+strings.Join(ids, "|")+`)[,}]`))
		w("[ -n \"$bad\" ] && verdict 1 \"$EXPECTED\" \"it answered the notification: $bad\"\n")
		// or a second answer to a request of the script's (a reply to
		// notifications/cancelled carrying the cancelled request's id)
		for _, id := range ids[1:] {
			w("if [ \"$(printf '%%s\\n' \"$out\" | grep -E '\"(result|error)\":' | grep -v '\"method\":' | grep -cE %s)\" -gt 1 ]; then verdict 1 \"$EXPECTED\" %s; fi\n",
				sq(`"id":`+id+`[,}]`), sq("a second response carries the id "+strings.ReplaceAll(id, `\`, "")+": it answered the notification"))
		}
		w("verdict 0 \"$EXPECTED\" 'no response answered the notification'\n")
	case judgeEcho:
		if last.id == "" {
			w("verdict 2 \"$EXPECTED\" 'the request has no id to match its answer'\n")
			return
		}
		alt := strings.Trim(last.id, `"`)
		if !strings.HasPrefix(last.id, `"`) {
			alt = `"` + alt + `"`
		}
		w("if printf '%%s\\n' \"$out\" | grep -E %s | grep -qE '\"(result|error)\":'; then verdict 0 \"$EXPECTED\" 'its answer carries the id as sent: %s'; fi\n", sq(`"id":`+ereQuote(last.id)+`[,}]`), strings.ReplaceAll(last.id, "'", ""))
		w("wrong=$(printf '%%s\\n' \"$out\" | grep -E %s | grep -E '\"(result|error)\":' | sed -n 1p)\n", sq(`"id":`+ereQuote(alt)+`[,}]`))
		w("[ -n \"$wrong\" ] && verdict 1 \"$EXPECTED\" %s\n", sq("the answer carries the id "+alt+" for the request's "+last.id+": ")+`"$wrong"`)
		w("verdict 2 \"$EXPECTED\" 'no answer carries the id of the request'\n")
	}
}

// writeUndeclared: the requirement applies where the server does not
// declare capability: the script asks (initialize's answer, or
// server/discover in 2026-07-28) and cannot tell where it does.
func (in input) writeUndeclared(w func(string, ...any), p plan, capability string) {
	w("# The requirement applies to a server that does not declare %s.\n", capability)
	ptr := "/result/capabilities/" + capability
	if p.handshake {
		w("caps=$init_ans\n")
	} else {
		w("ans_saved=$ans; n_saved=${n:-0}; status_saved=${status:-}\n")
		probe := in.probe()
		probe.id = `"mcpconform-repro-caps"`
		probe.body = []byte(strings.Replace(string(probe.body), `"mcpconform-repro-probe"`, probe.id, 1))
		in.writeMsg(w, probe, 90)
		w("answer %s || :\ncaps=$ans; ans=$ans_saved; n=$n_saved; status=$status_saved\n", sq(ereQuote(probe.id)))
	}
	prog := "BEGIN { ABSENT = \"\\001\" }\n" + jsonAwk + "\n{ if (jget($0, " + strconv.Quote(ptr) + ") != ABSENT) print \"declared\" }"
	w("if [ -n \"$(printf '%%s\\n' \"$caps\" | LC_ALL=C awk %s)\" ]; then verdict 2 \"$EXPECTED\" %s; fi\n", sq(prog), sq("the server declares "+capability+": the requirement does not apply to it"))
}
