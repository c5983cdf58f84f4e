// Package staleness holds the stale-reference checks (STALE-xxx): a discovered catalog is a snapshot, not a promise.
package staleness
