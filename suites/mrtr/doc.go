// Package mrtr holds the multi round-trip request checks (MRTR-xxx, LIFE-011, LIFE-012).
package mrtr
