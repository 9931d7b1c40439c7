#!/bin/sh
# make check: the counts of a known text.
out=$(printf 'the cat and the dog and the bird\n' | ./wordfreq | head -n 2)
[ "$out" = "3 the
2 and" ]
