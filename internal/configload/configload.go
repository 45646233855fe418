// Package configload reads named settings from four places, each beating
// the next: a command's flags (those the user set), environment variables
// (PREFIX_NAME, dashes as underscores), a YAML file of name: value pairs,
// and defaults; then decodes them into a struct whose fields are tagged
// with the names, converting text (of a flag or a variable) to the field's
// type.
//
// It does what stdbg needs of a configuration library and nothing more,
// so that every stdbg command does not pay for the initialisation of a
// larger one's dependencies.
package configload

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// Values are the settings of one command, each from the place that beats
// the others.
type Values struct {
	defaults  map[string]any
	envPrefix string
	file      map[string]any // the YAML file's pairs, names in lower case
	flags     map[string]*pflag.Flag
}

// New returns the settings whose defaults are given (name -> value), read
// from environment variables named with prefix ("STDBG": STDBG_MAX_DEPTH
// for max-depth).
func New(defaults map[string]any, envPrefix string) *Values {
	return &Values{defaults: defaults, envPrefix: envPrefix, file: map[string]any{}, flags: map[string]*pflag.Flag{}}
}

// BindFlag makes the flag named as a setting that setting's value when the
// user set it.
func (v *Values) BindFlag(f *pflag.Flag) { v.flags[f.Name] = f }

// ReadFile reads the YAML file at path, a mapping of setting names to
// values.
func (v *Values) ReadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return err
	}
	file := make(map[string]any, len(m))
	for k, val := range m {
		file[strings.ToLower(k)] = val
	}
	v.file = file
	return nil
}

// FileKeys lists the names the file gives, sorted.
func (v *Values) FileKeys() []string {
	keys := make([]string, 0, len(v.file))
	for k := range v.file {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// InFile reports whether the file gives the setting name.
func (v *Values) InFile(name string) bool {
	_, ok := v.file[name]
	return ok
}

// EnvName is the environment variable of the setting name.
func (v *Values) EnvName(name string) string {
	return v.envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Get returns the value of the setting name as its place holds it: the
// flag's text, the variable's text, the file's value or the default
// (nil for a name with none of them).
func (v *Values) Get(name string) any {
	if f := v.flags[name]; f != nil && f.Changed {
		return f.Value.String()
	}
	if s, ok := os.LookupEnv(v.EnvName(name)); ok && s != "" {
		return s
	}
	if val, ok := v.file[name]; ok {
		return val
	}
	return v.defaults[name]
}

// ValueError says that a setting's value is not one of its type.
type ValueError struct {
	Name  string
	Value any
	Err   error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: %v is not a %s", e.Name, e.Value, e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }

// Decode sets each field of the struct out points to that carries a tag
// (key: the setting's name) to the setting's value. A value that is not
// one of the field's type is a *ValueError.
func (v *Values) Decode(out any, key string) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return errors.New("configload: Decode needs a pointer to a struct")
	}
	s := rv.Elem()
	for i := range s.NumField() {
		name := s.Type().Field(i).Tag.Get(key)
		if name == "" {
			continue
		}
		if err := v.DecodeOne(name, s.Field(i).Addr().Interface()); err != nil {
			return err
		}
	}
	return nil
}

// DecodeOne sets *out (a pointer to a bool, a string, an integer, or a
// time.Duration) to the value of the setting name.
func (v *Values) DecodeOne(name string, out any) error {
	val := v.Get(name)
	if val == nil {
		return nil
	}
	f := reflect.ValueOf(out).Elem()
	if err := convert(val, f); err != nil {
		return &ValueError{Name: name, Value: val, Err: err}
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// convert sets f to val: text is parsed, a YAML number or boolean
// converted as Go would, and nothing that loses information is done.
func convert(val any, f reflect.Value) error {
	switch {
	case f.Type() == durationType:
		switch x := val.(type) {
		case time.Duration:
			f.SetInt(int64(x))
			return nil
		case string:
			d, err := time.ParseDuration(strings.TrimSpace(x))
			if err != nil {
				return errors.New("duration")
			}
			f.SetInt(int64(d))
			return nil
		case int:
			f.SetInt(int64(x)) // nanoseconds, as time.Duration(x)
			return nil
		}
		return errors.New("duration")
	case f.Kind() == reflect.String:
		switch x := val.(type) {
		case string:
			f.SetString(x)
		case bool, int, int64, uint64, float64:
			f.SetString(fmt.Sprint(x))
		default:
			return errors.New("string")
		}
		return nil
	case f.Kind() == reflect.Bool:
		switch x := val.(type) {
		case bool:
			f.SetBool(x)
			return nil
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(x))
			if err != nil {
				return errors.New("boolean")
			}
			f.SetBool(b)
			return nil
		case int:
			f.SetBool(x != 0)
			return nil
		}
		return errors.New("boolean")
	case f.CanInt():
		var n int64
		switch x := val.(type) {
		case int:
			n = int64(x)
		case int64:
			n = x
		case uint64:
			if x > math.MaxInt64 {
				return errors.New("whole number in range")
			}
			n = int64(x)
		case float64:
			if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
				return errors.New("whole number")
			}
			n = int64(x)
		case string:
			p, err := strconv.ParseInt(strings.TrimSpace(x), 0, 64)
			if err != nil {
				return errors.New("whole number")
			}
			n = p
		default:
			return errors.New("whole number")
		}
		if f.OverflowInt(n) {
			return errors.New("whole number in range")
		}
		f.SetInt(n)
		return nil
	}
	return fmt.Errorf("setting of type %s", f.Type())
}
