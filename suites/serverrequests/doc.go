// Package serverrequests holds the checks of the requests a legacy server
// sends its client (LEG-xxx, area server-requests): elicitation, sampling
// and roots go only to clients that declared them.
package serverrequests
