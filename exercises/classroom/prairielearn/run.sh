#!/bin/sh
# The entrypoint of a PrairieLearn question graded by stdbg: the question's
# tests/ directory holds the assignment (assignment.yaml and its harness
# files), the student's files are in /grade/student, and the result goes to
# /grade/results/results.json, which PrairieLearn reads.
mkdir -p /grade/results
stdbg grade --prairielearn /grade/results/results.json /grade/tests/assignment.yaml /grade/student
status=$?
if [ "$status" -ge 2 ]; then
	# The assignment itself is wrong (stdbg said why on stderr): not the
	# student's fault, so not gradable.
	printf '{"gradable": false, "format_errors": ["the grader could not run (exit status %s): ask your teacher"]}\n' "$status" \
		>/grade/results/results.json
fi
exit 0
