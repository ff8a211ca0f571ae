#!/usr/bin/env bash
# Builds the DocC documentation of Courier, CourierTesting and CourierXML, with warnings as
# errors, into .build/documentation/<Target>.doccarchive (or the folder given as $1).
#
# One source of truth: the guides are the Markdown files in Documentation/, readable on their
# own. For the build they are copied into Courier's catalog as articles (generated, ignored by
# git), with links between guides turned into DocC links: `[text](Transfers.md#…)` becomes
# `[text](<doc:TransfersGuide>)` (the suffix keeps an article from taking the name of a symbol,
# such as `Authentication`). The catalogs themselves hold only the landing pages.
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/documentation}
articles=Sources/Courier/Courier.docc/Guides
rm -rf "$articles"
mkdir -p "$articles" "$output"
for guide in Documentation/*.md; do
    name=$(basename "$guide" .md)
    sed -E \
        -e 's#\]\(([A-Za-z]+)\.md(\#[^)]*)?\)#](<doc:\1Guide>)#g' \
        -e "s#\\]\\(\\#[^)]*\\)#](<doc:${name}Guide>)#g" \
        "$guide" >"$articles/${name}Guide.md"
done

for target in Courier CourierTesting CourierXML; do
    printf '==> generate-documentation --target %s\n' "$target"
    swift package --allow-writing-to-directory "$output" \
        generate-documentation --target "$target" --warnings-as-errors \
        --output-path "$output/$target.doccarchive"
done
rm -rf "$articles"
