// Package legacy holds the checks of server-to-client requests in the initialize era (LEG-xxx).
package legacy
