// Package auth holds the authorization checks for HTTP resource servers (AUTH-xxx).
package auth
