package pkgvars

// taken has the name of the file stdbg would add first.
var taken = "zz_stdbg_vars.go"
