#!/usr/bin/env bash
# The Action's analysis step (action.yml runs it; tests/test_github_action.py runs it with the
# variables GitHub sets). One mmaplint run over the whole project (PATHS) writes both the
# annotations (stdout, --format github) and the SARIF log (--report sarif=...). On a pull
# request (BASE set) it reports only findings that touch a line the pull request changed,
# their call chains included; a base commit missing from the clone is an error, not a pass.
#
# In:  BASE (the base commit's sha, empty outside pull requests), PATHS, ARGS, CHANGED_ONLY,
#      GITHUB_OUTPUT, RUNNER_TEMP.
# Out: sarif=PATH, has-sarif=true when written, status=mmaplint's exit code (0 clean,
#      1 findings); the step fails itself on mmaplint's usage errors (2).
set -uo pipefail
: "${GITHUB_OUTPUT:?}" "${RUNNER_TEMP:?}"
sarif="${RUNNER_TEMP}/mmaplint.sarif"
echo "sarif=${sarif}" >> "${GITHUB_OUTPUT}"
diff=()
if [ -n "${BASE:-}" ]; then
  if ! git cat-file -e "${BASE}^{commit}" 2>/dev/null; then
    echo "::error title=mmaplint::the pull request's base commit ${BASE} is not in this clone, so the changed lines cannot be told; check out with actions/checkout's fetch-depth: 0"
    exit 1
  fi
  [ "${CHANGED_ONLY:-true}" = "true" ] && diff=(--diff "${BASE}")
fi
read -r -a paths <<< "${PATHS:-.}"
# shellcheck disable=SC2086  # ARGS is a list of options by design
mmaplint check --format github --report "sarif=${sarif}" "${diff[@]}" ${ARGS:-} -- "${paths[@]}"
status=$?
echo "status=${status}" >> "${GITHUB_OUTPUT}"
[ -s "${sarif}" ] && echo "has-sarif=true" >> "${GITHUB_OUTPUT}"
[ "${status}" -le 1 ]
