package coord

import (
	"errors"
	"fmt"
	"net/http"
)

// tooLarge answers 413 for a body over the hub's limit, saying the limit;
// it reports whether it did.
func tooLarge(w http.ResponseWriter, err error) bool {
	var mb *http.MaxBytesError
	if !errors.As(err, &mb) {
		return false
	}
	writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over the hub's limit of %d MiB (%d bytes): nothing was taken", mb.Limit>>20, mb.Limit))
	return true
}
