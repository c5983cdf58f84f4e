// Package pagination checks the paginated lists (PAG) and the caching
// hints of 2026-07-28 (CACHE).
package pagination
