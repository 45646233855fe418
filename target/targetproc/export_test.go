package targetproc

// AllowedCPUs lists the CPUs this process may run on, for the tests.
var AllowedCPUs = allowedCPUs
