#!/bin/bash
# The cover letter's own text (subject line, then body) is kept as the
# series branch description in the tree; format-patch adds the shortlog,
# diffstat and base-commit around it.
#   cover.sh --to-tree   patches/0000-cover-letter.patch -> description
#   cover.sh --show      print the description
#   cover.sh --results   put the results section (5-cover.py on
#                        results/bench.json) into the description
. "$(dirname "$0")/lib.sh"

cover=$TOP/patches/0000-cover-letter.patch
case ${1:-} in
--to-tree)
	if [ -f "$cover" ]; then
		# Subject (minus the [PATCH 0/N] prefix, unfolded), a blank line,
		# then the body up to the generated "Author (N):" shortlog.
		awk '
			/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
			insubj && /^[ \t]/ { sub(/^[ \t]+/, " "); subj = subj $0; next }
			insubj { insubj = 0 }
			!body && /^$/ && subj != "" { body = 1; print subj; print ""; next }
			body && /^[^ \t].* \([0-9]+\):$/ { exit }
			body { print }
		' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$OUT/cover.txt"
	else
		printf '%s\n\n%s\n' "x86/mm, x86/hyperv, arm64, KVM: nSVM: skip TLB flushes no CPU needs" \
			"(cover letter text: git branch --edit-description series)" > "$OUT/cover.txt"
	fi
	git -C "$TREE" config branch.series.description "$(cat "$OUT/cover.txt")"
	;;
--results)
	[ -f "$RESULTS/bench.json" ] || die "no $RESULTS/bench.json: run make bench"
	git -C "$TREE" config branch.series.description > "$OUT/cover.txt"
	"$TOP"/scripts/5-cover.py "$RESULTS/bench.json" > "$OUT/cover-results.txt"
	python3 - "$OUT/cover.txt" "$OUT/cover-results.txt" <<'PY'
import sys
text = open(sys.argv[1]).read().split('\n')
new = open(sys.argv[2]).read().rstrip('\n').split('\n')
start = next((i for i, l in enumerate(text) if l.startswith('Results (make bench')), None)
end = next((i for i, l in enumerate(text) if l.startswith('How it was tested')), len(text))
if start is None:
    start = end
text[start:end] = new + ['']
open(sys.argv[1], 'w').write('\n'.join(text))
PY
	git -C "$TREE" config branch.series.description "$(cat "$OUT/cover.txt")"
	;;
--show)
	git -C "$TREE" config branch.series.description
	;;
*)
	die "usage: $0 --to-tree|--show|--results"
	;;
esac
