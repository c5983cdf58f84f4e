// Package resources checks resources/list, templates, resources/read and
// legacy subscriptions (RES).
package resources
