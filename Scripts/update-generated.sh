#!/usr/bin/env bash
# Regenerates the man pages (man/*.1) and shell completions (completions/) from the commands.
#   Scripts/update-generated.sh          rewrite them
#   Scripts/update-generated.sh --check  fail (exit 1) when the committed ones have drifted
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true

tools=$(grep -oE '\.executable\(name: *"[^"]+"' Package.swift | sed -E 's/.*"([^"]+)"/\1/')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/man" "$work/completions"

swift build --product mediaprobe >/dev/null
bin=$(swift build --show-bin-path)
# The date is fixed so the pages only change when the commands do.
swift package generate-manual --configuration debug --date 2026-01-01 \
  --authors "The MediaTools developers" >/dev/null 2>&1
for tool in $tools; do
  [ -x "$bin/$tool" ] || swift build --product "$tool" >/dev/null
  # The plugin writes "Ar subcommand" into every SYNOPSIS; our tools have no subcommands.
  sed '/^\.Ar subcommand$/d' ".build/plugins/GenerateManual/outputs/$tool/$tool.1" > "$work/man/$tool.1"
  if LC_ALL=C grep -n '[^ -~]' "$work/man/$tool.1" >&2; then
    echo "$tool.1: non-ASCII text vanishes in man(1); write it in ASCII in the command's help" >&2
    exit 1
  fi
  "$bin/$tool" --generate-completion-script bash > "$work/completions/$tool.bash"
  "$bin/$tool" --generate-completion-script zsh > "$work/completions/_$tool"
  "$bin/$tool" --generate-completion-script fish > "$work/completions/$tool.fish"
done

if $check; then
  status=0
  for dir in man completions; do
    if ! diff -ru "$dir" "$work/$dir" >/dev/null 2>&1; then
      echo "generated files drifted: $dir/ differs from the commands (run Scripts/update-generated.sh)" >&2
      diff -ru "$dir" "$work/$dir" | head -40 >&2 || true
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "man pages and completions are up to date"
  exit $status
fi
rm -rf man completions
cp -r "$work/man" "$work/completions" .
echo "updated man/ and completions/"
