// Package tasks holds the task checks (TASK-xxx): 2025-11-25 core tasks and the 2026-07-28 Tasks extension.
package tasks
