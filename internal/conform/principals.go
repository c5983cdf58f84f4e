package conform

import "github.com/mcpconform/mcpconform/internal/session"

// OpenSecond opens a handshaken session as the second principal (a second
// credential given by the user); it is closed when the check ends. Without
// a second principal the check is NA.
func (t *T) OpenSecond() *session.Session {
	if !t.Env.Target.HasSecondPrincipal() {
		if t.HTTP() {
			t.NA("needs a second principal: give a second credential (--second-bearer-env NAME or --second-bearer-file PATH) to compare what two principals see")
		}
		t.NA("needs two principals; a stdio server runs as one")
	}
	s, err := t.Env.Target.OpenSecond(t.Ctx, t.Rev)
	if err != nil {
		t.Error("could not open a %s session as the second principal: %v", t.Rev, err)
	}
	t.owned = append(t.owned, s)
	return s
}
