//go:build !linux

package stdio

import "errors"

func setSubreaper() error { return errors.New("no child subreaper on this platform") }
