// Package subscriptions holds the subscriptions/listen checks (SUB-xxx).
package subscriptions
