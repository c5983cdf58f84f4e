package subscriptions

import (
	"encoding/json"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// AckFilter returns the ack's params.notifications.
func AckFilter(m *jsonrpc.Message) map[string]json.RawMessage {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Notifications
}

// FullFilter asks for every list the server declared listChanged for (all
// three when all is set), and resourceSubscriptions for uris.
func FullFilter(s *session.Session, all bool, uris []string) map[string]any {
	f := map[string]any{}
	for _, k := range []struct{ capability, key string }{{"tools", "toolsListChanged"}, {"prompts", "promptsListChanged"}, {"resources", "resourcesListChanged"}} {
		if all || c.SubCapability(s, k.capability, "listChanged") {
			f[k.key] = true
		}
	}
	if len(uris) > 0 {
		f["resourceSubscriptions"] = uris
	}
	return f
}

// listensAtAll reports whether the server has anything to listen for.
func listensAtAll(s *session.Session) bool {
	for _, k := range []string{"tools", "prompts", "resources"} {
		if c.SubCapability(s, k, "listChanged") {
			return true
		}
	}
	return c.SubCapability(s, "resources", "subscribe")
}

// NeedListen ends the check as NA when the server offers nothing a listen
// stream could carry.
func NeedListen(t *c.T, s *session.Session) {
	if !listensAtAll(s) {
		t.NA("the server declares no listChanged and no resources.subscribe: it offers nothing to listen for")
	}
}

// describe renders an event for messages.
func describeEvent(e session.Event) string {
	return c.Clip(e.Frame.Raw)
}

// kindOf returns "tools", "prompts" or "resources" for a list_changed
// method ("" otherwise).
func kindOf(method string) string {
	if !strings.HasSuffix(method, "/list_changed") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed")
}
