// Package utilities checks progress (PROG), logging (LOG) and cancellation
// (CAN).
package utilities
