// Package sarifschema validates SARIF logs against the official SARIF
// 2.1.0 JSON schema (OASIS, errata 01), committed under testdata as
// published. Only tests import it: stdbg itself does not carry the schema.
package sarifschema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/sarif-schema-2.1.0.json
var schemaJSON []byte

var (
	once    sync.Once
	schema  *jsonschema.Schema
	loadErr error
)

// Validate reports why log is not a valid SARIF 2.1.0 log, or nil.
func Validate(log []byte) error {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			loadErr = fmt.Errorf("reading the SARIF schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
		if err := c.AddResource(url, doc); err != nil {
			loadErr = fmt.Errorf("loading the SARIF schema: %w", err)
			return
		}
		schema, loadErr = c.Compile(url)
	})
	if loadErr != nil {
		return loadErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(inst)
}
