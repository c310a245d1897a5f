#!/usr/bin/env bash
# Sourced by the suites that need a Python venv pinned by a requirements
# file: `pinned_venv VENV REQUIREMENTS` (re)creates VENV when the file
# changed since it was made, and installs exactly what the file pins.
pinned_venv() {
  local venv="$1" requirements="$2"
  if ! cmp -s "$requirements" "$venv/.requirements" 2>/dev/null; then
    printf '[venv] creating %s from %s\n' "$venv" "${requirements#"$ROOT"/}" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$requirements"
    cp "$requirements" "$venv/.requirements"
  fi
}
