package tasks

import "testing"

func TestGuessable(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want bool
	}{
		{[]string{"2c4a74d37ef08ee7eaefa5e1856b5022", "9f1be0c2d6a44f0e8e5b7d3c1a2b4c6d", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"}, false},
		{[]string{"550e8400-e29b-41d4-a716-446655440000", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "f47ac10b-58cc-4372-a567-0e02b2c3d479"}, false},
		{[]string{"task-1", "task-2", "task-3"}, true},
		{[]string{"order-audit-task-000000000000000001", "order-audit-task-000000000000000002", "order-audit-task-000000000000000003"}, true},
		{[]string{"tsk_8JkQ2mZpLx7VbN4c", "tsk_Yw3RfT9aHs6DqE1u", "tsk_Pn5GzC2kMv8XjB0t"}, false},
		{[]string{"12345678901234567890", "12345678901234567891"}, true},
	} {
		if got := guessable(tc.ids) != ""; got != tc.want {
			t.Errorf("guessable(%q) = %v (%q), want %v", tc.ids, got, guessable(tc.ids), tc.want)
		}
	}
}
