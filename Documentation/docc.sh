#!/usr/bin/env bash
# Builds the DocC documentation of every library module with the standard
# plugin command, warnings as errors, as CI does. A convenience only: each line is what a user
# runs by hand (README, "Documentation").
#
#   bash Documentation/docc.sh                 # .build/plugins/Swift-DocC/outputs/<Target>.doccarchive
#   bash Documentation/docc.sh ./docs          # a static website per target, in ./docs/<Target>
#
# The guides are Documentation/*.md; Courier's catalog links to each as <Name>Guide.md (symbolic
# links), so DocC reads the same files a repository page shows.
set -euo pipefail
cd "$(dirname "$0")/.."

site=${1:-}
for target in Courier CourierOAuth CourierConnectivity CourierTesting CourierXML CourierEndpoints CourierOpenAPI; do
    printf '==> generate-documentation --target %s\n' "$target"
    if [ -z "$site" ]; then
        swift package --disable-sandbox generate-documentation --target "$target" --warnings-as-errors
    else
        mkdir -p "$site/$target"
        swift package --allow-writing-to-directory "$site" generate-documentation --target "$target" \
            --warnings-as-errors --disable-indexing --transform-for-static-hosting \
            --hosting-base-path "$target" --output-path "$site/$target"
    fi
done
